"""The document bench (bench/document_bench.py): the hostile files it writes, and its table's line."""
import json

import pytest

from bench import document_bench
from surveys.documents import MAX_DOCUMENT_VALUES, DocumentError, parse_survey_document, survey_document_loads
from surveys.models import Survey


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    return {path.name: path.read_bytes() for path in document_bench.documents(tmp_path_factory.mktemp("documents"))}


@pytest.mark.parametrize("name", ["empty-pages.json", "empty-questions.json", "empty-lists.json",
                                  "short-strings.json"])
def test_a_megabyte_of_small_values_is_refused_before_it_is_parsed(documents, name):
    assert 0.9 < len(documents[name]) / document_bench.MB < 1.1
    with pytest.raises(DocumentError, match="too many values"):
        survey_document_loads(documents[name], filename=name)


@pytest.mark.parametrize("name", ["objects-at-cap.json", "texts-at-cap.json"])
def test_the_files_at_the_cap_hold_as_many_values_as_the_count_lets_through(documents, name):
    raw = documents[name]
    values = raw.count(b"{") + raw.count(b"[") + raw.count(b",")
    assert MAX_DOCUMENT_VALUES - 100 < values <= MAX_DOCUMENT_VALUES
    assert isinstance(survey_document_loads(raw, filename=name), dict)  # parsed: the parser builds it all


def test_the_yardstick_is_a_valid_sixty_page_survey(documents):
    data = survey_document_loads(documents["sixty-pages.json"], filename="sixty-pages.json")
    assert len(parse_survey_document(data)["pages"]) == 60
    assert json.loads(documents["sixty-pages.json"])["slug"] == "sixty"


def test_a_file_s_line_gives_the_memory_growth_and_its_multiple_of_the_file_s_size():
    figures = {"before": 100 * 1024, "after": 130 * 1024, "outcome": "refused, 1 problems: too many values"}
    line = document_bench.row("empty-pages.json", 1_000_000, figures)  # grew 30 MiB for a 1 MB file
    assert line.split() == ["empty-pages.json", "1.00", "100MB", "130MB", "31MB", "31.5", "refused,", "1",
                            "problems:", "too", "many", "values"]


@pytest.mark.django_db
def test_a_child_loads_a_file_as_the_staff_area_does_and_writes_nothing(documents, tmp_path, capsys):
    for name, outcome in [("sixty-pages.json", "accepted"), ("empty-pages.json", "refused")]:
        path = tmp_path / name
        path.write_bytes(documents[name])
        document_bench.child(str(path))
        figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert figures["outcome"].startswith(outcome) and figures["after"] >= figures["before"] > 0, figures
    assert not Survey.objects.exists()
