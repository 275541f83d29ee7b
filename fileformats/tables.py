"""The tables staff upload (the school directory, rosters, staff files): CSV or XLSX, read row by row within bounds.

A problem with the whole file is a ``TableError``; a row's are the caller's to report as ``Problem``s, numbered as a
spreadsheet shows rows (the header is row 1). Also what a cell written out must be (``spreadsheet_safe``) and how a
time is written (``moment_text``). Read next: ``docs/architecture.md``, "Uploads".
"""
import codecs
import csv
import datetime
import os
import posixpath
import re
import tempfile
import zipfile
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from itertools import chain
from os import PathLike
from typing import TextIO, TypeVar

from django.core.files import File
from django.db.models.fields.files import FieldFile
from django.utils import timezone

from fileformats.workbooks import NOT_A_WORKBOOK, RESAVE, WorkbookError, workbook_open, xml_parse, xml_parser, xml_read

CHUNK_BYTES = 1 << 20
FORMULA = re.compile(r"^[\s]*[=+@]")
# A CSV line (a row, or part of one whose quoted text spans lines): a roster's is some hundred characters.
CSV_LINE_MAX_CHARS = 1 << 20
CSV_DELIMITERS = ",\t;"  # in csv.Sniffer's order of preference, for a tie

# --- XLSX: what a workbook may unpack to, read. Time is linear in the sheet's size unpacked (a million rows of a
# roster's six columns are 230-340 MB); memory is the shared texts' size at most, plus a few MB.
XLSX_SHEET_MAX_BYTES = 2_000_000_000
XLSX_STRINGS_MAX_BYTES = 192_000_000
XLSX_STRINGS_MAX = 16_000_000
XLSX_PART_MAX_BYTES = 64_000_000  # the list of parts, of sheets, the styles
XLSX_NUMBER_FORMATS_MAX = 10_000  # Excel allows some 250
XLSX_SHEETS_LOOKED_AT = 1_000
XLSX_MAX_ROWS = 1_048_576  # the last row of a sheet in Excel
XLSX_MAX_COLUMNS = 16_384  # column XFD, the last in Excel
XLSX_ADVICE = "Save the sheet as CSV, or delete the columns and rows the import does not use."
# Tags as fileformats.workbooks gives them ("namespace local"), and content types: those openpyxl reads.
_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main "
_CONTENT_TYPES = "http://schemas.openxmlformats.org/package/2006/content-types "
_PACKAGE_RELATIONSHIPS = "http://schemas.openxmlformats.org/package/2006/relationships "
_RELATIONSHIP_ID = "http://schemas.openxmlformats.org/officeDocument/2006/relationships id"
_WORKBOOK_TYPES = tuple(  # openpyxl's order
    f"application/vnd.{kind}.main+xml" for kind in (
        "ms-excel.template.macroEnabled", "openxmlformats-officedocument.spreadsheetml.template",
        "ms-excel.sheet.macroEnabled", "openxmlformats-officedocument.spreadsheetml.sheet"))
_SHARED_STRINGS = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
_XLSX_PART_TYPES = {*_WORKBOOK_TYPES, _SHARED_STRINGS}

StrPath = str | PathLike[str]
_Cell = TypeVar("_Cell")


class TableError(ValueError):
    """The file cannot be read as a table: one message for the person who sent it."""


@dataclass(frozen=True)
class Problem:
    row: int
    column: str
    value: str
    reason: str

    def __str__(self) -> str:
        where = f"row {self.row}" + (f", column {self.column}" if self.column else "")
        return f"{where}: {self.reason}" + (f" (value: {self.value!r})" if self.value else "")


@dataclass
class Table:
    format: str  # "CSV" or "XLSX"
    encoding: str  # "UTF-8", "UTF-8 with BOM", "Windows-1252"; "" for XLSX
    columns: list[str]
    ignored_columns: list[str] = field(default_factory=list)
    rows: Iterator[tuple[int, dict[str, str]]] = iter(())
    # About how many rows follow the header (for a progress bar; 0 when the file does not say).
    rows_expected: int = 0

    @property
    def described(self) -> str:
        return f"{self.format} ({self.encoding})" if self.encoding else self.format


