"""No two modules of an app import each other, directly or round a loop: what two modules both need lives in a
module below both (``exports/options.py`` and ``exports/cells.py`` under the writers, the codebook and the syntax
files). An import inside a function counts (it runs, only later: it hides a cycle, it does not break one); one under
``if TYPE_CHECKING:`` does not (it never runs: ``surveys/caching.py`` names the models it manages that way). Checked
on the source, tests and migrations left out, as the layout test (``test_layout.py``) checks the imports between
apps."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APPS = sorted(path.parent.name for path in ROOT.glob("*/__init__.py"))


def module_name(path, root):
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def run_imports(tree):
    """Yield the import statements of ``tree`` that run, those under ``if TYPE_CHECKING:`` left out."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (imported for child in node.orelse for imported in run_imports(child))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from run_imports(node)


def imports_within(app, root=ROOT):
    """Return ``{module: the modules of app it imports}`` for the app's source modules."""
    paths = {module_name(path, root): path for path in sorted((root / app).rglob("*.py"))
             if not {"tests", "migrations"} & set(path.relative_to(root / app).parts)}
    graph = {}
    for name, path in paths.items():
        found = set()
        for node in run_imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    package = name.split(".")[:None if path.name == "__init__.py" else -1]
                    base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            for target in targets:
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target not in (name, app):  # the package itself runs first, imported by every module
                    found.add(target)
        graph[name] = found
    return graph


def cycles(graph):
    """Return the strongly connected groups of more than one module of ``graph`` (Tarjan's algorithm)."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while not group or group[-1] != module:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return groups


@pytest.mark.parametrize("app", APPS)
def test_no_two_modules_of_an_app_import_each_other(app):
    found = cycles(imports_within(app))
    assert not found, f"modules that import each other: {found}"


def test_a_cycle_hidden_in_a_function_is_found_and_a_type_checking_import_is_not(tmp_path):
    package = tmp_path / "shapes"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from shapes.b import B\n")
    (package / "b.py").write_text("def late():\n    from shapes import a\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from shapes.a import B\n")
    assert cycles(imports_within("shapes", root=tmp_path)) == [["shapes.a", "shapes.b"]]
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from shapes import a\n")
    assert cycles(imports_within("shapes", root=tmp_path)) == []
