"""Property-based tests (Hypothesis) of everything a client can send to the survey-taking side.

Whatever arrives: never a 5xx; a refused request saves nothing (no answer,
no page-save log row); every stored value keeps its question's rules
(``respondents.answer_values``). Generated: values for every question kind,
unknown and repeated fields, huge and odd strings, bad save ids, bad nav,
bad page numbers, bad charsets, odd methods. The suite runs on SQLite and
again on PostgreSQL through pgbouncer (make test-stack).

Examples per test: the ``ci`` profile (conftest.py); ``HYPOTHESIS_PROFILE=long``
runs ten times as many.
"""
import uuid
from urllib.parse import quote

import pytest
from django.http import QueryDict
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from respondents.answer_values import stored_answer_problems
from respondents.models import Answer, Nav, PageSave, Respondent
from respondents.services import PageSaveRefused, page_save
from respondents.tests.factories import login, make_respondents
from surveys.models import Question
from surveys.selectors import page_definition, survey_flow
from taking.forms import PageForm

pytestmark = pytest.mark.django_db

# Each example makes its own respondent; the database is the test's.
EXAMPLES = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], deadline=None)

ODD_STRINGS = [
    "", " ", "\x00", "a\x00b", "0", "-0", "+1", "-1", "1.5", "1e309", "NaN", "Infinity", "9" * 40, "9" * 5000,
    "2023-02-30", "0000-00-00", "99999-01-01", "2020-1-1", "<script>alert(1)</script>", "' OR 1=1 --",
    "../../etc/passwd", "%00", "\u202e", "\ufeff", "😀" * 20, "true", "null", "[]", "{}", " red", "red ", "RED",
]
odd_text = st.one_of(
    st.sampled_from(ODD_STRINGS),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=60),
    st.integers().map(str),
)


def mostly(usual, odd):
    """Draw from ``usual`` four times in five, else from ``odd``: a request mostly right, with one thing wrong,
    reaches the deeper checks (one wrong field everywhere would stop every request at the form)."""
    return st.integers(0, 4).flatmap(lambda n: odd if n == 0 else usual)


def values_for(question, choices):
    """A strategy of one posted value (or a list of them) for ``question``: right, just wrong, and odd."""
    if question.kind == Question.Kind.SINGLE:
        return mostly(st.sampled_from(choices), st.one_of(odd_text, st.lists(st.sampled_from(choices), min_size=2)))
    if question.kind == Question.Kind.MULTIPLE:
        return mostly(st.lists(st.sampled_from(choices), max_size=5), st.lists(odd_text, max_size=3))
    if question.kind == Question.Kind.INTEGER:
        low, high = question.min_value or 0, question.max_value or 100
        return mostly(st.integers(low - 50, high + 50).map(str), odd_text)
    if question.kind == Question.Kind.DECIMAL:
        low, high = question.min_value or 0, question.max_value or 100
        decimals = st.decimals(low - 50, high + 50, allow_nan=False, allow_infinity=False, places=3).map(str)
        return mostly(st.one_of(decimals, st.floats().map(str)), odd_text)
    if question.kind == Question.Kind.DATE:
        return mostly(st.dates().map(lambda d: d.isoformat()), odd_text)
    limit = question.text_max_length
    return mostly(st.text(st.characters(exclude_categories=["Cs"]), max_size=limit + 20),
                  st.one_of(odd_text, st.lists(odd_text, min_size=2, max_size=3)))


@st.composite
def page_posts(draw, survey):
    """A POST to a page of ``survey``: (page number, fields as {name: [values]})."""
    number = draw(mostly(st.integers(1, 3), st.sampled_from([0, 4, 99, 2**31, 10**12])))
    fields = {}
    definition = page_definition(survey=survey, number=min(max(number, 1), 3))
    for code, question in definition.answerable.items():
        if draw(st.booleans()):
            choices = [c.value for c in question.choice_list] or ["x"]
            value = draw(values_for(question, choices))
            fields[f"q-{code}"] = value if isinstance(value, list) else [value]
    unknown = draw(mostly(st.just({}), st.dictionaries(st.one_of(st.just("q-nosuch"), st.just("q-"), st.text(max_size=12)),
                                                        st.lists(odd_text, min_size=1, max_size=2), max_size=3)))
    for name, values in unknown.items():
        if name not in ("csrfmiddlewaretoken",):
            fields.setdefault(name, values)
    save_id = draw(mostly(st.uuids().map(str), st.one_of(odd_text, st.none())))
    if save_id is not None:
        fields["save_id"] = [save_id]
    nav = draw(mostly(st.sampled_from(["back", "next", "finish", "logout"]), st.one_of(odd_text, st.none())))
    if nav is not None:
        fields["nav"] = [nav]
    return number, fields


