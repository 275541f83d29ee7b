"""Language codes and names, as XLSForms write them, read through CLDR's tables."""
import pytest

from surveys.languages import has_interface, is_language, is_right_to_left, language_code, language_name, local_name


@pytest.mark.parametrize(("text", "code"), [
    ("English (en)", "en"), ("Español (es)", "es"), ("Kiswahili (sw)", "sw"), ("Portuguese (pt-BR)", "pt-br"),
    ("es", "es"), ("pt_BR", "pt-br"), ("zh-Hans", "zh-hans"),
    ("chinese", "zh"), ("Chinese", "zh"), ("Spanish", "es"), ("español", "es"), ("Français", "fr"),
    ("العربية", "ar"), ("Filipino", "fil"),
    # A code in brackets wins over the name before it; a bad one is not rescued by the name.
    ("Swahili (tlh)", None), ("Klingon", None), ("", None), ("English (en)\nSpanish (es)", None),
])
def test_a_language_is_read_from_its_code_in_brackets_its_code_or_its_name(text, code):
    assert language_code(text) == code


def test_codes_are_django_s_and_names_are_cldr_s():
    assert is_language("pt-br") and not is_language("pt_BR") and not is_language("PT") and not is_language(None)
    assert (language_name("sw"), local_name("sw"), local_name("zh"), language_name("es", in_language="es")) == (
        "Swahili", "Kiswahili", "中文", "español")
    assert has_interface("es") and not has_interface("sw")
    assert is_right_to_left("ar") and is_right_to_left("fa") and not is_right_to_left("sw")


def test_codes_asked_about_by_requests_do_not_grow_the_cache_without_bound():
    from surveys.languages import _locale

    for n in range(3000):
        assert not is_language(f"zz-x{n}")  # a cookie or a switcher POST may say anything shaped like a code
    assert _locale.cache_info().currsize <= 1024
