"""What every respondent page's header needs: the languages the person may switch to."""
from django.conf import settings
from django.http import HttpRequest

from surveys.languages import local_name


def switch_languages(request: HttpRequest) -> dict[str, list[tuple[str, str]]]:
    """``switch_languages``: ``[(code, name in that language)]``: the survey's languages for a respondent in a
    session, else every language the site speaks (the login page)."""
    survey = getattr(request, "survey", None)
    codes = survey.languages if survey is not None and survey.languages else [code for code, _ in settings.LANGUAGES]
    return {"switch_languages": [(code, local_name(code)) for code in codes]}
