"""The messages survey.js shows, translated on the server with the rest of the interface.

The page hands them to the script as JSON (``data-messages`` on the survey
page), so the script needs no catalogue request of its own on a slow network,
and one gettext catalogue holds every string a respondent reads. A message
with ``%(name)s`` placeholders is filled in by the script.
"""
import json

from django.utils.translation import gettext_lazy as _

SCRIPT_MESSAGES = {
    "too_large": _("This is too much to send at once. Shorten your longest answers, then try again."),
    "too_many": _("Too many tries from your network. Please wait a minute, then try again."),
    "session_ended": _("Your session has ended. Please log in again with your access code; your saved answers are "
                       "kept."),
    "server_error": _("Something went wrong (error %(status)s). Please try again in a minute."),
    "not_saved_suffix": _("This page is not saved."),
    "fix_title": _("Nothing on this page was saved. Please fix:"),
    "missing_title": _("Your answers are saved, but some required questions are not answered yet:"),
    "page": _("Page %(number)s"),
    "page_of": _("Page %(number)s of %(count)s"),
    "next_button": _("Next"),
    "finish_button": _("Finish"),
    "last_page": _("Your answers are saved. With them, no more pages apply to you: press Finish when you are ready "
                   "to send your answers."),
    "next_not_loaded": _("Your answers are saved, but the next page could not be loaded."),
    "next_not_loaded_title": _("The next page could not be loaded"),
    "load_again": _("Load it again"),
    "next_retrying": _("Your answers are saved. We could not load the next page: trying again (attempt "
                       "%(attempt)s)…"),
    "finishing": _("Saved. Finishing…"),
    "logged_out": _("Saved. Logging out…"),
    "saved": _("Saved."),
    "loading_page": _("Saved. Loading page %(number)s…"),
    "fix_below": _("Not saved: please fix the answers marked below."),
    "could_not_save": _("This page could not be saved."),
    "log_in_again": _("Log in again"),
    "saving": _("Saving…"),
    "unreachable": _("This page is not saved yet: the survey server could not be reached. Check that you are "
                     "online, then press the button again. Your earlier pages are saved."),
    "retrying": _("Connection problem: your answers are not saved yet. Retrying in %(seconds)s s (attempt "
                  "%(attempt)s of %(attempts)s)… Please keep this page open."),
    "idle_minutes": _("To keep your answers private on a shared computer, you will be logged out in about "
                      "%(minutes)s minutes because nothing has happened on this page. Your saved answers are kept."),
    "idle_seconds": _("To keep your answers private on a shared computer, you will be logged out in %(seconds)s "
                      "seconds because nothing has happened on this page. Your saved answers are kept."),
    "still_there": _("Are you still there?"),
    "keep_logged_in": _("Keep me logged in"),
    "no_server": _("We could not reach the server. Press the button again."),
    "kept_unsaved": _("Your answers on this page were kept in the new language. They are saved when you move on "
                      "from this page."),
}


def script_messages_json() -> str:
    """Return the script's messages in the active language, as JSON text."""
    return json.dumps({key: str(text) for key, text in SCRIPT_MESSAGES.items()}, ensure_ascii=False,
                      separators=(",", ":"))
