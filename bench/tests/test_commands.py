"""The bench's commands: the bench survey, fresh respondents' codes for a load plan, and ``bench`` running a tool."""
import io

import pytest
from django.core.management import CommandError, call_command

from bench import document_bench, fuzz, stack, upload_bombs
from bench.management.commands import bench
from respondents.models import Respondent
from surveys.models import Question, Survey

pytestmark = pytest.mark.django_db


def test_seed_bench_survey_makes_pages_of_five_answerable_questions_of_every_kind():
    out = io.StringIO()
    call_command("seed_bench_survey", "--pages", "7", "--slug", "bench-test", stdout=out)
    assert out.getvalue().strip() == "bench-test"
    survey = Survey.objects.get(slug="bench-test")
    assert survey.is_open() and survey.pages.count() == 7
    for page in survey.pages.all():
        assert page.questions.exclude(kind=Question.Kind.GRID).count() == 5
    assert set(survey.questions.values_list("kind", flat=True)) == set(Question.Kind.values) - {Question.Kind.NOTE, Question.Kind.CALCULATE}
    with pytest.raises(CommandError, match="at least 1"):
        call_command("seed_bench_survey", "--pages", "0")
    with pytest.raises(CommandError, match="already exists"):
        call_command("seed_bench_survey", "--pages", "2", "--slug", "bench-test")


def test_loadtest_respondents_writes_fresh_codes_that_log_in(client, tmp_path):
    call_command("seed_bench_survey", "--pages", "2", "--slug", "load", stdout=io.StringIO())
    target = tmp_path / "codes.csv"
    call_command("loadtest_respondents", "--survey", "load", "--count", "3", "--output", str(target), stdout=io.StringIO())
    header, *codes = target.read_text().split()
    assert header == "code" and len(set(codes)) == 3
    assert Respondent.objects.filter(survey__slug="load", access_code__in=codes, status="not_started").count() == 3
    assert client.post("/", {"access_code": codes[0]})["Location"] == "/take/"
    with pytest.raises(CommandError, match="No survey with the slug 'nope'"):
        call_command("loadtest_respondents", "--survey", "nope", "--count", "1", "--output", str(target))


# ---------------------------------------------------------------- manage.py bench TOOL


def test_bench_without_a_tool_lists_every_tool_with_the_first_paragraph_of_its_docstring():
    out = io.StringIO()
    call_command("bench", stdout=out)
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == bench.TOOLS
    fuzz_line = next(line for line in lines if line.startswith("fuzz "))
    assert fuzz_line.split(None, 1)[1] == " ".join(fuzz.__doc__.split("\n\n")[0].split())
    assert all("`make" in line or "manage.py bench" in line for line in lines)  # each names how it is run


def test_bench_refuses_a_tool_it_does_not_have():
    with pytest.raises(CommandError, match="invalid choice: 'stack'"):
        call_command("bench", "stack")


class Execed(Exception):
    """The command replaced itself (os.execv, recorded instead)."""


@pytest.fixture
def no_stack(monkeypatch):
    """Record the stack's start and the command's exec instead of doing them."""
    done = []

    def execv(path, argv):
        done.append(("execv", argv))
        raise Execed  # execv does not return: neither does this

    monkeypatch.setattr(stack, "stack_env", lambda: done.append(("stack_env",)))
    monkeypatch.setattr(bench.os, "execv", execv)
    return done


def test_bench_runs_a_tool_that_needs_no_stack_in_this_process_with_its_arguments(monkeypatch, no_stack):
    calls = []
    monkeypatch.setattr(upload_bombs, "main", lambda argv: calls.append(argv))
    call_command("bench", "upload_bombs", "--only", "control", "--json", "out.json")
    assert calls == [["--only", "control", "--json", "out.json"]]
    assert no_stack == []


def test_a_tool_that_returns_a_status_fails_the_command_with_it(monkeypatch, no_stack):
    monkeypatch.setattr(document_bench, "main", lambda argv: 3)
    with pytest.raises(CommandError, match="document_bench failed") as failed:
        call_command("bench", "document_bench")
    assert failed.value.returncode == 3


def test_a_stack_error_is_reported_as_the_command_s_error(monkeypatch, no_stack):
    def main(argv):
        raise stack.StackError("survey_taking produced no report")

    monkeypatch.setattr(document_bench, "main", main)
    with pytest.raises(CommandError, match="document_bench: survey_taking produced no report"):
        call_command("bench", "document_bench")


def test_a_stack_tool_started_outside_the_stack_brings_it_up_and_runs_again_through_deploy_stack(
        monkeypatch, no_stack):
    monkeypatch.setattr(fuzz, "main", lambda argv: pytest.fail("ran outside the stack"))
    with pytest.raises(Execed):
        call_command("bench", "fuzz", "--requests", "10")
    assert no_stack == [("stack_env",),
                        ("execv", [str(stack.ROOT / "deploy" / "stack"), "manage", "bench", "fuzz", "--requests", "10"])]


def test_a_stack_tool_s_help_is_given_without_bringing_the_stack_up(no_stack, capsys):
    with pytest.raises(SystemExit) as stopped:
        call_command("bench", "drill", "--help")
    assert stopped.value.code == 0 and no_stack == []
    assert "--modes MODES" in capsys.readouterr().out


def test_a_stack_tool_in_the_stack_s_environment_runs_in_this_process(monkeypatch, settings, no_stack):
    settings.SETTINGS_MODULE = "config.settings.production"
    monkeypatch.setenv("BENCH_TOOLS", "1")
    calls = []
    monkeypatch.setattr(fuzz, "main", lambda argv: calls.append(argv))
    call_command("bench", "fuzz", "--requests", "10")
    assert calls == [["--requests", "10"]] and no_stack == []
