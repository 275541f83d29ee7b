"""Reads of respondents and their answers."""
from django.db.models import Count, Q

from respondents import access_codes
from respondents.models import Answer, Respondent
from surveys.selectors import required_questions


def respondent_for_code(*, typed_code):
    """Return the respondent whose access code is ``typed_code`` (as a person typed it), or None."""
    code = access_codes.normalize(typed_code)
    if code is None:
        return None
    return Respondent.objects.filter(access_code=code).first()


def respondent_get(*, respondent_id):
    """Return the respondent with ``respondent_id``, or None."""
    return Respondent.objects.filter(pk=respondent_id).first()


def answers_for_questions(*, respondent_id, questions):
    """Return ``{question_id: value}`` of the respondent's saved answers to ``questions``."""
    ids = [q.pk for q in questions]
    if not ids:
        return {}
    return dict(
        Answer.objects.filter(respondent_id=respondent_id, question_id__in=ids).values_list("question_id", "value")
    )


def missing_required(*, respondent_id, survey, required=None):
    """Return ``{page_number: [question, ...]}`` of required questions the respondent has not answered.

    ``required`` is ``required_questions(survey=survey)`` when the caller has read it already.
    """
    if required is None:
        required = required_questions(survey=survey)
    if not required:
        return {}
    answered = set(
        Answer.objects.filter(respondent_id=respondent_id, question_id__in=[q.pk for _, q in required])
        .exclude(value="")
        .values_list("question_id", flat=True)
    )
    missing = {}
    for number, question in required:
        if question.pk not in answered:
            missing.setdefault(number, []).append(question)
    return missing


def school_counts(*, scope, survey):
    """The schools in ``scope`` with their respondents in ``survey``: [(School, {total, withdrawn, completed,
    in_progress}), ...], by school code. Two queries, whatever the number of schools."""
    Status = Respondent.Status
    active = Q(withdrawn_at__isnull=True)
    counts = {
        row.pop("school_id"): row
        for row in scope.respondents(survey).values("school_id").annotate(
            total=Count("pk", filter=active), withdrawn=Count("pk", filter=~active),
            completed=Count("pk", filter=active & Q(status=Status.COMPLETED)),
            in_progress=Count("pk", filter=active & Q(status=Status.IN_PROGRESS)),
        )
    }
    empty = {"total": 0, "withdrawn": 0, "completed": 0, "in_progress": 0}
    return [(school, counts.get(school.pk, empty)) for school in scope.schools().order_by("code")]


def respondents_of_school(*, scope, survey, school, query="", status=""):
    """The respondents of one school in ``survey`` (an empty queryset outside ``scope``), filtered, by external id."""
    respondents = scope.respondents(survey).filter(school=school).order_by("external_id", "pk")
    if query:
        respondents = respondents.filter(external_id__icontains=query)
    if status == "withdrawn":
        respondents = respondents.filter(withdrawn_at__isnull=False)
    elif status:
        respondents = respondents.filter(status=status, withdrawn_at__isnull=True)
    return respondents


def grade_counts(*, scope, survey, school):
    """[(grade, respondents who may log in)] of a school in ``survey`` (in scope), by grade; one query."""
    rows = (scope.respondents(survey).filter(school=school, withdrawn_at=None).order_by("grade")
            .values("grade").annotate(count=Count("pk")).values_list("grade", "count"))
    return list(rows)
