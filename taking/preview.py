"""The survey office's preview: every page of a survey as a respondent would see it, in each of its languages and
for the answers its skip logic reads (a role, say), before it is published.

It is a respondent screen shown to staff, so it lives with the respondent screens and renders their templates;
the door is the staff area's permission (``can_manage_surveys``), read through ``accounts.scopes``.
"""
from django import forms
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import mark_safe
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from accounts.scopes import NotStaff, staff_scope
from infra.clients import client_ip
from respondents.models import Nav
from surveys.flow import SurveyFlow
from surveys.languages import has_interface, is_right_to_left, language_name
from surveys.models import Question, Survey
from surveys.selectors import page_count, page_definition, survey_flow
from taking.forms import bound_questions, page_rules_data


class PreviewForm(forms.Form):
    """Which page, in which language, and the answers the survey's skip logic reads from other pages."""

    def __init__(self, data: QueryDict, *, survey: Survey, flow: SurveyFlow) -> None:
        super().__init__(data)
        self.fields["page"] = forms.TypedChoiceField(
            label="Page", coerce=int, required=False, choices=[(n, n) for n in range(1, flow.page_count + 1)])
        self.fields["language"] = forms.ChoiceField(label="Language", required=False, choices=[
            (code, language_name(code)) for code in survey.languages or [survey.default_language]])
        self.deciders: list[str] = []
        for code in (code for code in flow.questions if code in flow.session_codes):  # in survey order
            question = Question.objects.select_related("grid").get(survey=survey, code=code)
            label = f"Answer to “{question.prompt}” ({code})"
            if question.kind == Question.Kind.SINGLE or question.grid_id:
                source = question.grid or question
                choices = [("", "not answered")] + [(c.value, c.label) for c in source.choices.order_by("position")]
                self.fields[f"answer-{code}"] = forms.ChoiceField(label=label, required=False, choices=choices)
            else:
                self.fields[f"answer-{code}"] = forms.CharField(label=label, required=False, max_length=200)
            self.deciders.append(code)

    def answers(self) -> dict[str, str]:
        return {code: self.cleaned_data.get(f"answer-{code}") or "" for code in self.deciders}


@require_safe
@never_cache
def survey_preview(request: HttpRequest, slug: str) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path(), login_url=reverse("staff:login"))
    try:
        scope = staff_scope(user=request.user, address=client_ip(request))
    except NotStaff as error:
        raise PermissionDenied("This account has no staff role.") from error
    scope.require("can_manage_surveys")
    survey = get_object_or_404(Survey, slug=slug)
    flow = survey_flow(survey=survey)
    form = PreviewForm(request.GET, survey=survey, flow=flow)
    form.is_valid()
    number = form.cleaned_data.get("page") or 1
    language = form.cleaned_data.get("language") or survey.default_language
    stored = form.answers()
    with translation.override(language):
        definition = page_definition(survey=survey, number=min(number, page_count(survey=survey)))
        if definition is None:
            raise Http404("This survey has no pages to preview.")
        answers = flow.effective(stored, page=definition.number)
        route = flow.route(definition.number, answers)
        context = {
            "survey": survey, "definition": definition, "route": route, "save_id": "preview",
            "rules": page_rules_data(definition, flow=flow, answers=answers),
            "items": bound_questions(definition, flow=flow, answers=answers, saved={}),
            "error_list": [], "missing": [], "nav": Nav,
        }
        page_html = render_to_string("taking/page.html", context, request=request, using="jinja2")
        query = request.GET.copy()
        pages = []
        for page in range(1, flow.page_count + 1):
            query["page"] = str(page)
            pages.append({"number": page, "url": f"?{query.urlencode()}", "applies": page in route.pages,
                          "current": page == definition.number})
        return render(request, "taking/preview.html", {
            "survey": survey, "form": form, "page_html": mark_safe(page_html),  # noqa: S308 (autoescaped Jinja2)
            "pages": pages, "route": route,
            "applies": definition.number in route.pages, "language": language, "switch_languages": [],
            "languages": [(code, language_name(code), has_interface(code)) for code in survey.languages],
            "interface_language": language_name(settings.LANGUAGE_CODE),
            "language_dir": "rtl" if is_right_to_left(language) else "ltr",
        })