@contextmanager
def local_path(file: File) -> Iterator[str]:
    """A path to an uploaded or stored file, for ``open_table``: Django's own temporary file for a big upload,
    the storage's path for a stored file on a file system, a temporary copy otherwise (a small upload held in
    memory, a file on S3)."""
    if hasattr(file, "temporary_file_path"):
        yield file.temporary_file_path()
        return
    path = None
    if isinstance(file, FieldFile):  # a stored file; an upload has no path
        try:
            path = file.path
        except NotImplementedError:  # a storage without a file system (S3)
            path = None
    if path:
        yield path
        return
    with tempfile.NamedTemporaryFile(suffix=os.path.splitext(file.name or "")[1]) as copy:
        file.open("rb")
        try:
            for chunk in file.chunks(CHUNK_BYTES):
                copy.write(chunk)
        finally:
            file.close()
        copy.flush()
        yield copy.name


def formula_problem(row: int, column: str, value: str) -> Problem | None:
    """A cell a spreadsheet would run as a formula (=, + or @ first): refused, never stored."""
    if value and FORMULA.match(value):
        return Problem(row, column, value, "a formula: type the value itself")
    return None


def open_table(path: StrPath, *, required: Sequence[str], optional: Sequence[str] = (), max_bytes: int) -> Table:
    """Open the CSV or XLSX file at ``path``; return a Table whose ``rows`` yields (row number, {column: text}).

    Column names are matched without case or surrounding spaces; blank rows are
    skipped; every value is text, stripped. Raises TableError.
    """
    size = os.path.getsize(path)
    if size == 0:
        raise TableError("The file is empty.")
    if size > max_bytes:
        raise TableError(f"The file is {size / 1e6:.1f} MB; the largest accepted is {max_bytes / 1e6:.0f} MB.")
    with open(path, "rb") as stream:
        start = stream.read(4096)
    rows: Iterator[tuple[int, list[str] | dict[int, str]]]
    if start.startswith(b"PK\x03\x04"):
        header, rows, rows_expected = _xlsx_rows(path)
        table_format, encoding = "XLSX", ""
    elif b"\x00" in start:
        raise TableError("This is not a CSV or XLSX file (it holds binary data). Save the sheet as CSV or XLSX.")
    else:
        encoding, codec = _detect_encoding(path)
        header, rows = _csv_rows(path, codec)
        table_format, rows_expected = "CSV", _line_count(path) - 1
    columns = [_column_name(name) for name in header]
    named = [name for name in columns if name]
    repeated = sorted(name for name, count in Counter(named).items() if count > 1)
    if repeated:
        more = f" and {len(repeated) - 10:,} more" if len(repeated) > 10 else ""
        raise TableError(f"The header names a column more than once: {', '.join(repeated[:10])}{more}.")
    missing = [name for name in required if name not in columns]
    if missing:
        raise TableError(
            f"Missing required column{'s' if len(missing) > 1 else ''}: {', '.join(missing)}. "
            f"The first row must name the columns: {', '.join([*required, *optional])}."
        )
    known = set(required) | set(optional)
    table = Table(format=table_format, encoding=encoding, columns=[c for c in columns if c in known],
                  ignored_columns=[c for c in named if c not in known], rows_expected=max(rows_expected, 0))

    def records() -> Iterator[tuple[int, dict[str, str]]]:
        # Only the known columns are looked at: a row is never padded to the header's width (a sheet's may be
        # 16,384 columns; a CSV's, a million).
        wanted = [(i, name) for i, name in enumerate(columns) if name in known]
        for number, cells in rows:
            if isinstance(cells, dict):  # an XLSX row: {column: text} of its cells with a value
                if cells:
                    yield number, {name: cells.get(i, "") for i, name in wanted}
            elif any(cells):
                width = len(cells)
                yield number, {name: cells[i] if i < width else "" for i, name in wanted}

    records_iter = records()
    first = next(records_iter, None)
    if first is None:
        raise TableError("The file has no rows below its header.")
    table.rows = chain([first], records_iter)
    return table


