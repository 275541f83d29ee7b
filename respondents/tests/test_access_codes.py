import math

from respondents import access_codes


def test_a_code_has_at_least_forty_bits_of_randomness_and_no_look_alike_characters():
    assert math.log2(len(access_codes.ALPHABET) ** access_codes.LENGTH) >= 40
    assert not set("01ILO") & set(access_codes.ALPHABET)
    codes = {access_codes.generate() for _ in range(2000)}
    assert len(codes) == 2000
    assert all(len(c) == access_codes.LENGTH and set(c) <= set(access_codes.ALPHABET) for c in codes)


def test_a_code_is_printed_in_two_groups_and_read_back_however_it_was_typed():
    code = access_codes.generate()
    printed = access_codes.format_code(code)
    assert printed == f"{code[:5]}-{code[5:]}"
    for typed in (printed, printed.lower(), f"  {code[:5]} {code[5:]} ", code):
        assert access_codes.normalize(typed) == code


def test_anything_that_cannot_be_a_code_reads_as_none():
    for typed in ("", "ABCDE", "ABCDE-FGHJK-M", "ABCDE-FGHJ0", "ABCDE_FGHJK", "ÄBCDE-FGHJK"):
        assert access_codes.normalize(typed) is None


def test_the_start_of_a_code_is_read_as_a_code_is_typed_and_what_no_code_starts_with_is_none():
    code = access_codes.generate()
    printed = access_codes.format_code(code)
    for typed, start in ((printed[:7].lower(), code[:6]), (f" {code[:2]} ", code[:2]), (printed, code),
                         (f"{code[:5]} - {code[5:8]}", code[:8])):
        assert access_codes.normalize_prefix(typed) == start, typed
    for typed in ("", " - ", "ABCDE-FGHJK-M", "O", "ABC_D", "ÄB", "garcía"):
        assert access_codes.normalize_prefix(typed) is None, typed


def test_codes_drawn_many_at_once_are_valid_distinct_and_use_the_whole_alphabet():
    from collections import Counter

    codes = access_codes.generate_many(20000)
    assert len(codes) == 20000 and len(set(codes)) == 20000
    assert all(access_codes.normalize(code) == code for code in codes)
    counts = Counter("".join(codes))
    assert set(counts) == set(access_codes.ALPHABET)
    # 200,000 characters over 31: about 6,452 each; uniform within a few percent.
    assert max(counts.values()) / min(counts.values()) < 1.15
