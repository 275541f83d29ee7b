"""No table name is typed in the code: a statement written as SQL names its tables from the models
(``infra.sql.table``, quoted), so that a model's table can be renamed or moved (as the capabilities' were, with
``db_table`` keeping the old names) without a statement left naming the old one. Checked on every string of the
project's Python, tests included; migrations (the tables as they were), docstrings and the ``db_table`` that gives a
model its table are left out."""
import ast
import re
from pathlib import Path

from django.apps import apps

ROOT = Path(__file__).resolve().parents[2]


def source_files():
    for package in sorted(path.parent for path in ROOT.glob("*/__init__.py")):
        yield from (path for path in sorted(package.rglob("*.py")) if "migrations" not in path.parts)
    yield ROOT / "conftest.py"


def docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                yield first.value


def table_declarations(tree):
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and any(isinstance(target, ast.Name) and target.id == "db_table" for target in node.targets)):
            yield node.value


def typed_names(path, pattern):
    tree = ast.parse(path.read_text(), str(path))
    skipped = {id(node) for node in [*docstrings(tree), *table_declarations(tree)]}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            for name in pattern.findall(node.value):
                yield f"{path.relative_to(ROOT)}:{node.lineno}: {name}"


def test_no_statement_types_a_table_name():
    tables = sorted({model._meta.db_table for model in apps.get_models(include_auto_created=True)}, key=len,
                    reverse=True)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, tables)) + r")\b")
    typed = [found for path in source_files() for found in typed_names(path, pattern)]
    assert not typed, "name them from the model (infra.sql.table): " + "; ".join(typed)
