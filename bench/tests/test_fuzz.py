"""The fuzzer's checks (bench/fuzz.py): what the requests were answered, which session sends next, and every stored
answer checked against its question's rules."""
from types import SimpleNamespace

import pytest
from django.utils import timezone

from bench import fuzz
from respondents.models import Answer
from respondents.tests.factories import make_respondents
from surveys.tests.factories import make_survey

PAGE_SAVE = ("POST", "/take/page/2/", {"X-CSRFToken": "t"}, "nav=next")


def session():
    return SimpleNamespace(saved_pages=set())


def test_a_server_error_is_counted_and_kept_as_an_example_and_a_closed_connection_or_a_refusal_is_not():
    tally = fuzz.Tally()
    tally.count("page save", PAGE_SAVE, 200, "{}")
    tally.count("odd path", ("GET", "/" + "a" * 9000, {}, None), 400, "bad request")
    tally.count("oversized body", ("POST", "/take/page/1/", {}, "x=" + "y" * 1000), 0, "ConnectionResetError: reset")
    tally.count("odd method", ("TRACE", "/", {}, None), 405, "")
    tally.count("page save", PAGE_SAVE, 502, "Bad Gateway" * 100)
    report = tally.report(requests=5, seconds=1.234, problems=[], survey="fuzz", seed=7)
    assert report["statuses"] == {0: 1, 200: 1, 400: 1, 405: 1, 502: 1}
    assert report["by_kind"] == {"odd method 405": 1, "odd path 400": 1, "oversized body 0": 1, "page save 200": 1,
                                 "page save 502": 1}
    assert report["server_errors"] == 1 and report["seconds"] == 1.2
    [example] = report["examples_of_5xx"]
    assert example["kind"] == "page save" and example["status"] == 502 and len(example["body"]) == 300
    assert example["request"] == {"method": "POST", "path": "/take/page/2/", "headers": {"X-CSRFToken": "t"},
                                  "body": "nav=next"}


def test_every_server_error_is_counted_but_only_the_first_twenty_kept():
    tally = fuzz.Tally()
    for n in range(25):
        tally.count("page save", PAGE_SAVE, 500, f"error {n}")
    report = tally.report(requests=25, seconds=1, problems=[], survey="fuzz", seed=7)
    assert report["server_errors"] == 25 and len(report["examples_of_5xx"]) == 20
    assert report["examples_of_5xx"][-1]["body"] == "error 19"


def test_stored_values_breaking_their_rules_are_reported_twenty_at_most():
    problems = [{"question": "age", "value": str(n), "problem": "above the maximum"} for n in range(30)]
    report = fuzz.Tally().report(requests=0, seconds=0, problems=problems, survey="fuzz", seed=7)
    assert report["stored_value_problems"] == 30 and report["examples_of_bad_values"] == problems[:20]


def test_a_request_describes_itself_cut_short_and_a_binary_body_not_at_all():
    described = fuzz.describe(("POST", "/" + "p" * 300, {"X": "v" * 200}, b"\x00" * 10))
    assert len(described["path"]) == 200 and described["headers"] == {"X": "v" * 100} and described["body"] is None


def test_a_page_save_answered_200_or_302_marks_the_page_saved_and_nothing_else_does():
    first = session()
    sessions = fuzz.Sessions([first], clients=1, pages=6)
    sessions.answered(0, first, "page save", PAGE_SAVE, 200)
    sessions.answered(0, first, "page save", ("POST", "/take/page/3/", {}, ""), 302)
    sessions.answered(0, first, "page save", ("POST", "/take/page/4/", {}, ""), 400)  # refused: not saved
    sessions.answered(0, first, "page save", ("POST", "/take/page/99999/", {}, ""), 404)
    sessions.answered(0, first, "no csrf", ("POST", "/take/page/5/", {}, "nav=next"), 200)  # not a page save
    sessions.answered(0, first, "page save", ("POST", "/take/page/1/?q=x", {}, ""), 200)  # not the page's own path
    assert first.saved_pages == {2, 3}