def _column_name(name: str | None) -> str:
    return name.strip().lower().replace(" ", "_") if name else ""


def _detect_encoding(path: StrPath) -> tuple[str, str]:
    """Return (name said to people, Python codec): UTF-8 if every byte decodes, else Windows-1252 if that does."""
    with open(path, "rb") as stream:
        bom = stream.read(3) == codecs.BOM_UTF8
    if _decodes(path, "utf-8"):
        return ("UTF-8 with BOM", "utf-8-sig") if bom else ("UTF-8", "utf-8")
    if _decodes(path, "cp1252"):
        return "Windows-1252", "cp1252"
    raise TableError("The file's text is neither UTF-8 nor Windows-1252: save it again as \"CSV UTF-8\".")


def _decodes(path: StrPath, codec: str) -> bool:
    decoder = codecs.getincrementaldecoder(codec)(errors="strict")
    with open(path, "rb") as stream:
        try:
            while chunk := stream.read(CHUNK_BYTES):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return False
    return True


def _line_count(path: StrPath) -> int:
    lines, last = 0, b"\n"
    with open(path, "rb") as stream:
        while chunk := stream.read(CHUNK_BYTES):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (last != b"\n")


def _csv_rows(path: StrPath, codec: str) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    stream = open(path, newline="", encoding=codec)
    lines = _csv_lines(stream)
    try:
        first = next(lines, "")
        reader = csv.reader(chain([first], lines), _csv_dialect(first))
        header = next(reader)
    except (StopIteration, csv.Error) as error:
        stream.close()
        raise TableError("The file has no header row.") from error
    except TableError:
        stream.close()
        raise

    def rows() -> Iterator[tuple[int, list[str]]]:
        try:
            for cells in reader:
                yield reader.line_num, [cell.strip() for cell in cells]
        except csv.Error as error:
            raise TableError(f"The CSV cannot be read at line {reader.line_num}: {error}.") from error
        finally:
            stream.close()

    return header, rows()


def _csv_lines(stream: TextIO) -> Iterator[str]:
    """Yield the file's lines, refusing one longer than CSV_LINE_MAX_CHARS (a line of a million cells would be a
    million strings)."""
    number = 0
    while line := stream.readline(CSV_LINE_MAX_CHARS + 1):
        number += 1
        if len(line) > CSV_LINE_MAX_CHARS:
            raise TableError(f"Line {number:,} of the file is longer than {CSV_LINE_MAX_CHARS:,} characters: this "
                             f"is not a table of people or schools.")
        yield line


def _csv_dialect(header: str) -> type[csv.Dialect]:
    """Return Excel's CSV dialect with the delimiter that splits the header line into the most cells (a comma for
    a tie or none), spaces after it skipped when every one in the header has one (as csv.Sniffer decides)."""
    def cells(delimiter: str) -> int:
        try:
            return len(next(csv.reader([header], delimiter=delimiter), []))
        except csv.Error:  # one cell over the field limit: not split by this one
            return 0

    delimiter = max(CSV_DELIMITERS, key=cells)  # the first of the most
    line = header.rstrip("\r\n")

    class Dialect(csv.excel):
        pass

    Dialect.delimiter = delimiter
    Dialect.skipinitialspace = line.count(delimiter) > 0 and line.count(delimiter) == line.count(delimiter + " ")
    return Dialect


