"""Forms of the survey-taking views: the login form and the form of one survey page."""
from dataclasses import dataclass, field

from django import forms
from django.utils.translation import gettext_lazy as _

from respondents.models import Nav
from surveys.models import Question


class LoginForm(forms.Form):
    access_code = forms.CharField(
        label=_("Access code"), max_length=40, strip=True,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}),
    )


class PageForm(forms.Form):
    """Validate the answers posted for one page against its definition.

    Fields are ``q-<code>``, one per answerable question on the page. None is
    required here: required questions are checked when the respondent
    finishes, so a person may skip a question and come back to it. A field
    named for a question that is not on this page is an error, and so is a
    second value for a question that takes one.
    """

    save_id = forms.UUIDField(error_messages={"required": _("The page is missing its save id: reload it.")})
    nav = forms.ChoiceField(choices=Nav.choices)

    def __init__(self, definition, data=None):
        super().__init__(data=data)
        self.definition = definition
        for code, question in definition.answerable.items():
            self.fields[f"q-{code}"] = _field_for(question)

    def clean_nav(self):
        nav = self.cleaned_data["nav"]
        if nav == Nav.FINISH and not self.definition.is_last:
            raise forms.ValidationError(_("Finish is only possible on the last page."))
        return nav

    def full_clean(self):
        super().full_clean()
        if not self.is_bound:
            return
        for name in self.data:
            if not name.startswith("q-"):
                continue
            field_ = self.fields.get(name)
            if field_ is None:
                self._errors[name] = self.error_class([_("There is no such question on this page.")])
            elif not isinstance(field_, forms.MultipleChoiceField) and len(self.data.getlist(name)) > 1:
                self._errors[name] = self.error_class([_("Give one answer only.")])
        for name in self._errors:
            self.cleaned_data.pop(name, None)

    def stored_values(self):
        """Return ``{question: stored text}`` for every answerable question on the page."""
        return {
            question: _to_stored(question, self.cleaned_data.get(f"q-{code}"))
            for code, question in self.definition.answerable.items()
        }


def _field_for(question):
    kind = question.kind
    if kind == Question.Kind.SINGLE:
        return forms.ChoiceField(required=False, choices=[(c.value, c.label) for c in question.choice_list])
    if kind == Question.Kind.MULTIPLE:
        return forms.MultipleChoiceField(required=False, choices=[(c.value, c.label) for c in question.choice_list])
    if kind == Question.Kind.INTEGER:
        return forms.IntegerField(required=False, min_value=question.min_value, max_value=question.max_value)
    if kind == Question.Kind.DATE:
        return forms.DateField(required=False, input_formats=["%Y-%m-%d"])
    return forms.CharField(required=False, max_length=question.text_max_length)


def _to_stored(question, value):
    if value in (None, "", []):
        return ""
    if question.kind == Question.Kind.MULTIPLE:
        chosen = set(value)
        return " ".join(c.value for c in question.choice_list if c.value in chosen)
    if question.kind == Question.Kind.DATE:
        return value.isoformat()
    return str(value)


@dataclass
class BoundQuestion:
    """A question as the page template renders it: what to show filled in, and its errors."""

    question: Question
    text: str = ""
    selected: frozenset = frozenset()
    errors: list = field(default_factory=list)
    rows: list = field(default_factory=list)

    @property
    def name(self):
        return f"q-{self.question.code}"

    @property
    def choices(self):
        return self.question.choice_list


def bound_questions(definition, *, saved=None, data=None, errors=None):
    """Return the page's items as BoundQuestions.

    Values come from ``data`` (a re-shown POST) when given, else from
    ``saved`` (``{question_id: stored text}``); ``errors`` maps field names to messages.
    """
    errors = errors or {}
    saved = saved or {}

    def bind(question):
        name = f"q-{question.code}"
        if data is not None:
            raw = data.getlist(name)
            text = raw[-1] if raw else ""
        else:
            text = saved.get(question.pk, "")
            raw = text.split() if question.kind == Question.Kind.MULTIPLE else [text]
        return BoundQuestion(
            question=question, text=text, selected=frozenset(raw), errors=list(errors.get(name, [])),
            rows=[bind(row) for row in question.row_list],
        )

    return [bind(item) for item in definition.items]
