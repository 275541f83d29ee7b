"""The staff forms' lists of codes: every one takes commas, spaces and new lines alike and says so one way (the
export's pickers take names too, which hold spaces: there a comma separates, and codes may also be separated by
spaces)."""
import pytest

from accounts.scopes import COMMAND_LINE
from staff.forms.accounts import StaffAccountForm, StaffUploadForm
from staff.forms.exports import ExportForm

pytestmark = pytest.mark.django_db
MIXED = "D1, D2 D3\nD4,D5"


def test_every_list_of_codes_a_form_takes_says_commas_or_spaces():
    helps = {
        "account's districts": StaffAccountForm.base_fields["district_codes"].help_text,
        "account's schools": StaffAccountForm.base_fields["school_codes"].help_text,
        "staff file": StaffUploadForm.base_fields["file"].help_text,
        "export's districts": ExportForm.base_fields["districts"].help_text,
        "export's schools": ExportForm.base_fields["schools"].help_text,
    }
    wrong = {name: str(text) for name, text in helps.items() if "separated by commas or spaces" not in text.lower()
             and "separated by commas (codes also by spaces)" not in text.lower()}
    assert not wrong, wrong


def test_the_account_form_and_the_export_filter_read_a_mixed_list_of_codes_alike(lincoln):
    account = StaffAccountForm({"username": "ana", "role": "district", "district_codes": MIXED,
                                "school_codes": "LIN,\nLIN"})
    assert account.is_valid(), account.errors
    assert account.cleaned_data["district_codes"] == ("D1", "D2", "D3", "D4", "D5")
    export = ExportForm({"format": "csv", "answers": "values", "multiple": "joined", "schools": " LIN,\n",
                         "districts": ""}, scope=COMMAND_LINE)
    assert export.is_valid(), export.errors
    assert export.export_filter.schools == ("LIN",)
    refused = ExportForm({"format": "csv", "answers": "values", "multiple": "joined", "districts": "D1, D2,\nD5"},
                         scope=COMMAND_LINE)
    assert not refused.is_valid()
    assert refused.errors["districts"] == [f"No district in your scope has the code or name “{code}”."
                                           for code in ("D2", "D5")]
