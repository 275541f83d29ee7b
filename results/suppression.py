"""Small-cell suppression: which counts of a results table are hidden so that no small group's answers can be read.

The rule, applied to one table (a question's choices, a grid row's choices,
a number question's bins), with ``threshold`` (``RESULTS_SUPPRESSION_THRESHOLD``):

1. A table whose total is under the threshold (and above 0) shows no cell at
   all ("too few answers"); the page does the same for a whole selection
   (a school, a grade of a school...) of fewer respondents than the threshold.
2. Primary: a count above 0 and under the threshold is hidden.
3. Complementary: where the cells add up to a total that is shown (a single
   choice, a grid row, a number's bins: each person in one cell) and exactly
   one cell is hidden, the smallest other cell above 0 (the smallest other
   cell, if all are 0) is hidden too, so the first cannot be worked out by
   subtracting the others from the total. Two or more hidden cells protect
   each other.
4. A multiple choice's cells do not add up to its total (a person may choose
   several), so rule 3 does not apply to them; but each choice splits those
   who answered in two, who chose it and who did not, so a count is hidden
   where those who did not choose it (the total less the count) are above 0
   and under the threshold: 11 of 12 who chose "cat" says which one did not.

A hidden cell's percentage is hidden with it, and charts leave its bar out.
Zero is shown: it is no person's answer. docs/architecture.md ("Results by
question") gives the reasons and what the rule does not cover.
"""
from collections.abc import Sequence


def cells_suppressed(counts: Sequence[int], *, threshold: int, additive: bool,
                     total: int | None = None) -> tuple[bool, ...]:
    """Return, for each of ``counts`` (one table's cells), whether it is hidden; ``additive``: the cells add up to
    a total the page shows; else ``total``, the shown total each cell is a part of (a multiple choice's: rule 4).
    A table whose total is under the threshold is ``table_too_small``, for the caller."""
    hidden = [0 < count < threshold or (total is not None and not additive and 0 < total - count < threshold)
              for count in counts]
    if additive and sum(hidden) == 1:
        others = [i for i, count in enumerate(counts) if not hidden[i]]
        pool = [i for i in others if counts[i] > 0] or others
        if pool:
            hidden[min(pool, key=lambda i: (counts[i], i))] = True
    return tuple(hidden)


def table_too_small(total: int, *, threshold: int) -> bool:
    """Whether a table (or a selection of respondents) of ``total`` people shows nothing but "too few"."""
    return 0 < total < threshold
