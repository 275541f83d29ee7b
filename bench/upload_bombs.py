"""Upload bombs (`make fuzz-uploads`): small files that cost far more than their size to read, against the bound.

    manage.py bench upload_bombs [--only NAME,...] [--code DIR] [--json OUT]

Generates each file (and legitimate large ones, as controls), then reads each
in a fresh child process through the code the staff area uses: a roster or
the school directory through ``fileformats.tables.open_table`` (every row
read), a survey through ``surveys.services.document_read``. The child
records its peak memory above its own baseline (VmHWM, reset before the read,
less VmRSS then), wall and CPU seconds, and the outcome: refused, with the
message a person sees, or the rows read; "error" is anything else, a 500 in
the staff area.

Prints one table. Exits 1 when a file breaks the bound (docs/operations.md):
more than MEMORY_BOUND_MB above the baseline, more time than
TIME_BOUND_SECONDS plus TIME_BOUND_SECONDS_PER_MB for each MB the file
unpacks to (generous: the reader is some ten times faster), or an error.

``--code DIR`` reads with another checkout's code (a worktree of an older
commit, for before-and-after figures); a child there is stopped after
``--timeout`` seconds (default: three times its time bound, at least 30).
"""
import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from bench.stack import ROOT
from fileformats.tables import TableError, open_table
from rosters.directory import COLUMNS
from rosters.importing import OPTIONAL, REQUIRED
from surveys.documents import DocumentError
from surveys.services import document_read

MEMORY_BOUND_MB = 256
TIME_BOUND_SECONDS = 5
TIME_BOUND_SECONDS_PER_MB = 1.0
# A child may not take the machine down (the old code, on some of these files, would).
CHILD_ADDRESS_SPACE = 4 << 30
ROSTER, DIRECTORY, SURVEY = "roster", "directory", "survey"

# ---------------------------------------------------------------- files

NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
CONTENT_TYPES = (
    HEAD + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/xl/workbook.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
    '{sheets}'
    '<Override PartName="/xl/sharedStrings.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
SHEET_TYPE = ('<Override PartName="/xl/worksheets/sheet{n}.xml" '
              'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>')
PACKAGE_RELS = (
    HEAD + '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'officeDocument" Target="xl/workbook.xml"/></Relationships>')
WORKBOOK = (HEAD + f'<workbook {NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            '<sheets>{sheets}</sheets></workbook>')
WORKBOOK_RELS = (
    HEAD + '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{sheets}'
    '<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
    'sharedStrings" Target="sharedStrings.xml"/></Relationships>')
SHEET_REL = ('<Relationship Id="rId{n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
             'worksheet" Target="worksheets/sheet{n}.xml"/>')
ROSTER_HEADER = ["external_id", "school_code", "grade", "role", "language", "display_name"]
MB = 1 << 20
# What a part of an XLSX is written from: pieces of text, or bytes.
Chunks = Iterable[str | bytes]


def column_letters(index: int) -> str:
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def xml_row(number: int, values: Sequence[object], strings: dict[str, int] | None = None) -> str:
    """A sheet row: texts shared (``strings``: text -> index, added to) or inline, numbers as numbers."""
    cells = []
    for n, value in enumerate(values, start=1):
        where = f"{column_letters(n)}{number}"
        if isinstance(value, str) and strings is not None:
            index = strings.setdefault(value, len(strings))
            cells.append(f'<c r="{where}" t="s"><v>{index}</v></c>')
        elif isinstance(value, str):
            cells.append(f'<c r="{where}" t="inlineStr"><is><t>{value}</t></is></c>')
        else:
            cells.append(f'<c r="{where}"><v>{value}</v></c>')
    return f'<row r="{number}">{"".join(cells)}</row>'


def repeated(piece: str | bytes, total_bytes: int) -> Iterator[bytes]:
    """``piece`` over and over, about ``total_bytes`` in all, in blocks of about a megabyte."""
    piece = piece.encode() if isinstance(piece, str) else piece
    block = piece * max(1, MB // len(piece))
    for _ in range(max(1, total_bytes // len(block))):
        yield block


def write_xlsx(path: Path, sheets: Sequence[tuple[str, Chunks]], *, strings: Chunks = (), styles: Chunks | None = None,
               content_types: str | None = None, extra: Iterable[tuple[str, bytes]] = ()) -> None:
    """An XLSX as Excel lays it out: ``sheets`` is [(name, iterable of XML chunks of its sheetData and around)];
    ``strings`` chunks of the shared texts (inside <sst>)."""
    names = "".join(f'<sheet name="{name}" sheetId="{n}" r:id="rId{n}"/>' for n, (name, _) in enumerate(sheets, 1))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", content_types if content_types is not None else CONTENT_TYPES.format(
            sheets="".join(SHEET_TYPE.format(n=n) for n in range(1, len(sheets) + 1))))
        archive.writestr("_rels/.rels", PACKAGE_RELS)
        archive.writestr("xl/workbook.xml", WORKBOOK.format(sheets=names))
        archive.writestr("xl/_rels/workbook.xml.rels", WORKBOOK_RELS.format(
            sheets="".join(SHEET_REL.format(n=n) for n in range(1, len(sheets) + 1))))
        for n, (_, chunks) in enumerate(sheets, 1):
            with archive.open(f"xl/worksheets/sheet{n}.xml", "w", force_zip64=True) as part:
                for chunk in chunks:
                    part.write(chunk.encode() if isinstance(chunk, str) else chunk)
        with archive.open("xl/sharedStrings.xml", "w", force_zip64=True) as part:
            part.write(f"{HEAD}<sst {NS}>".encode())
            for chunk in strings:
                part.write(chunk.encode() if isinstance(chunk, str) else chunk)
            part.write(b"</sst>")
        if styles is not None:
            with archive.open("xl/styles.xml", "w", force_zip64=True) as part:
                for chunk in styles:
                    part.write(chunk.encode() if isinstance(chunk, str) else chunk)
        for name, data in extra:
            archive.writestr(name, data)


def sheet_xml(rows_xml: Chunks, dimension: str | None = None) -> Iterator[str | bytes]:
    yield f"{HEAD}<worksheet {NS}>"
    if dimension:
        yield f'<dimension ref="{dimension}"/>'
    yield "<sheetData>"
    yield from rows_xml
    yield "</sheetData></worksheet>"


def roster_rows(count: int) -> Iterator[list[str | int]]:
    roles = ["student"] * 17 + ["teacher", "parent", "staff"]
    for n in range(count):
        yield [f"P{n:08d}", f"B{n % 2000:05d}", 3 + n % 10, roles[n * 7 % len(roles)], "es" if n % 5 == 0 else "en",
               f"Person {n}"]


def roster_xlsx(path: Path, rows: int) -> None:
    """A legitimate roster as Excel saves one: shared texts, every row numbered."""
    strings: dict[str, int] = {}
    body = [xml_row(1, ROSTER_HEADER, strings)]
    body += [xml_row(n, values, strings) for n, values in enumerate(roster_rows(rows), start=2)]
    text = [f"<si><t>{value}</t></si>" for value in strings]
    write_xlsx(path, [("Roster", sheet_xml(body))], strings=text)


def roster_csv(path: Path, rows: int) -> None:
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(",".join(ROSTER_HEADER) + "\r\n")
        for values in roster_rows(rows):
            out.write(",".join(map(str, values)) + "\r\n")


def shared_texts_bomb(path: Path, upload_bytes: int, *, sheet_name: str = "Roster", header: list[str] = ROSTER_HEADER,
                      ) -> None:
    # <si><t>a</t></si> deflates some 400 to 1: the upload's size sets how many.
    write_xlsx(path, [(sheet_name, sheet_xml([xml_row(1, header), xml_row(2, ["s1", "LIN"])]))],
               strings=repeated("<si><t>a</t></si>", upload_bytes * 412))


def dimension_bomb(path: Path, last_row: int, *, sheet_name: str = "Roster", header: list[str] = ROSTER_HEADER) -> None:
    """The finding's 5 KB workbook: a sheet that says it is XFD columns wide, one row far down."""
    write_xlsx(path, [(sheet_name, sheet_xml([xml_row(1, header), xml_row(last_row, ["s1", "LIN"])],
                                             dimension=f"A1:XFD{last_row}"))])


def wide_header_bomb(path: Path, rows: int) -> None:
    """A header naming every column to XFD, then rows of one cell each in column XFD: each row used to be padded
    to the header's width."""
    header = xml_row(1, ROSTER_HEADER[:2] + [f"extra_{n}" for n in range(16_384 - 2)])
    far = column_letters(16_384)
    write_xlsx(path, [("Roster", sheet_xml([header, *(f'<row r="{n}"><c r="{far}{n}"><v>1</v></c></row>'
                                                      for n in range(2, rows + 2))]))])


def styles_bomb(path: Path, unpacked: int, *, sheet_name: str = "Roster", header: list[str] = ROSTER_HEADER) -> None:
    write_xlsx(path, [(sheet_name, sheet_xml([xml_row(1, header), xml_row(2, ["s1", "LIN"])]))],
               styles=[f"{HEAD}<styleSheet {NS}><cellXfs>", *repeated("<xf/>", unpacked), "</cellXfs></styleSheet>"])


def nesting_bomb(path: Path, depth: int) -> None:
    write_xlsx(path, [("Roster", sheet_xml([xml_row(1, ROSTER_HEADER), "<row r=\"2\">" + "<x>" * depth]))])


def comment_bomb(path: Path, unpacked: int) -> None:
    write_xlsx(path, [("Roster", sheet_xml([xml_row(1, ROSTER_HEADER), "<!--", *repeated("<a>", unpacked), "-->"]))])


def many_parts_bomb(path: Path, parts: int) -> None:
    write_xlsx(path, [("Roster", sheet_xml([xml_row(1, ROSTER_HEADER), xml_row(2, ["s1", "LIN"])]))],
               extra=[(f"xl/media/{n}", b"") for n in range(parts)])


def broken_content_types(path: Path, *, sheet_name: str = "Schools",
                         header: tuple[str, ...] = ("district_code", "district_name", "school_code", "school_name"),
                         ) -> None:
    write_xlsx(path, [(sheet_name, sheet_xml([xml_row(1, list(header)), xml_row(2, ["D1", "North", "S1", "A"])]))],
               content_types=CONTENT_TYPES[:200])


def csv_columns_bomb(path: Path, columns: int) -> None:
    """The finding's header of 20,000 columns (the check for a repeated name was quadratic)."""
    names = ROSTER_HEADER[:2] + [f"extra_{n}" for n in range(columns)]
    Path(path).write_text(",".join(names) + "\ns1,LIN\n")


def csv_sniffer_bomb(path: Path, size: int) -> None:
    """The finding's 32 KB of ," (csv.Sniffer's quadratic case)."""
    Path(path).write_text(',"' * (size // 2))


def csv_padding_bomb(path: Path, columns: int, rows: int) -> None:
    """A header of many empty columns, then short rows: each row used to be padded to the header's width."""
    with open(path, "w") as out:
        out.write("external_id,school_code" + "," * columns + "\n")
        out.write("s1,LIN\n" * rows)


def csv_long_line_bomb(path: Path, size: int) -> None:
    with open(path, "w") as out:
        out.write("external_id,school_code\n")
        for block in repeated(",", size):
            out.write(block.decode())


def survey_xlsx(path: Path, pages: int) -> None:
    """A legitimate XLSForm: ``pages`` pages of a Likert grid, a choice and a text, in two languages."""
    header = ["type", "name", "label::English (en)", "label::Español (es)", "required", "relevant", "appearance"]
    rows = [header]
    for n in range(1, pages + 1):
        rows += [["begin group", f"page{n}", f"Section {n}", f"Sección {n}", "", "", "field-list"],
                 ["begin group", f"grid{n}", "How much do you agree?", "¿Cuánto está de acuerdo?", "", "",
                  "table-list"],
                 ["select_one agree", f"g{n}_a", f"Statement {n}a", f"Afirmación {n}a", "yes", "", ""],
                 ["select_one agree", f"g{n}_b", f"Statement {n}b", f"Afirmación {n}b", "", "", ""],
                 ["end group", "", "", "", "", "", ""],
                 ["text", f"why{n}", "Why?", "¿Por qué?", "", f"${{g{n}_a}} = '1'", "multiline"],
                 ["end group", "", "", "", "", "", ""]]
    choices = [["list_name", "name", "label::English (en)", "label::Español (es)"],
               ["agree", "1", "Disagree", "En desacuerdo"], ["agree", "2", "Agree", "De acuerdo"]]
    settings = [["form_id", "form_title::English (en)", "form_title::Español (es)", "default_language"],
                ["bomb_control", "Control", "Control", "English (en)"]]
    strings: dict[str, int] = {}
    sheets: list[tuple[str, Chunks]] = [
        (name, list(sheet_xml([xml_row(n, values, strings) for n, values in enumerate(table, 1)])))
        for name, table in (("survey", rows), ("choices", choices), ("settings", settings))]
    write_xlsx(path, sheets, strings=[f"<si><t>{value}</t></si>" for value in strings])


@dataclass(frozen=True)
class Case:
    name: str
    reader: str
    suffix: str
    make: Callable[[Path], None]  # writes the file at the path
    control: bool = False


CASES = [
    Case("roster XLSX 100,000 rows (control)", ROSTER, ".xlsx", lambda p: roster_xlsx(p, 100_000), control=True),
    Case("roster CSV 100,000 rows (control)", ROSTER, ".csv", lambda p: roster_csv(p, 100_000), control=True),
    Case("XLSX shared texts, 87 KB", ROSTER, ".xlsx", lambda p: shared_texts_bomb(p, 87_000)),
    Case("XLSX shared texts, 170 KB", ROSTER, ".xlsx", lambda p: shared_texts_bomb(p, 170_000)),
    Case("XLSX shared texts, 600 KB", ROSTER, ".xlsx", lambda p: shared_texts_bomb(p, 600_000)),
    Case("XLSX A1:XFD8000, one row 8000", ROSTER, ".xlsx", lambda p: dimension_bomb(p, 8000)),
    Case("XLSX A1:XFD1048576, one row 1048576", ROSTER, ".xlsx", lambda p: dimension_bomb(p, 1_048_576)),
    Case("XLSX header to XFD, 200,000 far cells", ROSTER, ".xlsx", lambda p: wide_header_bomb(p, 200_000)),
    Case("XLSX styles, 16 MB of <xf/>", ROSTER, ".xlsx", lambda p: styles_bomb(p, 16 * MB)),
    Case("XLSX sheet nested 5,000,000 deep", ROSTER, ".xlsx", lambda p: nesting_bomb(p, 5_000_000)),
    Case("XLSX sheet, a 100 MB comment", ROSTER, ".xlsx", lambda p: comment_bomb(p, 100 * MB)),
    Case("XLSX of 100,000 parts", ROSTER, ".xlsx", lambda p: many_parts_bomb(p, 100_000)),
    Case("XLSX broken [Content_Types].xml", DIRECTORY, ".xlsx", broken_content_types),
    Case("CSV header of 20,000 columns", ROSTER, ".csv", lambda p: csv_columns_bomb(p, 20_000)),
    Case("CSV 32 KB of ,\"", ROSTER, ".csv", lambda p: csv_sniffer_bomb(p, 32 * 1024)),
    Case("CSV 200,000 empty columns, 20,000 rows", ROSTER, ".csv", lambda p: csv_padding_bomb(p, 200_000, 20_000)),
    Case("CSV one line of 30 MB", ROSTER, ".csv", lambda p: csv_long_line_bomb(p, 30 * MB)),
    Case("XLSForm 60 pages (control)", SURVEY, ".xlsx", lambda p: survey_xlsx(p, 60), control=True),
    Case("XLSForm shared texts, 170 KB", SURVEY, ".xlsx",
         lambda p: shared_texts_bomb(p, 170_000, sheet_name="survey", header=["type", "name", "label"])),
    Case("XLSForm A1:XFD1048576", SURVEY, ".xlsx",
         lambda p: dimension_bomb(p, 1_048_576, sheet_name="survey", header=["type", "name", "label"])),
    Case("XLSForm styles, 8 MB of <xf/>", SURVEY, ".xlsx",
         lambda p: styles_bomb(p, 8 * MB, sheet_name="survey", header=["type", "name", "label"])),
    Case("XLSForm broken [Content_Types].xml", SURVEY, ".xlsx",
         lambda p: broken_content_types(p, sheet_name="survey", header=("type", "name", "label"))),
]

# ---------------------------------------------------------------- the child: one read


def status_mb(field: str) -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def child(reader: str, path: str) -> None:
    """Read ``path`` as the staff area does; print one line of JSON: memory, seconds, outcome."""
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_ADDRESS_SPACE, CHILD_ADDRESS_SPACE))

    # The readers import these lazily, on the first file: imported here, before the baseline, they are not counted
    # as the file's cost. Only the child needs them.
    import openpyxl.styles.numbers  # noqa: F401
    import pyxform.xls2json_backends  # noqa: F401

    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # the peak (VmHWM) starts again from here
    except OSError:
        pass
    baseline = status_mb("VmRSS")
    cpu, wall = time.process_time(), time.monotonic()
    try:
        if reader == SURVEY:
            with open(path, "rb") as source:
                document_read(source=source, filename="survey.xlsx")
            outcome = "read"
        else:
            required, optional = (REQUIRED, OPTIONAL) if reader == ROSTER else (COLUMNS, ())
            table = open_table(path, required=required, optional=optional, max_bytes=settings.UPLOAD_MAX_BYTES)
            outcome = f"read {sum(1 for _ in table.rows):,} rows"
    except TableError as error:
        outcome = f"refused: {error}"
    except DocumentError as error:
        outcome = f"refused: {error.problems[0]}"
    except BaseException as error:  # MemoryError too: what the staff area would answer with a 500
        outcome = f"error: {type(error).__name__}: {str(error)[:200]}"
    print(json.dumps({"memory_mb": status_mb("VmHWM") - baseline, "wall": time.monotonic() - wall,
                      "cpu": time.process_time() - cpu, "outcome": outcome}))


# ---------------------------------------------------------------- the parent


def unpacked_bytes(path: Path) -> int:
    """What the file unpacks to: the sum of an XLSX's parts, a CSV's own size."""
    try:
        with zipfile.ZipFile(path) as archive:
            return sum(info.file_size for info in archive.infolist())
    except zipfile.BadZipFile:
        return os.path.getsize(path)


def measure(case: Case, path: Path, code: str, timeout: float) -> dict[str, Any]:
    command = [sys.executable, "manage.py", "bench", "upload_bombs", "--child", case.reader, str(path)]
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test"}
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=code, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"memory_mb": None, "wall": time.monotonic() - started, "cpu": None,
                "outcome": f"stopped after {timeout:.0f} s"}
    return child_figures(done, wall=time.monotonic() - started)


def child_figures(done: subprocess.CompletedProcess[str], *, wall: float) -> dict[str, Any]:
    """Return a finished child's figures: the line of JSON it printed last, or, when it printed none, no figures and
    what it said as it died."""
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"memory_mb": None, "wall": wall, "cpu": None,
                "outcome": f"error: the child died ({done.returncode}): {done.stderr.strip()[-300:]}"}


def time_bound(unpacked: int) -> float:
    """Return the seconds a file that unpacks to ``unpacked`` bytes may take to read."""
    return TIME_BOUND_SECONDS + TIME_BOUND_SECONDS_PER_MB * unpacked / 1e6


def over_the_bound(case: Case, result: Mapping[str, Any], limit: float) -> list[str]:
    """Return why a read broke the bound, given its time bound ``limit``: nothing when it kept it."""
    memory = result["memory_mb"]
    return [why for why, bad in [
        ("no figures (the child was stopped, or died)", memory is None),
        (f"memory over {MEMORY_BOUND_MB} MB", memory is not None and memory > MEMORY_BOUND_MB),
        (f"time over {limit:.0f} s", result["wall"] > limit),
        ("an error", result["outcome"].startswith("error")),
        ("a control refused", case.control and not result["outcome"].startswith("read"))] if bad]


def selected(only: str) -> list[Case]:
    """Return the cases whose names hold one of the comma-separated parts of ``only`` (every case when it is empty)."""
    wanted = [part.strip().lower() for part in only.split(",") if part.strip()]
    return [case for case in CASES if not wanted or any(part in case.name.lower() for part in wanted)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated parts of case names")
    parser.add_argument("--code", default=str(ROOT), help="the checkout whose code reads the files")
    parser.add_argument("--timeout", type=float, default=0, help="stop a child after this many seconds")
    parser.add_argument("--json", default="", help="write the figures here too")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0

    cases = selected(args.only)
    print(f"bound: {MEMORY_BOUND_MB} MB above the baseline; {TIME_BOUND_SECONDS} s + "
          f"{TIME_BOUND_SECONDS_PER_MB:g} s per MB unpacked. Code: {args.code}")
    print(f"{'file':<40}{'upload':>10}{'unpacked':>10}{'MB':>7}{'wall s':>8}{'CPU s':>7}  outcome")
    broken: list[str] = []
    figures: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        for case in cases:
            path = Path(scratch) / f"upload{case.suffix}"
            case.make(path)
            upload, unpacked = os.path.getsize(path), unpacked_bytes(path)
            limit = time_bound(unpacked)
            result = measure(case, path, args.code, args.timeout or max(30.0, 3 * limit))
            path.unlink()
            memory = result["memory_mb"]
            over = over_the_bound(case, result, limit)
            if over:
                broken.append(f"{case.name}: {', '.join(over)}")
            figures.append({"file": case.name, "upload_bytes": upload, "unpacked_bytes": unpacked, **result,
                            "within_bound": not over})
            print(f"{case.name:<40}{_size(upload):>10}{_size(unpacked):>10}"
                  f"{'-' if memory is None else f'{memory:.0f}':>7}{result['wall']:>8.2f}"
                  f"{'-' if result['cpu'] is None else format(result['cpu'], '.2f'):>7}  "
                  f"{'' if not over else '!! '}{result['outcome'][:150]}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    if broken:
        print("\nOver the bound:\n  " + "\n  ".join(broken))
        return 1
    print(f"\nEvery file within the bound ({len(cases)} files).")
    return 0


def _size(size: float) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.1f} KB"

