"""Forms of the survey-taking views: the login form and the form of one survey page."""
import datetime
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.forms.utils import ErrorDict
from django.http import QueryDict
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _

from respondents.models import Nav
from surveys.caching import definition_memo
from surveys.flow import Route, SurveyFlow
from surveys.languages import is_language
from surveys.models import Question
from surveys.rules import default_message, rule_evaluate
from surveys.selectors import ChoiceDefinition, PageDefinition, QuestionDefinition


class LoginForm(forms.Form):
    access_code = forms.CharField(
        label=_("Access code"), max_length=40, strip=True,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}),
    )


# A decimal answer: up to 12 digits before the point and 6 after.
DECIMAL_DIGITS, DECIMAL_PLACES = 18, 6


def language_code_validator(value: str) -> None:
    if not is_language(value):
        raise forms.ValidationError(_("That is not a language this site knows."))


class LanguageForm(forms.Form):
    """The language switcher: a language (the site's, or one a survey is written in), and the page to go back to."""

    language = forms.CharField(max_length=20, validators=[language_code_validator])
    next = forms.CharField(required=False, max_length=2000)


class PageForm(forms.Form):
    """Validate the answers posted for one page against its definition.

    Fields are ``q-<code>`` (``answer_name``), one per answerable question on the page. None is
    required here: required questions are checked when the respondent
    finishes, so a person may skip a question and come back to it. A field
    named for a question that is not on this page is an error, and so is a
    second value for a question that takes one.

    The survey's rules (``flow``, with ``facts``: the saved answers to other
    pages that they read) decide which questions are asked: whatever is posted
    for a question that is not asked is ignored, neither checked nor saved. An
    asked question's constraint is checked against its answer. ``route`` is
    then where this page stands among the pages that apply, with its answers,
    and it decides where a forward press goes: Finish on a page that, with
    these answers, is not the last that applies goes on as Next.
    """

    # A question's answer is posted as "q-<code>". Every page, survey.js and the load plans use this name: it is
    # the respondent-facing contract, so it is built by answer_name, read back by answer_code and spelled nowhere
    # else (the page hands the prefix to survey.js: script_contract).
    answer_prefix = "q-"

    save_id = forms.UUIDField(error_messages={"required": _("The page is missing its save id: reload it.")})
    nav = forms.ChoiceField(choices=Nav.choices)

    # The form's posted data, and Django's errors of it (set by full_clean; django-stubs does not declare it).
    data: QueryDict
    _errors: ErrorDict

    def __init__(self, definition: PageDefinition, data: QueryDict | None = None, *, flow: SurveyFlow,
                 facts: Mapping[str, str] | None = None) -> None:
        super().__init__(data=data)
        self.definition = definition
        self.flow = flow
        self.facts = facts or {}
        self.asked = set(definition.answerable)
        self.route: Route | None = None
        # The answers the rules read (other pages' and this page's), once cleaned.
        self.answers: dict[str, str] = {}
        self.fields.update(_page_fields(definition))

    @classmethod
    def answer_name(cls, code: str) -> str:
        """Return the name of the field that posts the answer to question ``code``."""
        return cls.answer_prefix + code

    @classmethod
    def answer_code(cls, name: str) -> str | None:
        """Return the question code whose answer field is ``name``, or None for a field that is not an answer."""
        return name[len(cls.answer_prefix):] if name.startswith(cls.answer_prefix) else None

    def full_clean(self) -> None:
        super().full_clean()
        if not self.is_bound:
            return
        for name in self.data:
            if self.answer_code(name) is None:
                continue
            field_ = self.fields.get(name)
            if field_ is None:
                self._errors[name] = self.error_class([gettext("There is no such question on this page.")])
            elif not isinstance(field_, forms.MultipleChoiceField) and len(self.data.getlist(name)) > 1:
                self._errors[name] = self.error_class([gettext("Give one answer only.")])
        self._apply_rules()
        for name in self._errors:
            self.cleaned_data.pop(name, None)

    def _apply_rules(self) -> None:
        flow, number = self.flow, self.definition.number
        if number not in flow.ruled_pages and not flow.page_rules:
            self.route = flow.route(number)
        else:
            name = self.answer_name
            values = {
                code: "" if name(code) in self._errors else _to_stored(question, self.cleaned_data.get(name(code)))
                for code, question in self.definition.answerable.items()
            }
            answers = self.answers = flow.effective({**self.facts, **values}, page=number)
            self.asked = {code for code in values if flow.asks(code, answers)}
            for code in values.keys() - self.asked:
                self._errors.pop(name(code), None)
                self.cleaned_data.pop(name(code), None)
            for code in self.asked:
                constraint = flow.questions[code].constraint
                own = answers[code]
                if own and name(code) not in self._errors and flow.questions[code].choice_rules and (
                        set(own.split()) & flow.questions[code].ruled_out(answers)):
                    self._errors[name(code)] = self.error_class([gettext("Please choose one of the choices offered.")])
                    continue
                if constraint is None or own == "" or name(code) in self._errors:
                    continue
                if not rule_evaluate(constraint, answers, own=own):
                    question = self.definition.answerable[code]
                    message = question.translated("constraint_message") or default_message(question.kind, "constraint")
                    self._errors[name(code)] = self.error_class([message])
            self.route = flow.route(number, answers)
        if self.cleaned_data.get("nav") == Nav.FINISH and not self.route.is_last:
            # A forward press: this page's answers turned later pages on (the page was shown when none applied, or
            # its script was off). Go on to the next page that applies; a Next on the last one stays there, and
            # the page comes back offering Finish, so that nobody finishes by a button that did not say so.
            self.cleaned_data["nav"] = Nav.NEXT

    def stored_values(self) -> dict[QuestionDefinition, str]:
        """Return ``{question: stored text}`` for every question on the page that is asked."""
        return {
            question: _to_stored(question, self.cleaned_data.get(self.answer_name(code)))
            for code, question in self.definition.answerable.items() if code in self.asked
        }


