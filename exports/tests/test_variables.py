from exports.variables import NAME_MAX_LENGTH, legal_names


def test_legal_names_are_short_legal_not_reserved_and_unique_regardless_of_case():
    wanted = ["Age", "age", "str12", "with", "TO", "q.1-b", "x" * 40, "x" * 33, "x" * 31 + "_2"]
    names = legal_names(wanted)
    assert names == ["Age", "age_2", "str12_", "with_", "TO_", "q_1_b", "x" * 32, "x" * 30 + "_2", "x" * 31 + "_"]
    assert len({name.lower() for name in names}) == len(names)
    assert all(len(name) <= NAME_MAX_LENGTH and name[0].isalpha() for name in names)


def test_legal_names_are_deterministic():
    wanted = ["in", "if", "a" * 40, "a" * 41]
    assert legal_names(wanted) == legal_names(list(wanted)) == ["in_", "if_", "a" * 32, "a" * 30 + "_2"]


def test_a_name_claimed_first_keeps_it_and_a_derived_name_gives_way():
    # A question coded pets_cat comes after the 0/1 column of pets' choice cat: the question keeps its code.
    assert legal_names(["pets_cat", "pets_cat"], first=[1]) == ["pets_cat_2", "pets_cat"]
    assert legal_names(["roster_grade", "Grade", "grade"], first=[0, 1]) == ["roster_grade", "Grade", "grade_2"]


def test_roster_text_widths_follow_the_models_so_spss_never_cuts_a_value(db):
    from exports.variables import TIMESTAMP_WIDTH, variables_plan
    from respondents.models import Respondent, School
    from surveys.tests.factories import make_survey

    plan = variables_plan(survey=make_survey(), roster_fields=("external_id", "school_name", "started_at",
                                                               "respondent_id"))
    widths = {v.field: v.width for v in plan.variables if v.kind == "roster"}
    assert widths == {"external_id": 4 * Respondent._meta.get_field("external_id").max_length,
                      "school_name": 4 * School._meta.get_field("name").max_length,
                      "started_at": TIMESTAMP_WIDTH, "respondent_id": 0}
