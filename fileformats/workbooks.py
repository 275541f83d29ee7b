"""XLSX uploads checked before anything parses them (a roster, the school directory, an XLSForm survey).

``workbook_open`` checks the ZIP, ``part_check`` a part's size, ``xml_parse`` streams a part through expat within
bounds; every refusal is a ``WorkbookError`` for the person who sent the file. Read next: ``docs/architecture.md``,
"Uploads".
"""
import io
import os
import pyexpat
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, NoReturn

CHUNK_BYTES = 64 * 1024
# A table of contents of a workbook Excel writes is a few KB (about 100 bytes a part).
DIRECTORY_MAX_BYTES = 1 << 20
TAG_MAX_BYTES = 1 << 20
DEPTH_MAX = 64
# A DTD, a comment or a processing instruction starts "<!" or "<?"; CDATA ("<![CDATA[") is text, and streamed.
_CDATA = b"<![CDATA["
# The XML declaration "<?xml ...?>" may follow a byte-order mark (3 bytes).
_DECLARATION_END = 3
# Said of a file that is no ZIP, or a ZIP without the parts of a workbook; the detail, if any, follows.
NOT_A_WORKBOOK = "It is not an XLSX workbook"
RESAVE = "Open it in Excel and save it again."

# A workbook as ``workbook_open`` takes it: a path, the bytes, or a binary file.
WorkbookSource = str | os.PathLike[str] | bytes | bytearray | IO[bytes]
# What ``xml_parse`` calls for a tag: (tag, attributes) when it starts, (tag) when it ends.
StartHandler = Callable[[str, dict[str, str]], object]
EndHandler = Callable[[str], object]


class WorkbookError(ValueError):
    """The workbook cannot be read within the limits: one message for the person who sent it."""


@contextmanager
def workbook_open(file: WorkbookSource) -> Iterator[zipfile.ZipFile]:
    """Open the XLSX workbook ``file`` (a path, a binary file or bytes) as a ZipFile, its ZIP structure checked first."""
    stream: IO[bytes]
    if isinstance(file, (bytes, bytearray)):
        stream = io.BytesIO(file)
    elif isinstance(file, (str, os.PathLike)):
        stream = open(file, "rb")
    else:
        stream = file
    try:
        try:
            # zipfile's own reading of the end record, so that the size checked is the size it then reads.
            end = zipfile._EndRecData(stream)  # type: ignore[attr-defined]  # zipfile's own, on purpose
        except OSError:
            end = None
        if not end:
            raise WorkbookError(f"{NOT_A_WORKBOOK}.")
        directory_bytes: int = end[zipfile._ECD_SIZE]  # type: ignore[attr-defined]
        if directory_bytes > DIRECTORY_MAX_BYTES:
            raise WorkbookError(
                f"This XLSX file's table of contents is {_mb(directory_bytes)}; the largest accepted is "
                f"{_mb(DIRECTORY_MAX_BYTES)} (a workbook's is a few KB). {RESAVE}")
        try:
            archive = zipfile.ZipFile(stream)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as error:
            raise WorkbookError(f"{NOT_A_WORKBOOK}.") from error
        with archive:
            for info in archive.infolist():
                if info.flag_bits & 0x1 or info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    raise WorkbookError(f"The workbook's part {info.filename} is encrypted or compressed in a way "
                                        f"Excel does not write. {RESAVE}")
            yield archive
    finally:
        if stream is not file:
            stream.close()


def part_check(archive: zipfile.ZipFile, name: str, *, max_bytes: int, what: str,
               advice: str = "") -> zipfile.ZipInfo:
    """Return the ZipInfo of the part ``name``; refuse it when it unpacks to more than ``max_bytes``."""
    try:
        info = archive.getinfo(name)
    except KeyError as error:
        raise WorkbookError(f"{NOT_A_WORKBOOK} (it has no {name}).") from error
    if info.file_size > max_bytes:
        raise WorkbookError(f"The workbook's {what} is {_mb(info.file_size)} unpacked; the largest accepted is "
                            f"{_mb(max_bytes)}." + (f" {advice}" if advice else ""))
    return info