def snapshot(respondent):
    answers = set(Answer.objects.filter(respondent=respondent).values_list("question_id", "value"))
    return answers, PageSave.objects.filter(respondent=respondent).count()


def assert_stored_values_are_valid():
    problems = stored_answer_problems(Answer.objects.all())
    assert not problems, [(a.question.code, a.value, p) for a, p in problems]


def fresh_taker(survey):
    respondent = make_respondents(survey)
    client = Client()
    login(client, respondent)
    return client, respondent


CHARSETS = ["utf-8", "latin-1", "utf-16", "hex", "ascii", "nonsense", "utf-32-be", "base64"]


@EXAMPLES
@given(data=st.data(), ajax=st.booleans(),
       encoding=mostly(st.sampled_from(["multipart", "urlencoded"]), st.sampled_from(CHARSETS)))
def test_no_page_post_answers_5xx_and_a_refused_one_saves_nothing(survey, data, ajax, encoding):
    client, respondent = fresh_taker(survey)
    number, fields = data.draw(page_posts(survey))
    before = snapshot(respondent)
    headers = {"X-Requested-With": "XMLHttpRequest"} if ajax else {}
    path = f"/take/page/{number}/"
    if encoding == "multipart":
        response = client.post(path, fields, headers=headers)
    else:
        body = "&".join(f"{quote(k)}={quote(v)}" for k, values in fields.items() for v in values)
        charset = "" if encoding == "urlencoded" else f"; charset={encoding}"
        response = client.generic("POST", path, body.encode(), content_type="application/x-www-form-urlencoded" + charset,
                                  headers=headers)
    assert response.status_code < 500, response.content[:500]
    after = snapshot(respondent)
    applied = after[1] - before[1]
    assert applied in (0, 1)
    if response.status_code >= 400:
        assert after == before, f"a {response.status_code} changed the response"
    if applied:
        assert response.status_code in (200, 302)
        if ajax:
            assert response.json()["saved"] is True
    assert_stored_values_are_valid()


@EXAMPLES
@given(data=st.data())
def test_the_page_form_never_raises_and_what_it_accepts_keeps_the_rules(survey, data):
    number, fields = data.draw(page_posts(survey))
    definition = page_definition(survey=survey, number=min(max(number, 1), 3))
    query = QueryDict(mutable=True)
    for name, values in fields.items():
        query.setlist(name, values)
    form = PageForm(definition, query, flow=survey_flow(survey=survey))
    if form.is_valid():
        from respondents.answer_values import answer_value_problem

        for question, value in form.stored_values().items():
            source = question if not question.grid_id else next(
                q for q in definition.items if q.pk == question.grid_id)
            choices = [c.value for c in source.choice_list]
            assert answer_value_problem(question, value, choices) is None, (question.code, value)


@EXAMPLES
@given(steps=st.lists(st.tuples(st.integers(1, 3), st.sampled_from(list(Nav.values)), st.integers(0, 4),
                                st.sampled_from(["red", "blue", ""])), min_size=1, max_size=12))
def test_page_saves_in_any_order_apply_each_save_id_once(survey, steps):
    respondent = make_respondents(survey)
    pool = [uuid.uuid4() for _ in range(5)]
    applied, first_answers = set(), {}
    for number, nav, which, colour in steps:
        definition = page_definition(survey=survey, number=number)
        if nav == Nav.FINISH and number != definition.page_count:
            continue  # the form refuses it before page_save
        values = {q: (colour if q.code == "colour" else "") for q in definition.answerable.values()}
        save_id = pool[which]
        try:
            result = page_save(respondent_id=respondent.pk, definition=definition, values=values, save_id=save_id, nav=nav)
        except PageSaveRefused as refused:
            assert refused.reason == PageSaveRefused.LOCKED
            assert Respondent.objects.get(pk=respondent.pk).is_completed
            continue
        if save_id in applied:
            assert result.replayed
        else:
            assert not result.replayed
            applied.add(save_id)
            if number == 1:
                first_answers["colour"] = colour
        assert 1 <= result.next_page <= 3
    log = list(PageSave.objects.filter(respondent=respondent).values_list("save_id", flat=True))
    assert sorted(log) == sorted(applied)  # every applied save once, nothing else
    if "colour" in first_answers:
        assert Answer.objects.get(respondent=respondent, question__code="colour").value == first_answers["colour"]
    current = Respondent.objects.get(pk=respondent.pk)
    assert 1 <= current.current_page <= 3


