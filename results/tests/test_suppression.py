"""The suppression rule, cases worked on paper first (threshold 10 unless said): within one table, then across
selections (a school less a grade, a district less its other schools, two means)."""
import pytest

from results.suppression import (
    NO_SCHOOL,
    STATE,
    Adding,
    Places,
    district_node,
    figures_suppressed,
    school_node,
)


def figures_hidden(**kwargs):
    """The figures ``figures_suppressed`` hides."""
    return {cell for cell, figure in figures_suppressed(**kwargs).items() if figure.hidden}

T, F = True, False
LIN, ADA = school_node(1), school_node(2)


def one_table(counts, *, kind=Adding.VALUES, answered=None, threshold=10):
    """Whether each value of one group's table (a school, grade 7, students) is hidden."""
    cells = {(LIN, "7", "student", "value", f"v{i}"): count for i, count in enumerate(counts)}
    if answered is not None:
        cells[LIN, "7", "student", "answered", ""] = answered
    hidden = figures_hidden(counts=cells, places=Places(), kind=kind, threshold=threshold)
    return tuple((LIN, "7", "student", "value", f"v{i}") in hidden for i in range(len(counts)))


@pytest.mark.parametrize(("counts", "hidden"), [
    # Nothing under the threshold: everything shown, zeros too (a zero is nobody's answer).
    ([50, 30, 20], (F, F, F)),
    ([0, 0, 40], (F, F, F)),
    # 10 is shown, 9 is not; with 9 alone hidden, 49 - 10 - 30 would give it: the next smallest goes too.
    ([10, 9, 30], (T, T, F)),
    # One small cell of a table adding up to its total: the next smallest cell above 0 goes with it, else
    # 73 - 50 - 20 would give the 3 away.
    ([50, 3, 20], (F, T, T)),
    # ... a zero is passed over for the next smallest above 0: hiding it would still give the 3 away.
    ([50, 3, 0, 20], (F, T, F, T)),
    # Ties: the first of the smallest, in the table's order.
    ([3, 15, 15], (T, T, F)),
    # Two small cells hidden together still leave 7 people (77 - 50 - 20) who chose one of the two: a small group,
    # so the next smallest goes too.
    ([50, 3, 4, 20], (F, T, T, T)),
    # ... but two that make 10 or more together protect each other.
    ([50, 6, 4, 20], (F, T, T, F)),
    # A zero is passed over even when the next cell is large: a hidden zero may be known to be one (nobody of
    # that school teaches, say), and then protects nothing.
    ([12, 3, 0], (T, T, F)),
])
def test_within_a_table_small_cells_and_their_complements_are_hidden(counts, hidden):
    assert one_table(counts) == hidden


@pytest.mark.parametrize(("counts", "answered", "hidden"), [
    # A multiple choice's cells do not add up to its total: a small cell alone is hidden...
    ([50, 3, 20], 60, (F, T, F)),
    ([9, 9, 9], 20, (T, T, T)),
    # ... and a count whose rest is a small group: 11 of 12 chose the first, so the one who did not is one person.
    # 12 of 12: nobody did not.
    ([11, 3, 12], 12, (T, T, F)),
    ([2, 10, 30], 40, (T, F, F)),
    # 35 of 40 leaves 5 who did not choose it.
    ([35, 20, 30], 40, (T, F, F)),
])
def test_a_multiple_choice_hides_a_count_whose_rest_is_a_small_group_too(counts, answered, hidden):
    assert one_table(counts, kind=Adding.CHOICES, answered=answered) == hidden


def test_the_threshold_is_the_setting_s_whatever_it_is():
    assert one_table([4, 5, 30], threshold=5) == (T, T, F)
    assert one_table([1, 2, 3], threshold=1) == (F, F, F)


def school_and_grades(grades, *, kind=Adding.PEOPLE, name="respondents", value="completed"):
    """One school's figure ``name``/``value`` by grade ({grade: count}, students): the hidden selections, as
    (grade or None for the whole school, role or None)."""
    counts = {(LIN, grade, "student", name, value): count for grade, count in grades.items()}
    hidden = figures_hidden(counts=counts, places=Places(), kind=kind, threshold=10)
    return {(cell[1], cell[2]) for cell in hidden if cell[0] == LIN and cell[3] == name and cell[4] == value}


def test_a_school_less_its_other_grades_never_gives_a_grade_of_one_away():
    """The review's route: 25 in the school, 24 in grade 10, so grade 12 is the one student. Grade 10 goes with
    grade 12 (the next smallest child), for every role's selection and the students'."""
    hidden = school_and_grades({"10": 24, "12": 1})
    assert hidden == {("10", "student"), ("12", "student"), ("10", None), ("12", None)}
    # With grade 9 as well, the smallest other grade goes: the school and grade 10 stay.
    hidden = school_and_grades({"9": 14, "10": 24, "12": 1})
    assert ("12", None) in hidden and ("9", None) in hidden and ("10", None) not in hidden
    assert (None, None) not in hidden


