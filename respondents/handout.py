"""Hand-out groups: the order in which a school's people get their slips and appear on its lists."""
from django.db.models import Case, CharField, F, QuerySet, Value, When

from respondents.grades import grade_order
from respondents.models import Respondent

# The cover of a group without a grade, by role (Respondent.Role; the roster accepts no other).
ROLE_GROUPS = {"teacher": "Teachers", "parent": "Parents", "staff": "Staff", "student": "Students without a grade",
               "": "People without a grade or role"}


def handout_group(grade: str, role: str) -> str:
    """The name of the group a person's slip is handed out with: "Grade 7", or for a person without a grade
    (teachers, parents, staff) their role's: "Teachers"."""
    if grade:
        return f"Grade {grade}"
    return ROLE_GROUPS.get(role, ROLE_GROUPS[""])


def in_handout_order(people: QuerySet[Respondent], *, by_school: bool = False) -> QuerySet[Respondent]:
    """``people`` (Respondents) by hand-out group (grade in grade order: K, 1..12, the rest; then role for those
    without one), then external id; ``by_school``: school by school (by code) first, for people chosen across
    schools. Reads their distinct grades first (one query), which ``grade_order`` ranks."""
    grades = people.order_by().values_list("grade", flat=True).distinct()
    role_without_grade = Case(When(grade="", then=F("role")), default=Value(""), output_field=CharField())
    return people.annotate(handout_rank=grade_order(grades), handout_role=role_without_grade).order_by(
        *(["school__code"] if by_school else []), "handout_rank", "grade", "handout_role", "external_id", "pk")