def xml_parse(archive: zipfile.ZipFile, name: str, *, max_bytes: int, what: str, advice: str = "",
              start: StartHandler | None = None, end: EndHandler | None = None,
              parser: pyexpat.XMLParserType | None = None) -> Iterator[None]:
    """Stream the part ``name`` through expat; yield after each chunk, so that a caller can take what the handlers
    made so far. ``start(tag, attributes)`` and ``end(tag)`` see tags as ``"namespace local"``; for text, set
    ``parser.CharacterDataHandler`` from them (``parser``: one made by ``xml_parser``)."""
    info = part_check(archive, name, max_bytes=max_bytes, what=what, advice=advice)
    parser = parser or xml_parser()
    depth = 0

    def started(tag: str, attributes: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        if depth > DEPTH_MAX:
            raise WorkbookError(f"The workbook cannot be read: {name} nests its elements more than {DEPTH_MAX} deep. "
                                f"{RESAVE}")
        if start is not None:
            start(tag, attributes)

    def ended(tag: str) -> None:
        nonlocal depth
        depth -= 1
        if end is not None:
            end(tag)

    parser.StartElementHandler = started
    parser.EndElementHandler = ended
    guard = _Guard(name)
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(CHUNK_BYTES):
                guard.check(chunk)
                parser.Parse(chunk, False)
                yield
        parser.Parse(b"", True)
    except pyexpat.ExpatError as error:
        raise WorkbookError(f"The workbook is damaged: {name} is not well-formed XML "
                            f"({pyexpat.ErrorString(error.code)} at line {error.lineno}, column {error.offset + 1}). "
                            f"{RESAVE}") from error
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
        raise WorkbookError(f"The workbook is damaged: {name} cannot be unpacked ({error}). {RESAVE}") from error
    yield


def workbook_check(file: WorkbookSource, *, max_bytes: int, max_elements: int,
                   part_max_elements: Iterable[tuple[str, int, str]] = (), what: str = "workbook") -> None:
    """Check the whole workbook ``file`` before a reader that holds what it reads in memory (openpyxl, some
    hundred bytes an XML element) opens it: its ZIP (``workbook_open``); its parts unpacked together at most
    ``max_bytes``; every part that starts as XML well-formed, within ``xml_parse``'s limits; at most
    ``max_elements`` XML elements in all, and at most ``n`` in a part named in ``part_max_elements``
    ((name, n, what its entries are) ...)."""
    with workbook_open(file) as archive:
        parts = archive.infolist()
        unpacked = sum(info.file_size for info in parts)
        if unpacked > max_bytes:
            raise WorkbookError(f"The {what} is {_mb(unpacked)} unpacked; the largest accepted is {_mb(max_bytes)}.")
        limits = {name: (most, kind) for name, most, kind in part_max_elements}
        total = 0
        for info in parts:
            with archive.open(info) as part:
                if not part.read(64).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
                    continue  # pictures, macros: not XML, whatever their names (a reader follows relationships)
            most, kind = limits.get(info.filename, (max_elements, ""))
            count = 0

            def counted(tag: str, attributes: dict[str, str], most: int = most, kind: str = kind) -> None:
                nonlocal count, total
                count += 1
                total += 1
                if total > max_elements:
                    raise WorkbookError(f"The {what} holds more XML elements (cells, texts, styles) than the "
                                        f"{max_elements:,} accepted.")
                if count > most:
                    raise WorkbookError(f"The {what}'s {kind} hold more entries than the {most:,} accepted. "
                                        f"{RESAVE}")

            xml_read(archive, info.filename, max_bytes=max_bytes, what=info.filename, start=counted)


def xml_read(archive: zipfile.ZipFile, name: str, *, max_bytes: int, what: str, advice: str = "",
             start: StartHandler | None = None, end: EndHandler | None = None,
             parser: pyexpat.XMLParserType | None = None) -> None:
    """Run ``xml_parse`` to the end."""
    for _ in xml_parse(archive, name, max_bytes=max_bytes, what=what, advice=advice, start=start, end=end,
                       parser=parser):
        pass


def xml_parser() -> pyexpat.XMLParserType:
    """Return an expat parser for ``xml_parse``: UTF-8 whatever the part declares, tags as "namespace local",
    text buffered (one call per text, up to 64 KB), no DTD."""
    parser = pyexpat.ParserCreate(encoding="UTF-8", namespace_separator=" ")
    parser.buffer_text = True
    parser.buffer_size = CHUNK_BYTES

    def doctype(*_: object) -> NoReturn:
        raise WorkbookError(f"The workbook cannot be read: it holds a DTD, which Excel never writes. {RESAVE}")

    parser.StartDoctypeDeclHandler = doctype
    return parser


class _Guard:
    """What expat would hold whole, checked on the raw bytes before they reach it (``docs/architecture.md``,
    "Uploads")."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.offset = 0  # bytes before this chunk
        self.since = 0  # bytes since the last "<"
        self.carry = b""  # the last bytes of the previous chunk: a "<!" or "<?" may straddle two

    def check(self, chunk: bytes) -> None:
        first = chunk.find(b"<")
        if first < 0:
            self.since += len(chunk)
        else:
            self.since += first
            if self.since <= TAG_MAX_BYTES:
                self.since = len(chunk) - 1 - chunk.rfind(b"<")
        if self.since > TAG_MAX_BYTES:
            raise WorkbookError(f"The workbook cannot be read: {self.name} holds a cell or a tag longer than "
                                f"{_mb(TAG_MAX_BYTES)}. {RESAVE}")
        window = self.carry + chunk
        base = self.offset - len(self.carry)
        for marker in (b"<!", b"<?"):
            at = window.find(marker)
            while at >= 0:
                if len(window) - at < len(_CDATA):
                    break  # decided with the next chunk, which the carry reaches
                if not (window.startswith(_CDATA, at) or (marker == b"<?" and base + at <= _DECLARATION_END)):
                    raise WorkbookError(f"The workbook cannot be read: {self.name} holds a DTD, a comment or a "
                                        f"processing instruction, which Excel never writes. {RESAVE}")
                at = window.find(marker, at + 1)
        self.carry = window[-len(_CDATA):]
        self.offset += len(chunk)


def _mb(size: float) -> str:
    return f"{size / 1e6:,.0f} MB" if size >= 1e7 else f"{size / 1e6:,.1f} MB"
