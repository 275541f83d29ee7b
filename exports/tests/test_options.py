import pytest

from exports.options import ExportError, ExportOptions, UnknownRosterField


def test_an_unknown_roster_field_is_refused_with_the_allowed_ones():
    with pytest.raises(UnknownRosterField, match=r"Unknown roster field\(s\): access_code, shoe.*Allowed: respondent_id"):
        ExportOptions(roster_fields=("grade", "access_code", "shoe"))
    with pytest.raises(ExportError, match="a tuple of field names, not one string"):
        ExportOptions(roster_fields="grade")
    with pytest.raises(ExportError, match="multiple must be one of joined, columns"):
        ExportOptions(multiple="rows")