def _page_fields(definition: PageDefinition) -> dict[str, forms.Field]:
    """Return the page's answer fields ``{PageForm.answer_name(code): Field}``, built once per page and language in
    the definition memo (a number's constraint message is in the respondent's language): a form only reads its
    fields, and building them was a tenth of a save's time in Python (docs/performance.md)."""
    key = ("page-fields", definition.survey.pk, definition.number, get_language())
    return definition_memo.get(key, lambda: {
        PageForm.answer_name(code): _field_for(question) for code, question in definition.answerable.items()})


class WallClockDateTimeField(forms.Field):
    """A date and time as the respondent's clock showed it (a ``datetime-local`` input): naive, never converted.

    Django's DateTimeField makes the value aware in the site's time zone; what was asked is the time the person
    read on their clock, wherever they were, and a time the site's zone skips (a spring-forward hour) is still
    a time someone may have written.
    """

    default_error_messages = {"invalid": forms.DateTimeField.default_error_messages["invalid"]}
    input_formats = ("%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S")

    def to_python(self, value: str | None) -> datetime.datetime | None:
        value = (value or "").strip()
        if not value:
            return None
        for format in self.input_formats:
            try:
                return datetime.datetime.strptime(value, format)
            except ValueError:
                continue
        raise forms.ValidationError(self.error_messages["invalid"], code="invalid")


def _field_for(question: QuestionDefinition) -> forms.Field:
    kind = question.kind
    if kind == Question.Kind.SINGLE:
        return forms.ChoiceField(required=False, choices=[(c.value, c.label) for c in question.choice_list])
    if kind == Question.Kind.MULTIPLE:
        return forms.MultipleChoiceField(required=False, choices=[(c.value, c.label) for c in question.choice_list])
    if kind in Question.NUMBER_KINDS:
        # A number's own constraint message explains its min and max too; Django's texts otherwise.
        message = question.constraint_message and question.translated("constraint_message")
        messages = {"min_value": message, "max_value": message} if message else None
        if kind == Question.Kind.INTEGER:
            return forms.IntegerField(required=False, min_value=question.min_value, max_value=question.max_value,
                                      error_messages=messages)
        return forms.DecimalField(required=False, min_value=question.min_value, max_value=question.max_value,
                                  max_digits=DECIMAL_DIGITS, decimal_places=DECIMAL_PLACES, error_messages=messages)
    if kind == Question.Kind.DATE:
        return forms.DateField(required=False, input_formats=["%Y-%m-%d"])
    if kind == Question.Kind.TIME:
        # A browser's time input sends HH:MM, with seconds only when its step asks for them.
        return forms.TimeField(required=False, input_formats=["%H:%M", "%H:%M:%S"])
    if kind == Question.Kind.DATETIME:
        return WallClockDateTimeField(required=False)
    return forms.CharField(required=False, max_length=question.text_max_length)


def _to_stored(question: QuestionDefinition, value: Any) -> str:  # noqa: ANN401 - the kind the question's field cleans
    if value in (None, "", []):
        return ""
    if question.kind == Question.Kind.MULTIPLE:
        chosen = set(value)
        return " ".join(c.value for c in question.choice_list if c.value in chosen)
    if question.kind == Question.Kind.DATE:
        return value.isoformat()
    if question.kind == Question.Kind.TIME:
        return value.strftime("%H:%M")
    if question.kind == Question.Kind.DATETIME:
        return value.isoformat(timespec="minutes")
    if question.kind == Question.Kind.DECIMAL:
        return format(value, "f")  # 1E+3 typed is stored 1000
    return str(value)