def test_two_small_grades_that_leave_a_small_group_together_take_a_third_with_them():
    # 4 + 4 = 8 people in grades 10 and 12: the school less grade 9 would give them.
    hidden = school_and_grades({"9": 30, "10": 4, "12": 4})
    assert {("9", None), ("10", None), ("12", None)} <= hidden


def district_of_schools(counts, *, threshold=10):
    """A district (D1) of schools {school: count} of grade-7 students who completed; the hidden places."""
    places = Places(children={STATE: [district_node(1)], district_node(1): [school_node(s) for s in counts]})
    cells = {(school_node(s), "7", "student", "respondents", "completed"): n for s, n in counts.items()}
    hidden = figures_hidden(counts=cells, places=places, kind=Adding.PEOPLE, threshold=threshold)
    return {cell[0] for cell in hidden if cell[1] is None and cell[2] is None and cell[4] == "completed"}


def test_a_district_less_its_other_schools_never_gives_a_small_school_away():
    """The review's other route: the district's total less every school shown but one is that one."""
    assert district_of_schools({1: 40, 2: 30, 3: 4}) == {school_node(3), school_node(2)}
    # Two small schools of 5 and 6 protect each other (11 together).
    assert district_of_schools({1: 40, 2: 5, 3: 6}) == {school_node(2), school_node(3)}
    # A district of one school is that school: both are shown, or both hidden.
    assert district_of_schools({1: 40}) == set()
    assert district_of_schools({1: 4}) == {school_node(1), district_node(1), STATE}


def test_a_mean_is_hidden_where_its_complement_s_mean_would_be_a_small_group_s():
    """The school's mean (25 answered) and grade 10's (24) give the grade-12 student's number exactly: with fewer
    than the threshold in the school less grade 10, one of them is not shown."""
    counts = {(LIN, "10", "student", "value", "0"): 24, (LIN, "12", "student", "value", "1"): 1,
              (LIN, "10", "student", "mean", ""): 24, (LIN, "12", "student", "mean", ""): 1}
    hidden = figures_hidden(counts=counts, places=Places(), kind=Adding.VALUES, threshold=10)
    means = {(c[1], c[2]) for c in hidden if c[3] == "mean"}
    assert ("12", None) in means and (("10", None) in means or (None, None) in means)


def test_respondents_with_no_school_are_counted_in_the_state_and_never_given_away_by_it():
    """The state less its districts is the respondents with no school: three of them here, so a district goes too
    (the smallest), and the state's figure stays."""
    places = Places(children={STATE: [district_node(1), district_node(2), NO_SCHOOL],
                              district_node(1): [LIN], district_node(2): [ADA]}, unseen=frozenset({NO_SCHOOL}))
    counts = {(LIN, "7", "student", "respondents", "completed"): 40,
              (ADA, "8", "student", "respondents", "completed"): 30,
              (NO_SCHOOL, "", "student", "respondents", "completed"): 3}
    hidden = figures_hidden(counts=counts, places=places, kind=Adding.PEOPLE, threshold=10)
    totals = {cell[0] for cell in hidden if cell[1] is None and cell[2] is None and cell[4] == "completed"}
    assert STATE not in totals and district_node(2) in totals and ADA in totals
    assert not any(cell[0] == NO_SCHOOL for cell in hidden)  # nobody is shown them: not figures of the results


def test_figures_fixed_by_another_solve_are_kept_and_the_rest_protects_them():
    """A coordinator's two schools: each school's figures as the state's solve left them (Lincoln's 4 hidden);
    their sum, the coordinator's own selection, would give it away with Adams's shown, so it is hidden."""
    scope = ("scope", None)
    places = Places(children={scope: [LIN, ADA]})
    counts = {(LIN, "7", "student", "respondents", "completed"): 4,
              (ADA, "7", "student", "respondents", "completed"): 30}
    fixed = {(LIN, g, r, "respondents", v): True for g in ("7", None) for r in ("student", None)
             for v in ("completed", "")}
    fixed.update({(ADA, g, r, "respondents", v): False for g in ("7", None) for r in ("student", None)
                  for v in ("completed", "")})
    hidden = figures_hidden(counts=counts, places=places, kind=Adding.PEOPLE, threshold=10, fixed=fixed)
    assert (scope, None, None, "respondents", "completed") in hidden
    assert not any(cell[0] == ADA for cell in hidden)