def _xlsx_rows(path: StrPath) -> tuple[list[str], Iterator[tuple[int, dict[int, str]]], int]:
    """Return (header, rows, rows expected) of the workbook's first sheet, read as it streams (see XLSX_*).

    ``rows`` yields (sheet row number, {column: text}) for each row with a value: its cells with a value in the
    header's columns (numbered from 0) and, when a cell past them holds a value, that value, numbered as the first
    column past them (so that such a row is not taken for a blank one).
    """
    stack = ExitStack()
    try:
        archive = stack.enter_context(workbook_open(path))
        book = _xlsx_book(archive)
        sheet = _XlsxSheet(strings=_xlsx_strings(archive, book.strings), styles=_xlsx_styles(archive),
                           date1904=book.date1904)
        events = xml_parse(archive, book.sheet, max_bytes=XLSX_SHEET_MAX_BYTES, what="first sheet",
                           advice=XLSX_ADVICE, start=sheet.start, end=sheet.end, parser=sheet.parser)
        while sheet.header is None and next(events, True) is None:
            pass
    except WorkbookError as error:
        stack.close()
        raise TableError(_xlsx_said(error)) from error
    except BaseException:
        stack.close()
        raise
    if sheet.header is None:
        stack.close()
        raise TableError("The workbook's first sheet is empty.")

    def rows() -> Iterator[tuple[int, dict[int, str]]]:
        try:
            while True:
                yield from sheet.ready
                sheet.ready.clear()
                if next(events, True) is not None:
                    return
        except WorkbookError as error:
            raise TableError(_xlsx_said(error)) from error
        finally:
            stack.close()

    return sheet.header, rows(), max(sheet.rows_declared - 1, 0)


def _xlsx_said(error: WorkbookError) -> str:
    """Return the message for ``error``; a file that starts as a ZIP and is no workbook is said as before."""
    message = str(error)
    if message.startswith(NOT_A_WORKBOOK):
        detail = message[len(NOT_A_WORKBOOK):]
        return f"This is not a CSV or XLSX file: it is a ZIP archive that is not an XLSX workbook{detail}"
    return message


@dataclass(frozen=True)
class _XlsxBook:
    sheet: str  # the first worksheet's part
    strings: str  # the shared texts' part, or ""
    date1904: bool


def _xlsx_book(archive: zipfile.ZipFile) -> "_XlsxBook":
    """Find the parts openpyxl would read: the workbook from [Content_Types].xml, its first worksheet (not a
    chart sheet) through the workbook's relationships, the shared texts."""
    found: dict[str, str] = {}
    defaults: set[str] = set()

    def content_type(tag: str, attributes: dict[str, str]) -> None:
        if tag == _CONTENT_TYPES + "Override" and attributes.get("ContentType") in _XLSX_PART_TYPES:
            found.setdefault(attributes["ContentType"], attributes.get("PartName", "").lstrip("/"))
        elif tag == _CONTENT_TYPES + "Default" and attributes.get("ContentType") in _WORKBOOK_TYPES:
            defaults.add(attributes["ContentType"])

    xml_read(archive, "[Content_Types].xml", max_bytes=XLSX_PART_MAX_BYTES, what="list of parts",
             start=content_type)
    workbook = next((found[t] for t in _WORKBOOK_TYPES if t in found), "xl/workbook.xml" if defaults else None)
    if not workbook:
        raise WorkbookError(f"{NOT_A_WORKBOOK} (it names no workbook).")

    sheets: list[str] = []
    date1904 = [False]

    def sheet(tag: str, attributes: dict[str, str]) -> None:
        if tag == _MAIN + "sheet" and len(sheets) < XLSX_SHEETS_LOOKED_AT and attributes.get(_RELATIONSHIP_ID):
            sheets.append(attributes[_RELATIONSHIP_ID])
        elif tag == _MAIN + "workbookPr":
            date1904[0] = attributes.get("date1904", "").lower() in ("1", "true")

    xml_read(archive, workbook, max_bytes=XLSX_PART_MAX_BYTES, what="list of sheets", start=sheet)
    wanted = set(sheets)
    relationships: dict[str, tuple[str, str]] = {}
    relationships_part = posixpath.join(posixpath.dirname(workbook), "_rels", posixpath.basename(workbook) + ".rels")
    base = posixpath.dirname(posixpath.dirname(relationships_part))

    def relationship(tag: str, attributes: dict[str, str]) -> None:
        if (tag == _PACKAGE_RELATIONSHIPS + "Relationship" and attributes.get("Id") in wanted
                and attributes.get("TargetMode") != "External"):
            target = attributes.get("Target", "")
            target = target[1:] if target.startswith("/") else posixpath.normpath(posixpath.join(base, target))
            relationships.setdefault(attributes["Id"], (attributes.get("Type", ""), target))

    xml_read(archive, relationships_part, max_bytes=XLSX_PART_MAX_BYTES, what="list of sheets",
             start=relationship)
    names = set(archive.namelist())
    first = next((target for kind, target in filter(None, map(relationships.get, sheets))
                  if target in names and "chartsheet" not in kind), None)
    if first is None:
        raise WorkbookError("The workbook has no sheet.")
    return _XlsxBook(sheet=first, strings=found.get(_SHARED_STRINGS, ""), date1904=date1904[0])


