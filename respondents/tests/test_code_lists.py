"""Lists of codes: split however staff separate them, shown one way."""
from respondents.code_lists import join_codes, split_codes


def test_commas_spaces_and_new_lines_all_separate_codes_in_any_mix():
    typed = " D1,D2  D3\nD4,\r\n\tD5 , ,D6,"
    assert split_codes(typed) == ("D1", "D2", "D3", "D4", "D5", "D6")
    assert split_codes("") == split_codes(" , \n") == ()
    assert split_codes("LIN LIN") == ("LIN", "LIN")  # as typed: the caller decides about a code given twice


def test_a_list_of_codes_is_shown_with_a_comma_and_a_space():
    assert join_codes(["ADA", "LIN"]) == "ADA, LIN" and join_codes(split_codes("ADA LIN")) == "ADA, LIN"
    assert join_codes([]) == ""