def test_a_session_that_finished_or_saved_every_page_gives_its_slot_to_a_spare_while_there_are_spares():
    first, second, spare = session(), session(), session()
    sessions = fuzz.Sessions([first, second, spare], clients=2, pages=2)
    assert sessions.sender(0) == (0, first) and sessions.sender(3) == (1, second)
    sessions.answered(1, second, "page save", ("POST", "/take/page/2/", {}, ""), 409)  # finished
    assert sessions.sender(1) == (1, spare)
    sessions.answered(1, second, "page save", ("POST", "/take/page/2/", {}, ""), 409)  # late: its slot is taken
    sessions.answered(0, first, "page save", ("POST", "/take/page/1/", {}, ""), 200)
    assert sessions.sender(0) == (0, first)
    sessions.answered(0, first, "page save", ("POST", "/take/page/2/", {}, ""), 200)  # every page saved
    assert sessions.sender(0) == (0, first) and sessions.spares == []  # no spare left: it carries on



def test_a_session_that_saved_and_logged_out_gives_its_slot_to_a_spare_and_a_refused_logout_keeps_it():
    first, spare = session(), session()
    sessions = fuzz.Sessions([first, spare], clients=1, pages=6)
    sessions.answered(0, first, "page save and log out", ("POST", "/take/page/2/", {}, "nav=logout"), 400)
    assert sessions.sender(0) == (0, first)  # refused: still logged in
    sessions.answered(0, first, "page save and log out", ("POST", "/take/page/2/", {}, "nav=logout"), 200)
    assert first.saved_pages == {2} and sessions.sender(0) == (0, spare)


def test_some_page_saves_are_save_and_log_out():
    client = SimpleNamespace(saved_pages=set(), csrf="t")
    pages = [{"colour": ("single", ["red", "blue"], None, None, None)}] * 3
    made = [fuzz.page_post(fuzz.random.Random(seed), client, pages) for seed in range(400)]
    logouts = [request for kind, request in made if kind == "page save and log out"]
    assert 2 <= len(logouts) <= 30
    assert all(kind in ("page save", "page save and log out") for kind, _ in made)

@pytest.mark.django_db
def test_each_page_lists_its_questions_with_the_choices_and_bounds_their_values_must_keep():
    make_survey(slug="fuzzed")
    pages = fuzz.page_fields("fuzzed")
    assert [sorted(page) for page in pages] == [["age", "colour", "nickname", "pets"], ["born", "happy", "safe"],
                                               ["again", "story"]]
    first, second, third = pages
    assert first["colour"][:2] == ("single", ["red", "blue"]) and first["pets"][:2] == ("multiple", ["cat", "dog", "fish"])
    assert first["age"][0] == "integer" and first["age"][2:4] == (5, 99)
    assert first["nickname"] == ("short_text", [], None, None, 10)
    assert second["safe"][:2] == ("single", ["1", "2"])  # a grid's row takes its grid's choices
    assert second["born"][0] == "date" and third["story"][4] == 50


@pytest.mark.django_db
def test_every_stored_answer_breaking_its_question_s_rules_is_found_and_no_other():
    survey = make_survey(slug="fuzzed")
    respondent = make_respondents(survey)
    questions = {q.code: q for q in survey.questions.all()}
    values = {"colour": "green", "pets": "dog cat", "age": "120", "nickname": "x" * 11, "born": "2023-02-30",
              "story": "fine", "again": "2", "safe": ""}
    Answer.objects.bulk_create([Answer(respondent=respondent, question=questions[code], value=value,
                                       saved_at=timezone.now()) for code, value in values.items()])
    problems = {p["question"]: p for p in fuzz.stored_problems("fuzzed")}
    assert set(problems) == {"colour", "pets", "age", "nickname", "born"}
    assert problems["age"]["value"] == "120" and "maximum 99" in problems["age"]["problem"]
    assert "not one of the choices" in problems["colour"]["problem"]
    assert "choice order" in problems["pets"]["problem"]
