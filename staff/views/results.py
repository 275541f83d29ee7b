"""What people answered: counts and percentages of each question's answers, filtered, with charts."""
from django.conf import settings
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from results.aggregates import answer_counts_refresh
from results.selectors import question_charts, question_results, results_grades
from staff.access import staff_view
from staff.forms import ResultsFilterForm
from surveys.models import Survey


@staff_view()
def survey_results(request, slug):
    """Page ?page= of the survey's questions, counted for the scope's respondents of a district (?district=), a
    school (?school=), a grade (?grade=) and a role (?role=), from the answer counts (rebuilt on request on the
    embedded default, by a periodic task elsewhere), small counts suppressed. A district or school out of scope,
    or a school of another district than ?district=, is a 404."""
    survey = get_object_or_404(Survey, slug=slug)
    if settings.RESULTS_REFRESH_ON_REQUEST:  # first: the grades offered come from the counts
        answer_counts_refresh(survey=survey)
    form = ResultsFilterForm(request.GET, districts=request.scope.districts(), grades=results_grades(survey=survey))
    if not form.is_valid():
        return render(request, "staff/results.html", {"survey": survey, "form": form,
                                                      "threshold": settings.RESULTS_SUPPRESSION_THRESHOLD}, status=400)
    where = form.cleaned_data
    district = school = None
    if where["district"]:
        district = get_object_or_404(request.scope.districts(), code=where["district"])
    if where["school"]:
        school = get_object_or_404(request.scope.schools(), code=where["school"])
        if district is not None and school.district_id != district.pk:
            raise Http404("That school is not in that district.")
    results = question_results(scope=request.scope, survey=survey, number=where["page"] or 1, district=district,
                               school=school, grade=where["grade"], role=where["role"])
    if results is None:
        raise Http404("The survey has no such page.")
    return render(request, "staff/results.html", {
        "survey": survey, "form": form, "results": results, "district": district, "school": school,
        "charts": question_charts(results), "query": _without_page(request.GET),
        "threshold": results.threshold})


def _without_page(query):
    params = query.copy()
    params.pop("page", None)
    return params.urlencode()
