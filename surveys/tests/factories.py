"""Test data, made through the real services."""
import copy
import json
from pathlib import Path

from django.db import connection

from infra.db_router import master_wal_position, replica_aliases, replicas_caught_up
from surveys.services import survey_create

DEMO_DOCUMENT = Path(__file__).resolve().parents[1] / "demo" / "school_climate.json"

AGREE = [{"value": "1", "label": "Disagree"}, {"value": "2", "label": "Agree"}]

# A small survey with every kind of question: three pages, required questions
# on pages 1 and 3.
SMALL_SURVEY = {
    "slug": "small",
    "title": "Small survey",
    "status": "open",
    "choice_lists": {"agree": AGREE},
    "pages": [
        {"title": "First", "questions": [
            {"code": "colour", "kind": "single", "prompt": "Favourite colour?", "required": True,
             "choices": [{"value": "red", "label": "Red"}, {"value": "blue", "label": "Blue"}]},
            {"code": "pets", "kind": "multiple", "prompt": "Pets?",
             "choices": [{"value": "cat", "label": "Cat"}, {"value": "dog", "label": "Dog"}, {"value": "fish", "label": "Fish"}]},
            {"code": "age", "kind": "integer", "prompt": "Age?", "min": 5, "max": 99},
            {"code": "nickname", "kind": "short_text", "prompt": "Nickname?", "max_length": 10},
        ]},
        {"title": "Second", "questions": [
            {"code": "school", "kind": "grid", "prompt": "Agree?", "choices": "agree", "rows": [
                {"code": "safe", "prompt": "I feel safe."}, {"code": "happy", "prompt": "I am happy."}]},
            {"code": "born", "kind": "date", "prompt": "Birthday?"},
        ]},
        {"title": "Third", "questions": [
            {"code": "story", "kind": "long_text", "prompt": "Tell us more.", "max_length": 50},
            {"code": "again", "kind": "single", "prompt": "Again?", "required": True, "choices": "agree"},
        ]},
    ],
}


# A consent screener (issue 19's respondent stuck on page 1): page 1 asks for consent; pages 2 and 3 apply only
# to those who agree, so with page 1 blank it is the only page that applies.
CONSENT = {"op": "equals", "q": "consent", "value": "yes"}
SCREENER_SURVEY = {
    "slug": "screener",
    "title": "Screener",
    "status": "open",
    "pages": [
        {"title": "Consent", "questions": [
            {"code": "consent", "kind": "single", "prompt": "Do you agree to take part?", "required": True,
             "choices": [{"value": "no", "label": "No"}, {"value": "yes", "label": "Yes"}]},
        ]},
        {"title": "About you", "show_if": CONSENT, "questions": [
            {"code": "colour", "kind": "single", "prompt": "Favourite colour?",
             "choices": [{"value": "red", "label": "Red"}, {"value": "blue", "label": "Blue"}]},
        ]},
        {"title": "Last", "show_if": CONSENT, "questions": [
            {"code": "again", "kind": "single", "prompt": "Again?", "required": True, "choices": AGREE},
        ]},
    ],
}


def make_screener_survey():
    return replicated(survey_create(document=copy.deepcopy(SCREENER_SURVEY)))


def small_document(**changes):
    document = copy.deepcopy(SMALL_SURVEY)
    document.update(changes)
    return document


def replicated(result):
    """Return ``result`` once every replica has what was just committed (transactional tests on the stack)."""
    if replica_aliases() and not connection.in_atomic_block:
        assert replicas_caught_up(master_wal_position(), timeout=10), "the replica did not catch up in 10 s"
    return result


def make_survey(**changes):
    return replicated(survey_create(document=small_document(**changes)))


def make_demo_survey():
    return replicated(survey_create(document=json.loads(DEMO_DOCUMENT.read_text())))