class _XlsxTexts:
    """The workbook's shared texts, as UTF-8 end to end (a text's str costs some 50 bytes more than its own)."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.ends = array("I")

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, index: int) -> str:
        if index < 0:
            raise IndexError(index)
        return self.data[self.ends[index - 1] if index else 0:self.ends[index]].decode()

    def append(self, text: str) -> None:
        self.data += text.encode()
        self.ends.append(len(self.data))


def _xlsx_strings(archive: zipfile.ZipFile, part: str) -> _XlsxTexts:
    """Read the shared texts as openpyxl does (a run's text, not its phonetic guide; "x005F_" dropped)."""
    texts = _XlsxTexts()
    if not part:
        return texts
    parser = xml_parser()
    parts: list[str] = []
    inside = {"rPh": 0, "si": 0}

    def start(tag: str, attributes: dict[str, str]) -> None:
        name = tag[len(_MAIN):]
        if name == "t" and inside["si"] and not inside["rPh"]:
            parser.CharacterDataHandler = parts.append
        elif name in inside:
            inside[name] += 1
            if name == "si":
                parts.clear()

    def end(tag: str) -> None:
        name = tag[len(_MAIN):]
        if name == "t":
            parser.CharacterDataHandler = None
        elif name in inside:
            inside[name] -= 1
            if name == "si":
                if len(texts) >= XLSX_STRINGS_MAX:
                    raise WorkbookError(f"The workbook holds more different texts than the {XLSX_STRINGS_MAX:,} "
                                        f"accepted. {XLSX_ADVICE}")
                texts.append("".join(parts).replace("x005F_", ""))

    xml_read(archive, part, max_bytes=XLSX_STRINGS_MAX_BYTES, what="table of shared texts", advice=XLSX_ADVICE,
             start=start, end=end, parser=parser)
    return texts


def _xlsx_styles(archive: zipfile.ZipFile) -> bytearray:
    """Return, for each cell style, 1 if it shows a date and 2 if a duration, else 0 (as openpyxl decides)."""
    # openpyxl's helpers load when an XLSX is read: a CSV upload never pays for them.
    from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format, is_timedelta_format

    def kind(code: str | None) -> int:
        # Excel's formats are at most 255 characters; openpyxl's regular expressions are slow on long ones.
        if code is None or len(code) > 255 or not is_date_format(code):
            return 0
        return 2 if is_timedelta_format(code) else 1

    styles = bytearray()
    custom: dict[int, int] = {}
    inside: list[str | None] = [None]

    def start(tag: str, attributes: dict[str, str]) -> None:
        name = tag[len(_MAIN):]
        if name == "numFmt" and inside[0] == "numFmts":  # not a differential format's (dxf)
            if len(custom) >= XLSX_NUMBER_FORMATS_MAX:
                raise WorkbookError(f"The workbook has more number formats than the {XLSX_NUMBER_FORMATS_MAX:,} "
                                    f"accepted. {RESAVE}")
            custom[_xlsx_int(attributes.get("numFmtId"), "style")] = kind(attributes.get("formatCode"))
        elif name == "xf" and inside[0] == "cellXfs":
            number = _xlsx_int(attributes.get("numFmtId", "0"), "style")
            styles.append(custom[number] if number in custom else kind(BUILTIN_FORMATS.get(number)))
        elif name in ("numFmts", "cellXfs", "cellStyleXfs", "dxfs"):
            inside[0] = name

    def end(tag: str) -> None:
        if tag[len(_MAIN):] in ("numFmts", "cellXfs", "cellStyleXfs", "dxfs"):
            inside[0] = None

    if "xl/styles.xml" in archive.NameToInfo:
        xml_read(archive, "xl/styles.xml", max_bytes=XLSX_PART_MAX_BYTES, what="styles", start=start, end=end)
    return styles


def _xlsx_int(text: str | None, what: str) -> int:
    try:
        return int(text or "")  # no number at all: ValueError, as for a bad one
    except (TypeError, ValueError) as error:
        raise WorkbookError(f"The workbook is damaged: a {what} is numbered {str(text)[:20]!r}. {RESAVE}") from error


class _XlsxSheet:
    """The first sheet's rows, from expat's events (fileformats.workbooks.xml_parse); values as openpyxl reads them
    (read-only, formulas as formulas)."""

    def __init__(self, *, strings: _XlsxTexts, styles: bytearray, date1904: bool) -> None:
        # (openpyxl: only when an XLSX is read)
        from openpyxl.utils.cell import column_index_from_string
        from openpyxl.utils.datetime import CALENDAR_MAC_1904, WINDOWS_EPOCH, from_excel, from_ISO8601  # (the same)

        self.column_index, self.from_excel, self.from_iso = column_index_from_string, from_excel, from_ISO8601
        self.strings, self.styles = strings, styles
        self.epoch = CALENDAR_MAC_1904 if date1904 else WINDOWS_EPOCH
        self.parser = xml_parser()
        self.header: list[str] | None = None  # the header's texts, once row 1 is read
        self.width = XLSX_MAX_COLUMNS  # the columns read: all of row 1, then the header's
        self.rows_declared = 0  # the last row of the sheet's <dimension>
        self.ready: list[tuple[int, dict[int, str]]] = []  # rows read and not yet taken
        self.number = 0  # the row being read
        self.skip = False  # a row numbered out of order: openpyxl leaves it out
        self.cells: dict[int, str] = {}  # column -> text of the row being read
        self.past = ""  # the first value past the header's columns
        self.column = 0
        # (reference, type, style) of the cell being read, when it is read
        self.cell: tuple[str | None, str, str | None] | None = None
        self.value: list[str] = []
        self.formula: list[str] | None = None
        self.inline: list[str] | None = None
        self.in_phonetic = 0

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        name = tag[len(_MAIN):]
        if name == "c":
            reference = attributes.get("r")
            if reference:
                letters = reference.rstrip("0123456789")
                try:
                    self.column = self.column_index(letters) if len(letters) <= 3 else XLSX_MAX_COLUMNS + 1
                except ValueError as error:
                    raise WorkbookError(f"The workbook is damaged: a cell of the first sheet is named "
                                        f"{reference[:20]!r}. {RESAVE}") from error
            else:
                self.column += 1
            if not self.skip and (self.column <= self.width or not self.past):
                self.cell = (reference, attributes.get("t", "n"), attributes.get("s"))
                self.value.clear()
                self.formula = self.inline = None
        elif self.cell is None:
            if name == "row":
                self._row_start(attributes.get("r"))
            elif name == "dimension":
                last = (attributes.get("ref") or "").rpartition(":")[2]
                digits = last[len(last.rstrip("0123456789")):]
                self.rows_declared = min(int(digits), XLSX_MAX_ROWS) if digits and len(digits) < 10 else 0
        elif name == "v":
            self.parser.CharacterDataHandler = self.value.append
        elif name == "f":
            self.formula = []
            self.parser.CharacterDataHandler = self.formula.append
        elif name == "is":
            self.inline = []
        elif name == "rPh":
            self.in_phonetic += 1
        elif name == "t" and self.inline is not None and not self.in_phonetic:
            self.parser.CharacterDataHandler = self.inline.append

    def end(self, tag: str) -> None:
        name = tag[len(_MAIN):]
        if name in ("v", "f", "t"):
            self.parser.CharacterDataHandler = None
        elif name == "rPh":
            self.in_phonetic -= 1
        elif name == "c" and self.cell is not None:
            text = self._text(self.cell)
            if text:
                if self.column <= self.width:
                    self.cells[self.column] = text
                else:
                    self.past = text
            self.cell = None
        elif name == "row" and not self.skip:
            self._row_end()

    def _row_start(self, numbered: str | None) -> None:
        if numbered is None:
            number = self.number + 1
        else:
            try:
                number = int(numbered) if numbered.isdigit() else int(float(numbered))
            except (ValueError, OverflowError) as error:
                raise WorkbookError(f"The workbook is damaged: a row of the first sheet is numbered "
                                    f"{numbered[:20]!r}. {RESAVE}") from error
        if number > XLSX_MAX_ROWS:
            raise WorkbookError(f"The first sheet has a row numbered {number:,}, past the last row of a sheet "
                                f"({XLSX_MAX_ROWS:,}). {RESAVE}")
        self.skip = number <= self.number
        if self.skip:
            return
        if self.header is None and number > 1:
            self._header([])
        self.number, self.column, self.past = number, 0, ""
        self.cells.clear()

    def _row_end(self) -> None:
        if self.header is None:
            self._header([self.cells.get(column, "") for column in range(1, max(self.cells, default=0) + 1)])
        elif self.cells or self.past:
            cells = {column - 1: text for column, text in self.cells.items()}
            if self.past:
                cells[self.width] = self.past
            self.ready.append((self.number, cells))
        self.cells.clear()

    def _header(self, texts: list[str]) -> None:
        while texts and not texts[-1]:
            texts.pop()
        self.header, self.width = texts, len(texts)

    def _text(self, cell: tuple[str | None, str, str | None]) -> str:
        reference, kind, style = cell
        try:
            if self.formula is not None:
                # The formula as written: a copy of a shared formula would have to be translated, at the cost of
                # the formula's length for every cell (a formula is refused, whatever its text).
                return "=" + "".join(self.formula)
            if kind == "inlineStr":
                return "".join(self.inline).strip() if self.inline is not None else ""
            raw = "".join(self.value)
            if not raw:
                return ""
            if kind == "n":
                number = float(raw) if "." in raw or "E" in raw or "e" in raw else int(raw)
                index = int(style) if style else 0
                if 0 <= index < len(self.styles) and self.styles[index]:
                    try:
                        return _xlsx_text(self.from_excel(number, self.epoch, timedelta=self.styles[index] == 2))
                    except (OverflowError, ValueError):
                        return "#VALUE!"
                return _xlsx_text(number)
            if kind == "s":
                return _xlsx_text(self.strings[int(raw)])
            if kind == "b":
                return _xlsx_text(bool(int(raw)))
            if kind == "d":
                return _xlsx_text(self.from_iso(raw[:64]))
            return raw.strip()
        except (ValueError, IndexError, OverflowError) as error:
            raise WorkbookError(f"The workbook is damaged: cell {reference or ''} of the first sheet cannot be read "
                                f"({str(error)[:80]}). {RESAVE}") from error


def _xlsx_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime.datetime) and value.time() == datetime.time():
        return value.date().isoformat()
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value).strip()


# What a spreadsheet takes for a formula at the start of a cell, unless the cell is a plain number ("-3").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def spreadsheet_safe(cell: _Cell) -> _Cell | str:
    """Return ``cell`` as it may go into a CSV or spreadsheet cell without a spreadsheet running it as a formula."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS) and not NUMBER.match(cell):
        return "'" + cell
    return cell


def moment_text(moment: datetime.datetime | None) -> str:
    """A time as every file staff download writes it (exports, the not-finished lists, the audit log): ISO 8601 in
    the deployment's time zone (``TIME_ZONE``), with its offset, to the second: ``2026-12-02T09:15:00-06:00``;
    "" for none."""
    return timezone.localtime(moment).isoformat(timespec="seconds") if moment else ""


