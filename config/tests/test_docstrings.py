"""Docs and comments stay short and true: a module's docstring says what the module is for and what to read next, in
a few lines (the reasoning lives once, in ``docs/``), and every file or module a requirements file's comment names
exists. Checked on the project's Python, tests left out."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCSTRING_MAX_LINES = 25
# Modules whose docstrings may be longer, with the reason: none (the essays of issue 34 are cut). Never add to it
# without one.
DOCSTRING_ALLOWANCE: dict[str, int] = {}
# Not the project's Python (the environment, the browser tools), or not a module of the app (tests, whose docstrings
# say what they check).
SKIPPED_FOLDERS = {".venv", "node_modules", ".git", "tests", "__pycache__"}
PACKAGES = {path.parent.name for path in ROOT.glob("*/__init__.py")}


def modules():
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if SKIPPED_FOLDERS.isdisjoint(relative.parts[:-1]) and not path.name.startswith(("test_", "conftest")):
            yield relative


def docstring_lines(relative):
    docstring = ast.get_docstring(ast.parse((ROOT / relative).read_text(), str(relative)))
    return len(docstring.splitlines()) if docstring else 0


def test_no_module_docstring_runs_past_a_screen():
    lengths = {str(relative): docstring_lines(relative) for relative in modules()}
    too_long = [f"{path} ({lines} lines)" for path, lines in sorted(lengths.items())
                if lines > DOCSTRING_ALLOWANCE.get(path, DOCSTRING_MAX_LINES)]
    assert not too_long, (f"a module docstring is at most {DOCSTRING_MAX_LINES} lines: what the module is for and "
                          f"what to read next (a section of docs/architecture.md); the reasoning goes to docs/, once: "
                          + "; ".join(too_long))
    done = [path for path, lines in DOCSTRING_ALLOWANCE.items() if lengths.get(path, 0) <= DOCSTRING_MAX_LINES]
    assert not done, "within the rule now (or gone): take out of DOCSTRING_ALLOWANCE: " + ", ".join(done)


# What a comment may name: a path (``deploy/lab``, ``staff/``, ``docs/performance.md``), a file at the root
# (``pyproject.toml``), or a module by its dotted name (``infra.db_router``).
PATH = re.compile(r"(?<![\w./-])[\w.-]+(?:/[\w.-]*)+")
ROOT_FILE = re.compile(r"(?<![\w./-])[\w-]+(?:\.[\w-]+)*\.(?:py|txt|md|toml|cfg|ini|json|ya?ml|sh)\b(?!/)")
MODULE = re.compile(r"(?<![\w./-])(?:" + "|".join(sorted(PACKAGES)) + r")(?:\.\w+)+")


def named_in(comment):
    yield from (path.rstrip(".") for path in PATH.findall(comment))
    yield from ROOT_FILE.findall(comment)
    for module in MODULE.findall(comment):
        yield module.replace(".", "/") + ".py"


# Named outside the repository, so not there in a worktree or in CI: the field notes kept beside the checkout.
OUTSIDE_REPOSITORY = {"../shared/docs/field-notes.md"}


def test_requirements_comments_name_files_that_exist():
    missing, outside = [], []
    for requirements in sorted(ROOT.glob("requirements*.txt")):
        for number, line in enumerate(requirements.read_text().splitlines(), start=1):
            comment = line.partition("#")[2]
            for name in named_in(comment):
                if name.startswith("../"):
                    outside.append(name)
                    continue
                path = ROOT / name
                if not (path.exists() or path.with_suffix("").is_dir()):
                    missing.append(f"{requirements.name}:{number}: {name}")
    assert not missing, "a requirements comment names a file that does not exist: " + "; ".join(missing)
    assert set(outside) <= OUTSIDE_REPOSITORY, f"outside the repository, so never checked: {outside}"


def test_the_path_reading_finds_every_kind_of_name():
    comment = ("Login limits (staff/sign_in_limits.py, taking/): pyproject.toml's [tool.mypy], infra.db_router, "
               "../shared/docs/field-notes.md; UTS 46, Devanagari..., CONTENT_SECURITY_POLICY")
    assert sorted(named_in(comment)) == sorted([
        "staff/sign_in_limits.py", "taking/", "pyproject.toml", "infra/db_router.py", "../shared/docs/field-notes.md"])
