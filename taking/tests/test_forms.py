"""The names a survey page's form posts: built by PageForm alone, and handed to survey.js by the page."""
import ast
from pathlib import Path

from taking.forms import PageForm, script_contract

ROOT = Path(__file__).resolve().parents[2]
# The load tools (jmeter/, and bench/ where it is an app) post the contract from outside, as a browser does, so
# they spell it; the server's code does not.
LOAD_TOOLS = {"bench", "jmeter"}
APPS = sorted(path for path in {path.parent for path in ROOT.glob("*/apps.py")} | {ROOT / "config"}
              if path.name not in LOAD_TOOLS)


def test_an_answer_field_is_named_q_dash_and_its_question_code():
    assert PageForm.answer_name("colour") == "q-colour"
    assert PageForm.answer_code("q-colour") == "colour"
    assert PageForm.answer_code("q-") == ""
    assert PageForm.answer_code("save_id") is None and PageForm.answer_code("nav") is None


def test_the_script_is_handed_the_answer_prefix_and_the_nav_values_by_name():
    assert script_contract() == {"answer_prefix": "q-", "nav": {
        "BACK": "back", "NEXT": "next", "FINISH": "finish", "LOGOUT": "logout"}}


def sources(suffixes):
    for app in APPS:
        for path in sorted(app.rglob("*")):
            parts = path.relative_to(ROOT).parts
            if path.suffix in suffixes and "tests" not in parts and "migrations" not in parts:
                yield path


def string_literals(path):
    """Yield (line, text) of every string in a Python module but its docstrings (f-strings' parts included)."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
        and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_the_answer_prefix_is_spelled_in_page_form_only():
    """answer_name builds every answer field's name: no other code, template or script spells the prefix (the
    behaviour that follows from it: test_browser's test_the_script_names_the_answer_fields_as_the_page_says)."""
    in_python = [f"{path.relative_to(ROOT)}:{line}" for path in sources({".py"})
                 for line, text in string_literals(path) if "q-" in text]
    assert in_python == [f"taking/forms.py:{_prefix_line()}"]
    elsewhere = [str(path.relative_to(ROOT)) for path in sources({".html", ".js", ".txt", ".json"})
                 if "q-" in path.read_text()]
    assert elsewhere == []


def _prefix_line():
    source = (ROOT / "taking" / "forms.py").read_text().splitlines()
    return next(number for number, line in enumerate(source, start=1) if line.strip() == 'answer_prefix = "q-"')
