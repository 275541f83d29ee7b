"""Names folded for the search, accents, case and punctuation aside: in Python (``fold_name``, SQLite's function) and in the
database's ``respondent_name_folded``, which agree (on PostgreSQL, unaccent's rules: ``make test-stack``)."""
import pytest
from django.db import connection

from respondents.name_folding import FUNCTION, fold_name

NAMES = ["García", "GARCÍA", "garcía", "Muñoz-Peña", "Inés Núñez", "Zoë Brontë", "Ærø", "Łódź", "Straße",
         "Øster", "Đorđević", "François Çelik", "Ångström", "  two  spaces ", "", "O'Brien, Jr.", "a_1-b"]


def test_a_name_is_folded_without_its_accents_in_capitals_a_space_before_each_word():
    assert [fold_name(name) for name in NAMES] == [
        " GARCIA", " GARCIA", " GARCIA", " MUNOZ PENA", " INES NUNEZ", " ZOE BRONTE", " AERO", " LODZ", " STRASSE",
        " OSTER", " DORDEVIC", " FRANCOIS CELIK", " ANGSTROM", "  TWO SPACES ", " ", " O BRIEN JR ", " A 1 B"]
    assert fold_name(None) is None


@pytest.mark.django_db
def test_the_database_folds_a_name_as_python_does():
    with connection.cursor() as cursor:
        for name in NAMES:
            cursor.execute(f"SELECT {FUNCTION}(%s)", [name])
            folded = cursor.fetchone()[0]
            assert folded == fold_name(name), (connection.vendor, name, folded)
        cursor.execute(f"SELECT {FUNCTION}(NULL)")
        assert cursor.fetchone()[0] is None