@EXAMPLES
@given(code=st.one_of(odd_text, st.text(alphabet="23456789ABCDEFGHJKMNPQRSTUVWXYZ- ", max_size=20)),
       extra=st.dictionaries(st.text(max_size=10), odd_text, max_size=3))
def test_any_login_post_is_answered_without_a_5xx(client, code, extra):
    response = client.post("/", {**extra, "access_code": code})
    assert response.status_code in (200, 302, 400, 403, 429)


@EXAMPLES
@given(path=st.sampled_from(["/", "/take/", "/take/page/1/", "/take/page/3/", "/take/page/0/", "/take/page/99999999999/",
                             "/take/complete/", "/take/keep-alive/", "/logout/", "/ping/", "/errors/413/"]),
       method=st.sampled_from(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"]),
       query=st.dictionaries(st.text(max_size=10), odd_text, max_size=3),
       logged_in=st.booleans(), ajax=st.booleans())
def test_any_method_and_query_on_any_survey_url_is_answered_without_a_5xx(survey, path, method, query, logged_in, ajax):
    client = fresh_taker(survey)[0] if logged_in else Client()
    headers = {"X-Requested-With": "XMLHttpRequest"} if ajax else {}
    response = client.generic(method, path + "?" + "&".join(f"{quote(k)}={quote(v)}" for k, v in query.items()),
                              headers=headers)
    assert response.status_code < 500, (method, path, response.content[:300])
    assert_stored_values_are_valid()


@pytest.mark.parametrize(("typed", "stored"), [("7.50", "7.50"), ("8", "8"), ("1E+1", "10"), (" 2.5 ", "2.5")])
def test_a_decimal_answer_is_stored_as_typed_in_plain_digits(decimal_survey, typed, stored):
    query = QueryDict(mutable=True)
    query.update({"save_id": str(uuid.uuid4()), "nav": "next", "q-hours": typed})
    form = PageForm(page_definition(survey=decimal_survey, number=1), query, flow=survey_flow(survey=decimal_survey))
    assert form.is_valid(), form.errors
    assert list(form.stored_values().values()) == [stored]


@pytest.mark.parametrize("typed", ["24.5", "-1", "1e999", "nan", "12,5", "1.2345678"])
def test_a_decimal_answer_out_of_range_or_unreadable_is_refused(decimal_survey, typed):
    query = QueryDict(mutable=True)
    query.update({"save_id": str(uuid.uuid4()), "nav": "next", "q-hours": typed})
    assert not PageForm(page_definition(survey=decimal_survey, number=1), query,
                        flow=survey_flow(survey=decimal_survey)).is_valid()


@pytest.fixture
def decimal_survey(db):
    from surveys.services import survey_create

    return survey_create(document={"slug": "decimals", "title": "Decimals", "status": "open", "pages": [
        {"questions": [{"code": "hours", "kind": "decimal", "prompt": "Hours?", "min": 0, "max": 24}]}]})


@EXAMPLES
@given(value=values_for(Question(kind=Question.Kind.DECIMAL, min_value=0, max_value=24), []))
def test_a_decimal_answer_is_refused_or_stored_as_a_plain_decimal_within_its_range(decimal_survey, value):
    from respondents.answer_values import answer_value_problem

    query = QueryDict(mutable=True)
    query.update({"save_id": str(uuid.uuid4()), "nav": "next"})
    query.setlist("q-hours", value if isinstance(value, list) else [value])
    form = PageForm(page_definition(survey=decimal_survey, number=1), query, flow=survey_flow(survey=decimal_survey))
    if form.is_valid():
        (question, stored), = form.stored_values().items()
        assert answer_value_problem(question, stored, []) is None, (value, stored)
