"""Reads for the staff screens of people and rosters: counts by school and grade, a school's list, the roster uploads
in a scope."""
from django.db.models import Count, Q, QuerySet

from accounts.scopes import Role, Scope
from respondents.models import Respondent, School
from rosters.models import Roster
from surveys.models import Survey


def school_counts(*, scope: Scope, survey: Survey) -> list[tuple[School, dict[str, int]]]:
    """The schools in ``scope`` with their respondents in ``survey``: [(School, {total, withdrawn, completed,
    in_progress}), ...], by school code. Two queries, whatever the number of schools."""
    Status = Respondent.Status
    active = Q(withdrawn_at__isnull=True)
    counts = {
        school_id: {"total": total, "withdrawn": withdrawn, "completed": completed, "in_progress": in_progress}
        for school_id, total, withdrawn, completed, in_progress in scope.respondents(survey).values_list(
            "school_id").annotate(
            total=Count("pk", filter=active), withdrawn=Count("pk", filter=~active),
            completed=Count("pk", filter=active & Q(status=Status.COMPLETED)),
            in_progress=Count("pk", filter=active & Q(status=Status.IN_PROGRESS)),
        )
    }
    empty = {"total": 0, "withdrawn": 0, "completed": 0, "in_progress": 0}
    return [(school, counts.get(school.pk, empty)) for school in scope.schools().order_by("code")]


def respondents_of_school(*, scope: Scope, survey: Survey, school: School, query: str = "",
                          status: str = "") -> QuerySet[Respondent]:
    """The respondents of one school in ``survey`` (an empty queryset outside ``scope``), filtered, by external id."""
    respondents = scope.respondents(survey).filter(school=school).order_by("external_id", "pk")
    if query:
        respondents = respondents.filter(external_id__icontains=query)
    if status == "withdrawn":
        respondents = respondents.filter(withdrawn_at__isnull=False)
    elif status:
        respondents = respondents.filter(status=status, withdrawn_at__isnull=True)
    return respondents


def grade_counts(*, scope: Scope, survey: Survey, school: School) -> list[tuple[str, int]]:
    """[(grade, respondents who may log in)] of a school in ``survey`` (in scope), by grade; one query."""
    rows = (scope.respondents(survey).filter(school=school, withdrawn_at=None).order_by("grade")
            .values("grade").annotate(count=Count("pk")).values_list("grade", "count"))
    return list(rows)




def rosters_in_scope(*, scope: Scope, survey: Survey | None = None) -> QuerySet[Roster]:
    """The survey's (every survey's for None) roster uploads in ``scope``: all of them for a state administrator,
    one's own otherwise. Only its uploader applies or discards one (``rosters/importing.py``)."""
    rosters = Roster.objects.select_related("survey", "uploaded_by")
    if survey is not None:
        rosters = rosters.filter(survey=survey)
    return rosters if scope.all_schools and scope.role == Role.STATE_ADMIN else rosters.filter(
        uploaded_by_id=scope.user_id)
