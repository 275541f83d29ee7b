"""The suppression rule, cases worked on paper first (threshold 10 unless said)."""
import pytest

from results.suppression import cells_suppressed, table_too_small

T, F = True, False


@pytest.mark.parametrize(("counts", "additive", "hidden"), [
    # Nothing under the threshold: everything shown, zeros too (a zero is nobody's answer).
    ([50, 30, 20], True, (F, F, F)),
    ([0, 0, 40], True, (F, F, F)),
    # 10 is shown, 9 is not.
    ([10, 9, 30], True, (T, T, F)),
    # One small cell of a table adding up to its total: the next smallest cell above 0 goes with it, else
    # 50 - 20 - ... would give the 3 away.
    ([50, 3, 20], True, (F, T, T)),
    # ... a zero is passed over for the next smallest above 0: hiding it would still give the 3 away.
    ([50, 3, 0, 20], True, (F, T, F, T)),
    # Ties: the first of the smallest, in the table's order.
    ([3, 15, 15], True, (T, T, F)),
    # Two small cells protect each other: no third.
    ([50, 3, 4, 20], True, (F, T, T, F)),
    # A multiple choice's cells do not add up to its total: only the small cell.
    ([50, 3, 20], False, (F, T, F)),
    ([9, 9, 9], False, (T, T, T)),
    # A zero is passed over even when the next cell is large: a hidden zero may be known to be one (nobody of
    # that school teaches, say), and then protects nothing.
    ([12, 3, 0], True, (T, T, F)),
    # Every other cell 0 (its table is too small to show anyway): the first zero goes with it.
    ([3, 0, 0], True, (T, T, F)),
])
def test_cells_under_the_threshold_and_their_complements_are_hidden(counts, additive, hidden):
    assert cells_suppressed(counts, threshold=10, additive=additive) == hidden


@pytest.mark.parametrize(("counts", "total", "hidden"), [
    # 11 of 12 chose the first: the one who did not is one person. 12 of 12: nobody did not.
    ([11, 3, 12], 12, (T, T, F)),
    ([2, 10, 30], 40, (T, F, F)),
    # 35 of 40 leaves 5 who did not choose it.
    ([35, 20, 30], 40, (T, F, F)),
])
def test_a_multiple_choice_hides_a_count_whose_rest_is_a_small_group_too(counts, total, hidden):
    assert cells_suppressed(counts, threshold=10, additive=False, total=total) == hidden


def test_the_threshold_is_the_setting_s_whatever_it_is():
    assert cells_suppressed([4, 5, 30], threshold=5, additive=True) == (T, T, F)
    assert cells_suppressed([1, 2, 3], threshold=1, additive=True) == (F, F, F)


@pytest.mark.parametrize(("total", "too_small"), [(0, F), (1, T), (9, T), (10, F), (2_000_000, F)])
def test_a_table_or_a_selection_under_the_threshold_shows_nothing_but_too_few(total, too_small):
    assert table_too_small(total, threshold=10) == too_small
