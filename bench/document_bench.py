"""Memory of loading hostile survey documents (`manage.py bench document_bench [--root TREE]`).

Writes JSON files shaped to cost the most memory per byte (a megabyte of
empty pages, of empty questions, of empty lists, of short strings; the
most objects and the most text that the document's value count still lets
the parser build; a sixty-page survey as a yardstick) and loads each in a child process through the staff area's path
(``surveys.services.document_check``, a dry run: nothing is written, so the
embedded default's settings serve). Prints each file's size, the child's
resident memory once Django is set up, its peak during the load (Linux:
the peak is reset through /proc/self/clear_refs first, so that Django's own
start does not hide it), the growth as a multiple of the file's size, and
the outcome (accepted, or the first problem).

``--root`` runs the children in another checkout (a ``git worktree`` of another
commit with this app) to compare: each child is that tree's ``manage.py bench document_bench --child``.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.stack import ROOT
from bench.survey_document import bench_document
from surveys.documents import DocumentError
from surveys.services import document_check

MB = 1_000_000


def memory(field: str) -> int:
    """Return this process's ``VmRSS`` or ``VmHWM`` (its peak) in KB."""
    found = re.search(rf"^{field}:\s+(\d+)", Path("/proc/self/status").read_text(), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"/proc/self/status has no {field}")
    return int(found[1])


def child(path: str) -> None:
    """Load ``path`` in this process; print its RSS (KB) before, its peak during the load, and the outcome, as JSON."""
    Path("/proc/self/clear_refs").write_text("5")  # the peak so far (Django's start) is forgotten
    before = memory("VmRSS")
    try:
        with open(path, "rb") as source:
            document_check(source=source, filename=Path(path).name)
        outcome = "accepted"
    except DocumentError as error:
        outcome = f"refused, {len(error.problems):,} problems: {error.problems[0][:90]}"
    except Exception as error:  # noqa: BLE001 - the point is to see what the old code raised
        outcome = f"{type(error).__name__} (a 500)"
    after = memory("VmHWM")
    print(json.dumps({"before": before, "after": after, "outcome": outcome}))


def documents(folder: str) -> list[Path]:
    """Write the files to load; return their paths."""
    head = b'{"slug": "s", "title": "T", '
    shapes = {
        "empty-pages.json": head + b'"pages": [' + b",".join([b"{}"] * (MB // 3)) + b"]}",
        "empty-questions.json": head + b'"pages": [{"questions": [' + b",".join([b"{}"] * (MB // 3)) + b"]}]}",
        "empty-lists.json": head + b'"choice_lists": {"a": [' + b",".join([b"[]"] * (MB // 3)) + b']}, "pages": []}',
        "short-strings.json": head + b'"choice_lists": {"a": [' + b",".join([b'"ab"'] * (MB // 5)) + b']}, "pages": []}',
        # The most the value count lets through: objects of one key, and texts filling the bytes allowed.
        "objects-at-cap.json": head + b'"choice_lists": {"a": [' + b",".join([b'{"v":1}'] * 49_990) + b']}, "pages": []}',
        "texts-at-cap.json": head + b'"choice_lists": {"a": [' + b",".join([b'"' + b"t" * 38 + b'"'] * 99_990)
        + b']}, "pages": []}',
        "sixty-pages.json": json.dumps(bench_document(slug="sixty", pages=60, conditions=True)).encode(),
    }
    paths = []
    for name, content in shapes.items():
        path = Path(folder) / name
        path.write_bytes(content)
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=str(ROOT), help="the checkout whose code loads the files (default: this)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return
    print(f"{'file':<22}{'MB':>6}{'RSS before':>12}{'peak':>8}{'growth':>8}{'x size':>8}  outcome")
    with tempfile.TemporaryDirectory() as folder:
        for path in documents(folder):
            run = subprocess.run([sys.executable, "manage.py", "bench", "document_bench", "--child", str(path)],
                                 cwd=args.root, capture_output=True, text=True, check=True,
                                 env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local"})
            figures = json.loads(run.stdout.strip().splitlines()[-1])
            print(row(path.name, path.stat().st_size, figures))


def row(name: str, size: int, figures: dict[str, Any]) -> str:
    """Return a file's line of the table from its child's figures (KB): the file's size, the child's memory before
    the load and its peak during it, the growth, the growth as a multiple of the file's size, the outcome."""
    growth = (figures["after"] - figures["before"]) * 1024
    return (f"{name:<22}{size / MB:>6.2f}{figures['before'] / 1024:>10.0f}MB{figures['after'] / 1024:>6.0f}MB"
            f"{growth / MB:>6.0f}MB{growth / size:>8.1f}  {figures['outcome']}")

