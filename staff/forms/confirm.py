"""The confirm step of the screens' actions that are hard to undo."""
from django import forms
from django.http import HttpRequest


class ConfirmForm(forms.Form):
    """The step an action that is hard to undo asks for (withdrawing people, reissuing a code, publishing a
    survey): its confirm page posts ``confirm``; a request without it (a GET, a form of another page, a replayed
    POST) is shown the confirm page and changes nothing."""

    confirm = forms.BooleanField(required=False, widget=forms.HiddenInput)

    @classmethod
    def confirmed(cls, request: HttpRequest) -> bool:
        form = cls(request.POST)
        return request.method == "POST" and form.is_valid() and form.cleaned_data["confirm"]