@dataclass
class BoundQuestion:
    """A question as the page template renders it: what to show filled in, its errors, and when it is asked.

    ``show_if`` (JSON text) is set on a question whose rule reads an answer on
    this page: survey.js shows and hides it as the person answers, and
    ``condition`` says in words when to answer it, for a page without JavaScript.
    """

    question: QuestionDefinition
    text: str = ""
    selected: frozenset[str] = frozenset()
    errors: list = field(default_factory=list)
    rows: list["BoundQuestion"] = field(default_factory=list)
    show_if: str = ""
    condition: str = ""
    # A cascading select's: the choices not offered (filtered here), or each ruled choice's rule (survey.js
    # shows and hides them) when they read answers on this page.
    ruled_out: frozenset[str] = frozenset()
    choice_show_if: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return PageForm.answer_name(self.question.code)

    @property
    def choices(self) -> Sequence[ChoiceDefinition]:
        if not self.ruled_out:
            return self.question.choice_list
        return [choice for choice in self.question.choice_list if choice.value not in self.ruled_out]


def bound_questions(definition: PageDefinition, *, flow: SurveyFlow, answers: Mapping[str, str],
                    saved: Mapping[int, str] | None = None, data: QueryDict | None = None,
                    errors: Mapping[str, Sequence[object]] | None = None) -> list[BoundQuestion]:
    """Return the page's items that may be asked, as BoundQuestions.

    Values come from ``data`` (a re-shown POST) when given, else from
    ``saved`` (``{question_id: stored text}``); ``errors`` maps field names to
    messages. ``answers`` are the answers the rules read (``flow.effective``):
    a question whose rules read only other pages' answers is left out when
    they do not hold; one whose rules read this page's is bound with them.
    """
    errors = errors or {}
    saved = saved or {}
    ruled = definition.number in flow.ruled_pages

    def bind(question: QuestionDefinition) -> BoundQuestion | None:
        name = PageForm.answer_name(question.code)
        if data is not None:
            raw = data.getlist(name)
            text = raw[-1] if raw else ""
        else:
            # A question never saved shows its default; once saved, what was saved (a blank too).
            text = saved.get(question.pk, question.default_value)
            raw = text.split() if question.kind == Question.Kind.MULTIPLE else [text]
        bound = BoundQuestion(
            question=question, text=text, selected=frozenset(raw), errors=list(errors.get(name, [])),
            rows=[row for row in map(bind, question.row_list) if row],
        )
        if not ruled:
            return bound
        # An answerable question, or a note with a show_if, as the rules see it.
        rule = flow.questions.get(question.code) or flow.notes.get(question.code)
        if rule is not None and rule.choice_rules:
            if rule.choices_read_own_page:
                bound.choice_show_if = rule.choice_rules_text
            else:
                bound.ruled_out = rule.ruled_out(answers)
        if rule is not None:
            if rule.reads_own_page:
                bound.show_if = rule.show_if_text
                words = flow.condition_words(question.code, get_language())
                bound.condition = (gettext("Applies if %(condition)s.") if question.kind == Question.Kind.NOTE
                                   else gettext("Answer if %(condition)s.")) % {"condition": words}
            elif not flow.asks(question.code, answers):
                return None
        elif question.kind == Question.Kind.NOTE:
            return bound  # always shown
        elif not bound.rows:
            return None
        else:
            conditions = {row.condition for row in bound.rows}
            if len(conditions) == 1 and all(row.show_if for row in bound.rows):
                bound.condition = conditions.pop()  # said once for the grid
        return bound

    return [bound for bound in map(bind, definition.items) if bound]


def page_rules_data(definition: PageDefinition, *, flow: SurveyFlow, answers: Mapping[str, str],
                    stored: Mapping[str, str] | None = None) -> dict[str, str] | None:
    """Return what survey.js needs to follow the person's answers on this page, or None when nothing there does.

    For questions whose rule reads an answer on this page: ``kinds`` of every
    code those rules read (compiled with the flow), and ``answers`` (as rules
    read them) of those on other pages. For a page whose answers decide which
    later pages apply: ``route`` (``SurveyFlow.route_scripts``) and
    ``route_answers``, the other pages' saved answers (``stored``, as stored)
    that it re-reads, so that the buttons and "Page X of Y" follow the answers.
    """
    number = definition.number
    kinds, route = flow.script_kinds.get(number), flow.route_scripts.get(number)
    if kinds is None and route is None:
        return None
    data: dict[str, str] = {}
    if kinds is not None:
        others = {code: answers.get(code, "") for code in flow.script_other_reads[number]}
        data.update(kinds=kinds, answers=json.dumps(others, separators=(",", ":")),
                    calculations=flow.script_calculations.get(number, ""))
    if route is not None:
        stored = stored or {}
        others = {code: stored.get(code, "") for code in flow.page_reads[number]}
        data.update(route=route, route_answers=json.dumps(others, separators=(",", ":"), ensure_ascii=False))
    return data


def script_contract() -> dict[str, object]:
    """Return the names survey.js posts and must not spell itself: the answer fields' prefix and the values of
    ``nav`` by their ``Nav`` names (the survey page's ``data-contract``)."""
    return {"answer_prefix": PageForm.answer_prefix, "nav": {nav.name: nav.value for nav in Nav}}
