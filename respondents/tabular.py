"""The tables staff upload (the school directory, rosters): CSV or XLSX, read row by row.

- XLSX is recognised by its first bytes (a ZIP) and read with openpyxl in
  read-only mode, so a big sheet is never whole in memory.
- CSV text is UTF-8, with or without a byte-order mark, or Windows-1252 (what
  Excel on Windows writes). The encoding is decided over the whole file first
  and said back to the person; a file that is neither is refused.
- What is wrong with the file as a whole raises ``TableError`` with one clear
  message. What is wrong with a row is the caller's to report, as a
  ``Problem`` (row, column, value, reason); ``formula_problem`` is the check
  every caller makes of every cell.

Row numbers are those a spreadsheet shows: the header is row 1.
"""
import codecs
import csv
import datetime
import os
import re
import tempfile
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from typing import Iterator

CHUNK_BYTES = 1 << 20
FORMULA = re.compile(r"^[\s]*[=+@]")


class TableError(ValueError):
    """The file cannot be read as a table: one message for the person who sent it."""


@dataclass(frozen=True)
class Problem:
    row: int
    column: str
    value: str
    reason: str

    def __str__(self):
        where = f"row {self.row}" + (f", column {self.column}" if self.column else "")
        return f"{where}: {self.reason}" + (f" (value: {self.value!r})" if self.value else "")


@dataclass
class Table:
    format: str  # "CSV" or "XLSX"
    encoding: str  # "UTF-8", "UTF-8 with BOM", "Windows-1252"; "" for XLSX
    columns: list[str]
    ignored_columns: list[str] = field(default_factory=list)
    rows: Iterator[tuple[int, dict]] = iter(())
    # About how many rows follow the header (for a progress bar; 0 when the file does not say).
    rows_expected: int = 0

    @property
    def described(self):
        return f"{self.format} ({self.encoding})" if self.encoding else self.format


@contextmanager
def local_path(file):
    """A path to an uploaded or stored file, for ``open_table``: Django's own temporary file for a big upload,
    the storage's path for a stored file on a file system, a temporary copy otherwise (a small upload held in
    memory, a file on S3)."""
    if hasattr(file, "temporary_file_path"):
        yield file.temporary_file_path()
        return
    try:
        path = file.path
    except (AttributeError, NotImplementedError):
        path = None
    if path:
        yield path
        return
    with tempfile.NamedTemporaryFile(suffix=os.path.splitext(file.name)[1]) as copy:
        file.open("rb")
        try:
            for chunk in file.chunks(CHUNK_BYTES):
                copy.write(chunk)
        finally:
            file.close()
        copy.flush()
        yield copy.name


def formula_problem(row, column, value):
    """A cell a spreadsheet would run as a formula (=, + or @ first): refused, never stored."""
    if value and FORMULA.match(value):
        return Problem(row, column, value, "a formula: type the value itself")
    return None


def open_table(path, *, required, optional=(), max_bytes):
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
    repeated = sorted({name for name in named if named.count(name) > 1})
    if repeated:
        raise TableError(f"The header names a column more than once: {', '.join(repeated)}.")
    missing = [name for name in required if name not in columns]
    if missing:
        raise TableError(
            f"Missing required column{'s' if len(missing) > 1 else ''}: {', '.join(missing)}. "
            f"The first row must name the columns: {', '.join([*required, *optional])}."
        )
    known = set(required) | set(optional)
    table = Table(format=table_format, encoding=encoding, columns=[c for c in columns if c in known],
                  ignored_columns=[c for c in named if c not in known], rows_expected=max(rows_expected, 0))

    def records():
        width = len(columns)
        for number, cells in rows:
            if not any(cells):
                continue
            cells = list(cells[:width]) + [""] * (width - len(cells))
            yield number, {name: cells[i] for i, name in enumerate(columns) if name in known}

    records_iter = records()
    first = next(records_iter, None)
    if first is None:
        raise TableError("The file has no rows below its header.")
    table.rows = chain([first], records_iter)
    return table


def _column_name(name):
    return name.strip().lower().replace(" ", "_") if name else ""


def _detect_encoding(path):
    """Return (name said to people, Python codec): UTF-8 if every byte decodes, else Windows-1252 if that does."""
    with open(path, "rb") as stream:
        bom = stream.read(3) == codecs.BOM_UTF8
    if _decodes(path, "utf-8"):
        return ("UTF-8 with BOM", "utf-8-sig") if bom else ("UTF-8", "utf-8")
    if _decodes(path, "cp1252"):
        return "Windows-1252", "cp1252"
    raise TableError("The file's text is neither UTF-8 nor Windows-1252: save it again as \"CSV UTF-8\".")


def _decodes(path, codec):
    decoder = codecs.getincrementaldecoder(codec)(errors="strict")
    with open(path, "rb") as stream:
        try:
            while chunk := stream.read(CHUNK_BYTES):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return False
    return True


def _line_count(path):
    lines, last = 0, b"\n"
    with open(path, "rb") as stream:
        while chunk := stream.read(CHUNK_BYTES):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (last != b"\n")


def _csv_rows(path, codec):
    stream = open(path, newline="", encoding=codec)
    sample = stream.read(64 * 1024)
    stream.seek(0)
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(stream, dialect)
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as error:
        stream.close()
        raise TableError("The file has no header row.") from error

    def rows():
        try:
            for cells in reader:
                yield reader.line_num, [cell.strip() for cell in cells]
        except csv.Error as error:
            raise TableError(f"The CSV cannot be read at line {reader.line_num}: {error}.") from error
        finally:
            stream.close()

    return header, rows()


def _xlsx_rows(path):
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    # A file object, not the path: an upload's temporary name says nothing of its format.
    stream = open(path, "rb")
    try:
        workbook = load_workbook(stream, read_only=True, data_only=False)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as error:
        stream.close()
        raise TableError("This is not a CSV or XLSX file: it is a ZIP archive that is not an XLSX workbook.") from error
    sheet = workbook.worksheets[0]
    cells = sheet.iter_rows(values_only=True)
    header = next(cells, None)
    if header is None:
        workbook.close()
        stream.close()
        raise TableError("The workbook's first sheet is empty.")

    def rows():
        try:
            for number, values in enumerate(cells, start=2):
                yield number, [_xlsx_text(value) for value in values]
        finally:
            workbook.close()
            stream.close()

    return [_xlsx_text(value) for value in header], rows(), max((sheet.max_row or 0) - 1, 0)


def _xlsx_text(value):
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime.datetime) and value.time() == datetime.time():
        return value.date().isoformat()
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return str(value).strip()
