"""Cached survey definitions are never stale after a change made through the models."""
from html.parser import HTMLParser

import pytest
from django.core.cache import cache

from respondents.tests.factories import login, make_respondents
from surveys.caching import DefinitionMemo, definition_ref
from surveys.invalidation import definitions_changed
from surveys.models import Choice, Page, Question, Survey
from surveys.selectors import page_definition
from surveys.tasks import definitions_invalidate_when_replicated
from surveys.tests.factories import make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def taker(client):
    survey = make_survey()
    login(client, make_respondents(survey))
    return client, survey


def test_the_second_read_of_a_page_comes_from_the_cache(taker, django_assert_num_queries):
    _, survey = taker
    page_definition(survey=survey, number=1)
    with django_assert_num_queries(0):
        definition = page_definition(survey=survey, number=1)
    assert [q.code for q in definition.items] == ["colour", "pets", "age", "nickname"]


def test_editing_a_choice_label_shows_at_once(taker):
    client, survey = taker
    assert "Blue" in client.get("/take/").content.decode()
    choice = Choice.objects.get(question__survey=survey, value="blue")
    choice.label = "Sky blue"
    choice.save()
    html = client.get("/take/").content.decode()
    assert "Sky blue" in html


def test_adding_a_question_and_a_page_shows_at_once(taker):
    client, survey = taker
    client.get("/take/page/3/")
    page = Page.objects.create(survey=survey, position=4, title="Added later")
    Question.objects.create(survey=survey, page=page, position=1, code="late", kind="short_text", prompt="Late question?")
    Question.objects.create(survey=survey, page=Page.objects.get(survey=survey, position=3), position=3,
                            code="late_too", kind="integer", prompt="Another late one?")
    assert "Late question?" in client.get("/take/page/4/").content.decode()
    assert "Another late one?" in client.get("/take/page/3/").content.decode()


def test_deleting_a_question_removes_it_at_once(taker):
    client, survey = taker
    assert "Nickname?" in client.get("/take/page/1/").content.decode()
    Question.objects.get(survey=survey, code="nickname").delete()
    assert "Nickname?" not in client.get("/take/page/1/").content.decode()


def test_iterating_in_chunks_works_on_the_cached_manager(taker):
    # cache-machine's own iterator() takes no chunk_size (Django's admin and prefetching pass one).
    _, survey = taker
    codes = [q.code for q in Question.cached.filter(survey=survey).order_by("page_id", "grid_id", "position").iterator(chunk_size=2)]
    assert codes[:4] == ["colour", "pets", "age", "nickname"]


def test_counts_are_never_cached(taker):
    _, survey = taker
    assert Page.cached.filter(survey=survey).count() == 3
    Page.objects.create(survey=survey, position=4)
    assert Page.cached.filter(survey=survey).count() == 4


def test_an_update_that_bypasses_signals_is_seen_once_definitions_changed_is_called(taker, django_capture_on_commit_callbacks):
    client, survey = taker
    assert "Favourite colour?" in client.get("/take/page/1/").content.decode()
    Question.objects.filter(survey=survey, code="colour").update(prompt="Favourite color?")
    assert "Favourite colour?" in client.get("/take/page/1/").content.decode()  # the documented gap
    with django_capture_on_commit_callbacks(execute=True):
        definitions_changed(Question.objects.filter(survey=survey, code="colour"))
    assert "Favourite color?" in client.get("/take/page/1/").content.decode()


@pytest.mark.parametrize("change", ["save", "delete"])
def test_saving_or_deleting_any_definition_row_outdates_every_process_memo(taker, change, django_capture_on_commit_callbacks):
    _, survey = taker
    page_definition(survey=survey, number=1)
    for obj in (survey, Page.objects.get(survey=survey, position=3), Question.objects.get(code="pets"),
                Choice.objects.get(value="cat")):
        before = cache.get(DefinitionMemo.VERSION_KEY)
        with django_capture_on_commit_callbacks(execute=True):
            obj.save() if change == "save" or isinstance(obj, Survey) else obj.delete()
        assert cache.get(DefinitionMemo.VERSION_KEY) != before, obj


def form_data(html):
    """Return the POST data a browser would send for the first <form method="post"> in ``html``."""
    class Form(HTMLParser):
        def __init__(self):
            super().__init__()
            self.data, self.select, self.textarea = [], None, None

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "input" and a.get("name") and a.get("type") not in ("submit", "button", "file"):
                if a.get("type") not in ("checkbox", "radio"):
                    self.data.append((a["name"], a.get("value", "")))
                elif "checked" in a:
                    self.data.append((a["name"], a.get("value", "on")))
            elif tag == "select":
                self.select = a.get("name")
            elif tag == "option" and self.select and "selected" in a:
                self.data.append((self.select, a.get("value", "")))
            elif tag == "textarea":
                self.textarea = [a["name"], ""]

        def handle_endtag(self, tag):
            if tag == "select":
                self.select = None
            elif tag == "textarea" and self.textarea:
                self.data.append(tuple(self.textarea))
                self.textarea = None

        def handle_data(self, data):
            if self.textarea:
                self.textarea[1] += data

    parser = Form()
    parser.feed(html)
    data = {}
    for name, value in parser.data:
        data.setdefault(name, []).append(value)
    return data


def test_a_choice_label_changed_through_the_admin_shows_at_once(taker, admin_client):
    client, survey = taker
    question = Question.objects.get(survey=survey, code="colour")
    assert "Blue" in client.get("/take/page/1/").content.decode()

    url = f"/admin/surveys/question/{question.pk}/change/"
    data = form_data(admin_client.get(url).content.decode())
    row = next(name for name, values in data.items() if name.endswith("-label") and values == ["Blue"])
    data[row] = ["Navy blue"]
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]

    assert Choice.objects.get(question=question, value="blue").label == "Navy blue"
    assert "Navy blue" in client.get("/take/page/1/").content.decode()


def test_the_celery_task_invalidates_from_plain_references_even_after_the_row_is_deleted(taker):
    client, survey = taker
    assert "Nickname?" in client.get("/take/page/1/").content.decode()
    question = Question.objects.get(survey=survey, code="nickname")
    refs = [definition_ref(question)]
    # Delete behind cache-machine's back (no signals), as a row gone before the task runs.
    Question.objects.filter(pk=question.pk)._raw_delete(Question.objects.db)
    assert "Nickname?" in client.get("/take/page/1/").content.decode()  # still cached

    before = cache.get(DefinitionMemo.VERSION_KEY)
    assert definitions_invalidate_when_replicated.apply(args=["0/0", refs]).get() is True
    assert cache.get(DefinitionMemo.VERSION_KEY) != before
    assert "Nickname?" not in client.get("/take/page/1/").content.decode()
