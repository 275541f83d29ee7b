"""What people answered: counts and percentages of each question's answers, filtered, with charts; and what they
wrote to a text question, for those who may export."""
from typing import Any

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.audit import Action, audit_record
from results.aggregates import answer_counts_refresh
from results.selectors import answer_counts_stale, question_index, question_results, results_grades, text_answers
from staff.access import StaffRequest, staff_view
from staff.forms.results import ResultsFilterForm, TextAnswersPageForm
from staff.results_page import results_charts, results_sections
from surveys.models import Survey


@staff_view()
def survey_results(request: StaffRequest, slug: str) -> HttpResponse:
    """Page ?page= of the survey's questions, counted for the scope's respondents of a district (?district=), a
    school (?school=: a code or a name, looked up in the scope), a grade (?grade=) and a role (?role=), from the
    answer counts (rebuilt when stale on the embedded default, by a periodic task elsewhere), small counts
    suppressed. A place that the scope does not hold, or that names several, is the form's error (400)."""
    survey = get_object_or_404(Survey, slug=slug)
    form = _filters(request, survey)
    context = {"survey": survey, "form": form, "threshold": settings.RESULTS_SUPPRESSION_THRESHOLD}
    if not form.is_valid():
        return render(request, "staff/results.html", context, status=400)
    where = form.cleaned_data
    results = question_results(scope=request.scope, survey=survey, number=where["page"] or 1,
                               district=where["district"], school=where["school"], grade=where["grade"],
                               role=where["role"])
    if results is None:
        raise Http404("The survey has no such page.")
    sections = results_sections(results)
    return render(request, "staff/results.html", {
        **context, "results": results, "district": where["district"], "school": where["school"],
        "sections": sections, "charts": results_charts(sections), "query": form.query(),
        "index": question_index(survey=survey), "threshold": results.threshold})


@staff_view("can_export")
def survey_text_answers(request: StaffRequest, slug: str, code: str) -> HttpResponse:
    """What the selection of the results page (the same filters) wrote to text question ``code``, a page at a time
    (?number=), each text once with how many wrote it, never who; nothing where the selection hides how many
    answered. Each page read is audited: the answers are as sensitive as an export's."""
    survey = get_object_or_404(Survey, slug=slug)
    form = _filters(request, survey)
    paging = TextAnswersPageForm(request.GET)
    context = {"survey": survey, "form": form, "threshold": settings.RESULTS_SUPPRESSION_THRESHOLD}
    if not (form.is_valid() and paging.is_valid()):
        return render(request, "staff/text_answers.html", {**context, "code": code}, status=400)
    where = form.cleaned_data
    texts = text_answers(scope=request.scope, survey=survey, code=code, district=where["district"],
                         school=where["school"], grade=where["grade"], role=where["role"],
                         number=paging.cleaned_data["number"] or 1)
    if texts is None:
        raise Http404("The survey has no text question with that code.")
    if texts.shown:
        audit_record(scope=request.scope, action=Action.TEXT_ANSWERS_READ, survey=survey, school=where["school"],
                     detail=f"question {code}, {_selection(where)}: page {texts.number}, "
                            f"{len(texts.answers)} text{'s' if len(texts.answers) != 1 else ''}")
    return render(request, "staff/text_answers.html", {
        **context, "code": code, "texts": texts, "query": form.query(), "district": where["district"],
        "school": where["school"]})


def _filters(request: StaffRequest, survey: Survey) -> ResultsFilterForm:
    """The page's filters, after the counts are rebuilt if they are stale (embedded default): the grades offered
    come from them."""
    if settings.RESULTS_REFRESH_ON_REQUEST and answer_counts_stale(
            survey=survey, max_age=settings.RESULTS_REFRESH_ON_REQUEST_MAX_AGE):
        answer_counts_refresh(survey=survey)
    return ResultsFilterForm(request.GET, scope=request.scope, grades=results_grades(survey=survey))


def _selection(where: dict[str, Any]) -> str:
    """The selection in words, for the audit log."""
    parts = [str(where["school"] or where["district"] or "the whole scope")]
    if where["grade"]:
        parts.append(f"grade {where['grade']}")
    if where["role"]:
        parts.append(f"role {where['role']}")
    return ", ".join(parts)
