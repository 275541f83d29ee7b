"""Reads of respondents and their answers."""
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
