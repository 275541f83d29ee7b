"""XLSForm workbooks as survey documents: read with pyxform's workbook reader, turned into ``surveys.documents``.

Every problem names its sheet, row and column. Read next: ``docs/xlsform.md``, the survey office's guide to what is
read, ignored and refused, kept in step with this module; its XPath: ``surveys/xpath.py``.
"""
import functools
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Literal, cast
from xml.etree.ElementTree import ParseError

from django.conf import settings

from fileformats.workbooks import WorkbookError, workbook_check
from surveys.documents import (
    ChoiceDocument,
    DocumentError,
    DocumentText,
    PageDocument,
    QuestionDocument,
    RowDocument,
    SurveyDocument,
    parse_survey_document,
)
from surveys.languages import language_code
from surveys.models import Question, Survey
from surveys.rules import RuleJSON
from surveys.xpath import XPathError, xpath_calculation, xpath_rule

SURVEY, CHOICES, SETTINGS = "survey", "choices", "settings"
TRANSLATED = ("label", "hint", "required_message", "constraint_message", "form_title")
SURVEY_COLUMNS = {"type", "name", "required", "constraint", "relevant", "appearance", "label", "hint",
                  "required_message", "constraint_message", "default", "calculation", "choice_filter"}
CHOICE_COLUMNS = {"list_name", "name", "label"}
SETTINGS_COLUMNS = {"form_id", "form_title", "default_language", "version", "style"}
# Other spellings pyxform reads for the same column.
_ALIASES = {SURVEY: {"caption": "label", "relevance": "relevant", "constraining_message": "constraint_message",
                     "command": "type", "tag": "name", "value": "name"},
            CHOICES: {"list name": "list_name", "value": "name", "caption": "label"},
            SETTINGS: {"set_form_id": "form_id", "set_form_title": "form_title"}}
# Columns that, where a row fills them in, change what people are asked or what is stored, and are not read: the
# row is refused, naming the feature. Any other column not read is ignored with a warning, as ODK's tools do.
REFUSED_COLUMNS = {"repeat_count": "repeats", "trigger": "triggers",
                   "parameters": "question parameters"}
# Types that collect what a browser survey cannot, or need what is not read: refused, naming the feature.
REFUSED_TYPES = {
    **dict.fromkeys(("geopoint", "geotrace", "geoshape", "start-geopoint", "background-geopoint", "location",
                     "gps", "q geopoint", "q geoshape", "q geotrace", "q location", "add location prompt"),
                    "location capture"),
    **dict.fromkeys(("image", "photo", "audio", "video", "file", "background-audio", "q picture", "q image",
                     "q audio", "q video", "add image prompt", "add photo prompt", "add audio prompt",
                     "add video prompt", "add file prompt"), "media capture"),
    **dict.fromkeys(("barcode", "q barcode", "add barcode prompt"), "barcode scanning"),
    **dict.fromkeys(("xml-external", "csv-external"), "external data"),
    **dict.fromkeys(("select_one_from_file", "select_multiple_from_file", "select one from file",
                     "select multiple from file", "select_one_external"), "external data: choices from a file"),
    **dict.fromkeys(("begin repeat", "begin_repeat", "begin loop", "begin_loop"), "repeats"),
    "hidden": "hidden fields", "range": "range questions", "rank": "ranking",
    "osm": "OpenStreetMap questions", "audit": "audit logs",
}
# Metadata a device records: start and end are this system's own timestamps; the rest has nothing to record.
METADATA_TYPES = {"start": "recorded as each respondent's started_at", "end": "recorded as completed_at",
                  "today": "recorded as started_at (its date)",
                  **dict.fromkeys(("deviceid", "imei", "username", "phonenumber", "simserial", "subscriberid",
                                   "email", "simid", "get device id", "get phone number", "get sim id",
                                   "get subscriber id"), "")}
_TYPE_ALIASES = {"select one": "select_one", "select1": "select_one", "select one from": "select_one",
                 "add select one prompt using": "select_one", "select all that apply": "select_multiple",
                 "select all that apply from": "select_multiple", "select multiple from": "select_multiple",
                 "add select multiple prompt using": "select_multiple", "string": "text", "int": "integer",
                 "add note prompt": "note", "q note": "note", "trigger": "acknowledge", "begin_group": "begin group",
                 "end_group": "end group", "end_repeat": "end repeat", "end_loop": "end loop",
                 "q integer": "integer", "q int": "integer", "q decimal": "decimal", "q date": "date",
                 "q string": "text", "add text prompt": "text", "add integer prompt": "integer",
                 "add decimal prompt": "decimal", "add date prompt": "date", "q acknowledge": "acknowledge",
                 "add acknowledge prompt": "acknowledge", "datetime": "datetime", "q date time": "datetime",
                 "add date time prompt": "datetime", "get start time": "start", "start time": "start",
                 "get end time": "end", "end time": "end", "get today": "today", "begin loop": "begin loop"}
# A run of questions outside any field-list group is cut into pages of at most this many: a page is what one save
# keeps, and a long one on a slow school network loses more when it fails.
RUN_PAGE_QUESTIONS = 10
_TRUE, _FALSE = {"yes", "true", "1", "true()"}, {"no", "false", "0", "false()", ""}
_LANGUAGE_COLUMN = re.compile(r"^(?P<column>[a-z_]+)::(?P<name>.*?)\s*(?:\((?P<code>[A-Za-z-]+)\))?$")
# Where a document's element came from, and which column each of its keys is read from.
_KEY_COLUMNS = {"code": "name", "kind": "type", "choices": "type", "prompt": "label", "help_text": "hint",
                "required": "required", "show_if": "relevant", "constraint": "constraint", "title": "label",
                "min": "constraint", "max": "constraint", "required_message": "required_message",
                "constraint_message": "constraint_message", "value": "name", "label": "label", "rows": "type",
                "default": "default"}
# A row of a sheet as pyxform reads it: the text of each of its non-empty cells (trimmed), by column.
_Row = Mapping[str, str]


class XLSFormError(DocumentError):
    """An XLSForm that cannot be turned into a survey; ``problems`` lists why, by sheet, row and column."""


def _where(sheet: str, row: int | None, column: str | None) -> str:
    return f"{sheet} sheet" + (f", row {row}" if row else "") + (f", column {column}" if column else "")


@dataclass
class _Reader:
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # document path -> (sheet, row, column or None), so that the document's own checks point at the workbook.
    origins: dict[str, tuple[str, int, str | None]] = field(default_factory=dict)
    languages: tuple[str, ...] = ()
    # sheet -> {column: (base column, language or None)}
    columns: dict[str, dict[str, tuple[str, str | None]]] = field(default_factory=dict)
    # sheet -> {column as written: the column it is read as}, for the columns written another way (_ALIASES)
    renamed: dict[str, dict[str, str]] = field(default_factory=dict)
    # appearance -> the rows that give it, where it changes only how a question looks and is not read
    ignored_appearances: dict[str, list[int]] = field(default_factory=dict)
    # The choices sheet's other columns (a cascading select's choice_filter compares them), and those it does.
    choice_columns: list[str] = field(default_factory=list)
    filter_columns: set[str] = field(default_factory=set)

    def problem(self, sheet: str, row: int | None, column: str | None, message: str) -> None:
        self.problems.append(f"{_where(sheet, row, column)}: {message}")

    def warning(self, sheet: str, row: int | None, column: str | None, message: str) -> None:
        warning = f"{_where(sheet, row, column)}: {message}"
        if warning not in self.warnings:
            self.warnings.append(warning)

    def refuse(self, sheet: str, row: int, column: str | None, feature: str, what: str) -> None:
        """Refuse a row for a feature of XLSForm this system does not run, in one line that names it."""
        self.problem(sheet, row, column, f"{what}: not supported ({feature}; docs/xlsform.md lists what is not)")


# pyxform reads a workbook through openpyxl, which holds every XML element it reads as an object (some hundred
# bytes; a cell style some 600): so the workbook is checked first (fileformats.workbooks). A survey of 2,000 questions
# in five languages is about 3 MB and 200,000 elements.
XLSFORM_MAX_BYTES = 16_000_000
XLSFORM_MAX_ELEMENTS = 1_000_000
XLSFORM_STYLES_MAX_ELEMENTS = 20_000


def xlsform_document(source: str | os.PathLike[str] | bytes | IO[bytes], *, filename: str = "",
                     status: str = Survey.Status.DRAFT) -> SurveyDocument:
    """Return the survey document of the XLSForm workbook ``source`` (a path, a binary file or bytes), checked whole.

    ``filename`` gives the form's id when its settings sheet has none (as pyxform takes it). What is read and
    left aside is noted in the document's ``warnings``. Raise XLSFormError listing every problem by sheet, row and
    column.
    """
    # pyxform (openpyxl under it) takes half a second to import; only the survey office's uploads read workbooks.
    from pyxform.errors import PyXFormError
    from pyxform.xls2json_backends import xlsx_to_dict

    try:
        workbook_check(source, max_bytes=XLSFORM_MAX_BYTES, max_elements=XLSFORM_MAX_ELEMENTS,
                       part_max_elements=[("xl/styles.xml", XLSFORM_STYLES_MAX_ELEMENTS, "styles")])
        if hasattr(source, "seek"):
            source.seek(0)
        book = xlsx_to_dict(source)
    except (WorkbookError, PyXFormError, ParseError, ValueError) as error:
        raise XLSFormError([f"workbook: cannot be read as an XLSForm (.xlsx): {error}"]) from error
    reader = _Reader()
    if SURVEY not in book:
        raise XLSFormError([f"{SURVEY} sheet: is missing: an XLSForm's questions are on a sheet named survey"])
    if "entities" in book and any(book["entities"]):
        reader.refuse("entities", 2, None, "entities (creating or updating entity lists)", "an entities sheet")
    reader.columns = {sheet: _columns(reader, sheet, book.get(f"{sheet}_header") or [{}])
                      for sheet in (SURVEY, CHOICES, SETTINGS)}
    settings_row = {reader.renamed[SETTINGS].get(k, k): v for k, v in ((book.get(SETTINGS) or [{}])[0]).items()}
    reader.languages = _languages(reader, settings_row)
    slug = settings_row.get("form_id") or _slug_of(filename)
    if not settings_row.get("form_id") and slug:
        reader.warning(SETTINGS, None, "form_id", f"none given: '{slug}', from the file's name, is the survey's slug")
    document: SurveyDocument = {
        "slug": slug,
        "title": _texts(reader, SETTINGS, settings_row, "form_title") or _in_every_language(reader, slug),
        "status": status,
        "languages": list(reader.languages),
        "choice_lists": _choice_lists(reader, _renamed(reader, CHOICES, book.get(CHOICES) or [])),
        "pages": [],
        "form_version": settings_row.get("version", ""),
    }
    reader.origins["survey.slug"] = (SETTINGS, 2, "form_id")
    reader.origins["survey.title"] = (SETTINGS, 2, "form_title")
    reader.origins["survey.form_version"] = (SETTINGS, 2, "version")
    style = settings_row.get("style", "").split()
    _Walk(reader, document, pages_style="pages" in style).rows(_renamed(reader, SURVEY, book[SURVEY]))
    document["warnings"] = reader.warnings
    try:
        parse_survey_document(document)
    except DocumentError as error:
        # Reported beside the workbook's own problems: every one at once, each once.
        reader.problems.extend(p for p in map(functools.partial(_located, reader), error.problems)
                               if p not in reader.problems)
    if reader.problems:
        raise XLSFormError(reader.problems)
    return document


def _slug_of(filename: str) -> str:
    """Return the slug a file's name gives a form without a form_id (pyxform takes the name without its suffix)."""
    stem = os.path.splitext(os.path.basename(filename))[0]
    return re.sub(r"[^A-Za-z0-9_-]+", "_", stem).strip("_-")[:50]


def _renamed(reader: _Reader, sheet: str, rows: Iterable[_Row]) -> list[_Row]:
    """Return ``rows`` with the columns written another way (``_ALIASES``) under the names they are read as."""
    renamed = reader.renamed.get(sheet)
    if not renamed:
        return list(rows)
    return [{renamed.get(column, column): value for column, value in row.items()} for row in rows]


def _columns(reader: _Reader, sheet: str,
             header: Sequence[Mapping[str, object]]) -> dict[str, tuple[str, str | None]]:
    """Map each column of ``sheet`` read to (its base column, its language); warn of those ignored.

    A column written another way (``_ALIASES``) is read under its usual name; a column whose cells would change
    what is asked (``REFUSED_COLUMNS``) is kept, so that a row filling it in is refused.
    """
    supported = {SURVEY: SURVEY_COLUMNS, CHOICES: CHOICE_COLUMNS, SETTINGS: SETTINGS_COLUMNS}[sheet]
    aliases = _ALIASES[sheet]
    columns: dict[str, tuple[str, str | None]] = {}
    reader.renamed[sheet] = {}
    for name in header[0]:
        match = _LANGUAGE_COLUMN.match(name)
        base, language = (match["column"], name.split("::", 1)[1].strip()) if match else (name, None)
        if base in aliases:
            read_as = aliases[base] + (f"::{language}" if language else "")
            reader.renamed[sheet][name] = read_as
            base, name = aliases[base], read_as
        if sheet == SURVEY and base in REFUSED_COLUMNS and not language:
            columns[name] = (base, None)
        elif sheet == CHOICES and base not in supported and not language:
            reader.choice_columns.append(name)  # warned of after the survey sheet, unless a choice_filter reads it
        elif base not in supported or (language and base not in TRANSLATED):
            reader.warning(sheet, None, name, "ignored: this survey system does not use it")
        else:
            columns[name] = (base, language)
    return columns


def _languages(reader: _Reader, settings_row: _Row) -> tuple[str, ...]:
    """Return the survey's languages: ``default_language`` first, then each language a column is written in."""

    def code_of(text: str, sheet: str, row: int, column: str) -> str | None:
        code = language_code(text)
        if code is None:
            reader.problem(sheet, row, column, f"{text!r} names no language CLDR knows: write it 'Name (code)' "
                           "with the language's ISO 639 code, as 'Kiswahili (sw)'")
        return code

    default = settings_row.get("default_language")
    languages = [code_of(default, SETTINGS, 2, "default_language")] if default else []
    for sheet in (SURVEY, CHOICES, SETTINGS):
        for column, (_base, language) in reader.columns[sheet].items():
            if language:
                code = code_of(language, sheet, 1, column)
                reader.columns[sheet][column] = (_base, code)
                languages.append(code)
    return tuple([code for code in dict.fromkeys(languages) if code] or [settings.LANGUAGE_CODE])


def _texts(reader: _Reader, sheet: str, row: _Row, base: str) -> DocumentText:
    """Return the text of ``base`` in ``row`` as the document wants it: a string, or {language: text}."""
    texts: dict[str, str] = {}
    for column, (column_base, language) in reader.columns[sheet].items():
        if column_base == base and row.get(column):
            texts[language or reader.languages[0]] = row[column]
    if not texts:
        return ""
    if len(reader.languages) == 1:
        return texts.get(reader.languages[0], "")
    return texts


def _choice_lists(reader: _Reader, rows: Iterable[_Row]) -> dict[str, list[ChoiceDocument]]:
    lists: dict[str, list[ChoiceDocument]] = {}
    for index, row in enumerate(rows, start=2):
        if not row:
            continue
        name, value = row.get("list_name", ""), row.get("name", "")
        if not name:
            reader.problem(CHOICES, index, "list_name", "is empty")
            continue
        # A choice without a label shows its name, as ODK's clients show it.
        label = _texts(reader, CHOICES, row, "label") or _in_every_language(reader, value)
        choice: ChoiceDocument = {"value": value, "label": label}
        filters = {column: row[column] for column in reader.choice_columns if row.get(column)}
        if filters:
            choice["filters"] = filters
        path = f"choice_lists.{name}[{len(lists.get(name, [])) + 1}]"
        reader.origins[path] = (CHOICES, index, None)
        lists.setdefault(name, []).append(choice)
    return lists


def _in_every_language(reader: _Reader, text: str) -> DocumentText:
    return text if len(reader.languages) == 1 else dict.fromkeys(reader.languages, text)


def _all_of(rules: Iterable[RuleJSON | None]) -> RuleJSON | None:
    """Return the rule that holds when every one of ``rules`` does (None: no rule)."""
    parts: list[RuleJSON] = []
    for rule in rules:
        if rule:
            parts += rule["rules"] if rule["op"] == "and" else [rule]
    return None if not parts else parts[0] if len(parts) == 1 else {"op": "and", "rules": parts}


@dataclass
class _Group:
    kind: str  # "page" (a field-list group), "grid" (table-list), "organise" (flattened) or "refused"
    row: int
    element: PageDocument | QuestionDocument | None = None  # the page, or the grid's question
    path: str = ""
    condition: RuleJSON | None = None  # its relevant: an organising group's applies to what it holds
    label: DocumentText = ""
    list_name: str = ""
    opens_page: bool = False  # a grid outside any page: its page closes with it


@dataclass
class _Walk:
    """Walk the survey sheet into pages, questions and grids (docs/xlsform.md, "Pages").

    A group with appearance field-list (or table-list, a grid) outside a page is a page. With the style setting
    ``pages`` (Enketo's), every top-level group is a page too, and every question outside a group a page of its
    own. Otherwise questions outside any page are taken in runs: a run is one page, ended by the begin or end of a
    group or by a note, and cut every RUN_PAGE_QUESTIONS questions; its title is the label of the group it is in.
    Groups inside a page, and groups a run is in, only organise: their relevant applies to what they hold (to the
    page when it holds the whole page). Notes outside a page introduce the next page; those after the last question
    are the survey's thank-you text.
    """

    reader: _Reader
    document: SurveyDocument
    pages_style: bool = False
    stack: list[_Group] = field(default_factory=list)
    page: PageDocument | None = None
    page_path: str = ""
    inner_from: int = 0  # stack[inner_from:] are the groups opened inside the page being read
    run: bool = False  # the page being read is a run of questions outside any page's group
    pending_intro: DocumentText = ""
    # The notes (row number, row) the pending introduction and the open page's introduction were made of.
    pending_notes: list[tuple[int, _Row]] = field(default_factory=list)
    intro_notes: list[tuple[int, _Row]] = field(default_factory=list)
    # Calculations met outside any page: they open the next page (row number, calculation).
    pending_calculations: list[tuple[int, QuestionDocument]] = field(default_factory=list)
    run_pages: list[int] = field(default_factory=list)
    interpolated: list[int] = field(default_factory=list)  # rows whose label or hint names an answer, ${q}

    def rows(self, rows: Iterable[_Row]) -> None:
        for index, row in enumerate(rows, start=2):
            if row:
                self.row(index, row)
        for group in self.stack:
            if group.kind != "refused":
                self.reader.problem(SURVEY, group.row, "type", "this group is never ended (end group)")
        self.close_page()
        if self.pending_calculations and self.document["pages"]:
            # After the last question: they close the last page.
            self.page_path = f"pages[{len(self.document['pages'])}]"
            self.page = self.document["pages"][-1]
            for index, calculation in self.pending_calculations:
                self.add(calculation, index)
            self.page = None
        if self.pending_intro:
            self.document["thank_you"] = self.pending_intro
            self.reader.warning(SURVEY, None, None, "the notes after the last question are the survey's thank-you "
                                "text, shown when it is completed")
        if self.interpolated:
            self.reader.warning(SURVEY, None, "label", f"{_numbers('row', self.interpolated)}: an answer named in "
                                "a label or hint (${q}) is shown as written, not filled in")
        for column in self.reader.choice_columns:
            if column not in self.reader.filter_columns:
                self.reader.warning(CHOICES, None, column, "ignored: this survey system does not use it")
        for value, numbers in sorted(self.reader.ignored_appearances.items()):
            self.reader.warning(SURVEY, None, "appearance", f"'{value}' ignored ({_numbers('row', numbers)}): shown "
                                "the usual way")
        if self.run_pages:
            self.reader.warning(SURVEY, None, None, f"{_numbers('page', self.run_pages)} made of questions outside "
                                "any field-list group: a run of them is a page, ended by a group or a note, and cut "
                                f"every {RUN_PAGE_QUESTIONS} questions")
        if not self.document["pages"] and not self.reader.problems:
            self.reader.problem(SURVEY, None, None, "has no question")

    def row(self, index: int, row: _Row) -> None:
        reader = self.reader
        if any("${" in text for column, text in row.items() if reader.columns[SURVEY].get(column, ("",))[0] in (
                "label", "hint")):
            self.interpolated.append(index)
        type_ = _type(row.get("type", ""))
        head, _, rest = type_.partition(" ")
        if type_ in ("begin group", "end group", "end repeat", "end loop"):
            if type_ == "begin group":
                self.begin_group(index, row)
            else:
                self.end_group(index, type_)
            return
        if self.stack and self.stack[-1].kind == "refused":
            return  # inside a repeat already refused: one line says so
        if type_ in REFUSED_TYPES or head in REFUSED_TYPES:
            feature = REFUSED_TYPES.get(type_) or REFUSED_TYPES[head]
            reader.refuse(SURVEY, index, "type", feature, f"'{row.get('type')}'")
            if feature == "repeats":
                self.close_run()
                self.stack.append(_Group("refused", index))
            return
        for column, feature in REFUSED_COLUMNS.items():
            if row.get(column):
                reader.refuse(SURVEY, index, column, feature, f"'{row.get('name') or type_}' has a {column}")
                return
        if head == "calculate":
            self.calculate(index, row)
            return
        if row.get("calculation"):
            reader.refuse(SURVEY, index, "calculation", "calculated questions (a calculation on a question people "
                          "answer)", f"'{row.get('name') or type_}' has a calculation")
            return
        if type_ in METADATA_TYPES:
            recorded = METADATA_TYPES[type_]
            reader.warning(SURVEY, index, "type", f"'{type_}' is not a question: {recorded}" if recorded else
                           f"'{type_}' is not a question: ignored (a browser survey has nothing to record)")
            return
        if not type_:
            if row.get("label") or any(reader.columns[SURVEY].get(c, ("",))[0] == "label" for c in row):
                reader.problem(SURVEY, index, "type", "is empty: every row with a label needs a type")
            return
        if self.stack and self.stack[-1].kind == "grid":
            _grid_row(reader, row, index, self.stack[-1], head, rest)
            return
        if head == "note":
            self.note(index, row)
            return
        question = _question(reader, row, index, head, rest)
        if question is None:
            return
        if self.page is None or (self.run and _asked(self.page) >= RUN_PAGE_QUESTIONS):
            self.open_run(index)
        assert self.page is not None
        question["show_if"] = _all_of([*self.inner_conditions(), question.get("show_if")])
        if not question["show_if"]:
            question.pop("show_if")
        self.add(question, index)
        if row.get("choice_filter"):
            choice_filter = _choice_filter(reader, row, index)
            if choice_filter:
                question["choice_filter"] = choice_filter
        if rest.endswith(" or_other"):
            self.add(_other_question(reader, question, self.document["choice_lists"]), index)
        if self.run and self.pages_style and not self.stack:
            self.close_page()  # Enketo's pages: a question outside a group is a page of its own

    def calculate(self, index: int, row: _Row) -> None:
        """A calculate row: a calculation on the page being read (or the next one, outside any), computed from the
        answers before it."""
        reader = self.reader
        try:
            expression = xpath_calculation(row.get("calculation", ""))
        except XPathError as error:
            reader.refuse(SURVEY, index, "calculation", f"calculations beyond arithmetic, if(), coalesce(), concat() "
                          f"and round() ({error})", f"'{row.get('name', '')}' computes {row.get('calculation', '')!r}")
            return
        calculation: QuestionDocument = {"code": row.get("name", ""), "kind": Question.Kind.CALCULATE,
                                         "prompt": _texts(reader, SURVEY, row, "label"), "calculation": expression}
        own = _rule(reader, row, index, "relevant") if row.get("relevant") else None
        show_if = _all_of([*self.inner_conditions(), own] if self.page is not None else [own])
        if show_if:
            calculation["show_if"] = show_if
        if self.page is None:
            self.pending_calculations.append((index, calculation))
        else:
            self.add(calculation, index)

    def add(self, question: QuestionDocument, index: int) -> None:
        assert self.page is not None
        path = f"{self.page_path}.questions[{len(self.page['questions']) + 1}]"
        self.reader.origins[path] = (SURVEY, index, None)
        self.page["questions"].append(question)

    def inner_conditions(self) -> list[RuleJSON | None]:
        return [group.condition for group in self.stack[self.inner_from:] if group.kind == "organise"]

    def begin_group(self, index: int, row: _Row) -> None:
        reader = self.reader
        appearance = set(row.get("appearance", "").split())
        for value in sorted(appearance - {"field-list", "table-list"}):
            reader.ignored_appearances.setdefault(value, []).append(index)  # how a group looks: not read
        condition = _rule(reader, row, index, "relevant") if row.get("relevant") else None
        label = _texts(reader, SURVEY, row, "label")
        if self.stack and self.stack[-1].kind == "refused":
            self.stack.append(_Group("refused", index))
            return
        self.close_run()
        if self.stack and self.stack[-1].kind == "grid":
            reader.problem(SURVEY, index, "type", "a grid (table-list) holds only select_one rows, not a group")
            self.stack.append(_Group("refused", index))
            return
        if self.page is not None:
            if "table-list" in appearance:
                self.begin_grid(index, row)
            else:
                self.stack.append(_Group("organise", index, condition=condition, label=label))
            return
        if "field-list" in appearance or "table-list" in appearance or (self.pages_style and not self.stack):
            self.open_page(index, title=label, condition=condition)
            self.stack.append(_Group("page", index, self.page, self.page_path))
            if "table-list" in appearance:
                self.begin_grid(index, row, opens_page=True)
            return
        self.stack.append(_Group("organise", index, condition=condition, label=label))

    def begin_grid(self, index: int, row: _Row, *, opens_page: bool = False) -> None:
        assert self.page is not None
        grid: QuestionDocument = {"code": row.get("name", ""), "kind": Question.Kind.GRID,
                                  "prompt": _texts(self.reader, SURVEY, row, "label"), "rows": []}
        _common(self.reader, row, index, grid)
        if opens_page:
            grid.pop("show_if", None)  # the page's already
        grid["show_if"] = _all_of([*self.inner_conditions(), grid.get("show_if")])
        if not grid["show_if"]:
            grid.pop("show_if")
        path = f"{self.page_path}.questions[{len(self.page['questions']) + 1}]"
        self.reader.origins[path] = (SURVEY, index, None)
        self.page["questions"].append(grid)
        self.stack.append(_Group("grid", index, grid, path, opens_page=opens_page))

    def end_group(self, index: int, type_: str) -> None:
        if not self.stack:
            self.reader.problem(SURVEY, index, "type", f"'{type_}' ends a group that was not begun")
            return
        group = self.stack.pop()
        if group.kind == "grid":
            if not cast(QuestionDocument, group.element)["rows"]:
                self.reader.problem(SURVEY, group.row, "type", "a grid (table-list) needs select_one rows")
            if group.opens_page:
                self.stack.pop()
                self.close_page()
        elif group.kind == "page":
            self.close_page()
        elif group.kind == "organise":
            self.close_run()

    def note(self, index: int, row: _Row) -> None:
        """A note before a page's first question (or outside any page, without a condition) introduces the page;
        any other is shown where it stands, as a question that takes no answer."""
        text = _texts(self.reader, SURVEY, row, "label")
        if not text:
            return  # a note without a label shows nothing (ODK's forms use them to hold a calculation's display)
        conditional = bool(row.get("relevant"))
        if self.page is not None and not self.run and not self.page["questions"] and not conditional:
            self.page["intro"] = _joined(self.page.get("intro", ""), text)
            self.intro_notes.append((index, row))
            return
        if self.page is None or self.run:
            if not conditional:
                self.close_run()
                self.pending_intro = _joined(self.pending_intro, text)
                self.pending_notes.append((index, row))
                return
            if self.page is None:
                self.open_run(index)
        self.add(self.note_question(index, row), index)

    def note_question(self, index: int, row: _Row) -> QuestionDocument:
        note: QuestionDocument = {"code": row.get("name", ""), "kind": Question.Kind.NOTE,
                                  "prompt": _texts(self.reader, SURVEY, row, "label")}
        hint = _texts(self.reader, SURVEY, row, "hint")
        if hint:
            note["help_text"] = hint
        own = _rule(self.reader, row, index, "relevant") if row.get("relevant") else None
        show_if = _all_of([*self.inner_conditions(), own])
        if show_if:
            note["show_if"] = show_if
        return note

    def open_page(self, index: int, *, title: DocumentText, condition: RuleJSON | None, run: bool = False) -> None:
        """Open a page at row ``index``; the conditions of the groups around it and its own are its show_if."""
        self.close_page()
        page: PageDocument = {"title": title, "questions": []}
        show_if = _all_of([*(g.condition for g in self.stack if g.kind == "organise"), condition])
        if show_if:
            page["show_if"] = show_if
        if self.pending_intro:
            page["intro"], self.pending_intro = self.pending_intro, ""
        self.intro_notes, self.pending_notes = self.pending_notes, []
        self.page_path = f"pages[{len(self.document['pages']) + 1}]"
        self.reader.origins[self.page_path] = (SURVEY, index, None)
        self.document["pages"].append(page)
        self.page, self.run = page, run
        self.inner_from = len(self.stack) + (0 if run else 1)
        if run and not self.pages_style:
            self.run_pages.append(len(self.document["pages"]))
        pending, self.pending_calculations = self.pending_calculations, []
        for row_index, calculation in pending:
            self.add(calculation, row_index)

    def open_run(self, index: int) -> None:
        labels = [g.label for g in self.stack if g.kind == "organise" and g.label]
        self.open_page(index, title=labels[-1] if labels else "", condition=None, run=True)

    def close_run(self) -> None:
        if self.run:
            self.close_page()

    def close_page(self) -> None:
        """Close the page being read; one of nothing but notes shows them as notes (a page asks something or
        shows something, and the introduction alone is not an item)."""
        if self.page is not None and not self.page["questions"] and self.intro_notes:
            self.page.pop("intro", None)
            for index, row in self.intro_notes:
                self.add(self.note_question(index, row), index)
        self.page, self.run, self.intro_notes = None, False, []


_FILTER_CLAUSE = re.compile(r"^(?:(?P<column>[A-Za-z_][\w.-]*)\s*=\s*\$\{(?P<code>[A-Za-z_][\w.-]*)\}"
                            r"|\$\{(?P<code2>[A-Za-z_][\w.-]*)\}\s*=\s*(?P<column2>[A-Za-z_][\w.-]*))$")


def _choice_filter(reader: _Reader, row: _Row, index: int) -> dict[str, str] | None:
    """Return a cascading select's filter, ``{column: code}``, from ``col = ${q} and col2 = ${q2}``."""
    expression = row["choice_filter"].strip()
    choice_filter: dict[str, str] = {}
    for clause in re.split(r"\s+and\s+", expression):
        match = _FILTER_CLAUSE.match(clause.strip())
        if not match:
            reader.refuse(SURVEY, index, "choice_filter", "cascading selects written other than "
                          "'column = ${question}' (joined by and)", f"'{row.get('name', '')}' filters {expression!r}")
            return None
        column, code = match["column"] or match["column2"], match["code"] or match["code2"]
        if column not in reader.choice_columns:
            reader.problem(SURVEY, index, "choice_filter", f"the choices sheet has no column '{column}' to filter on")
            return None
        reader.filter_columns.add(column)
        choice_filter[column] = code
    return choice_filter


def _asked(page: PageDocument) -> int:
    """The questions on ``page`` that people answer (a run's size: its notes and calculations aside)."""
    return sum(1 for q in page["questions"] if q.get("kind") not in (Question.Kind.NOTE, Question.Kind.CALCULATE))


def _numbers(noun: str, numbers: Sequence[int]) -> str:
    """Return ``pages 2-5, 9`` for [2, 3, 4, 5, 9]."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)
    return f"{noun}s {text}" if len(numbers) > 1 else f"{noun} {text}"


def _type(text: str) -> str:
    """Return a row's type with its spaces made single and its usual other spellings (``_TYPE_ALIASES``) read."""
    type_ = re.sub(r"\s+", " ", text).strip()
    lowered = type_.lower()
    if lowered in _TYPE_ALIASES or lowered in REFUSED_TYPES or lowered in METADATA_TYPES:
        return _TYPE_ALIASES.get(lowered, lowered)
    for alias in sorted(_TYPE_ALIASES, key=len, reverse=True):  # "select one from L": the longest first
        if lowered.startswith(alias + " "):
            return f"{_TYPE_ALIASES[alias]} {type_[len(alias) + 1:]}"
    head, _, rest = type_.partition(" ")
    return f"{head.lower()} {rest}" if rest else head.lower()


def _joined(first: DocumentText, second: DocumentText) -> DocumentText:
    if not first:
        return second
    if isinstance(first, str) and isinstance(second, str):
        return f"{first}\n\n{second}"
    first = first if isinstance(first, dict) else {}
    second = second if isinstance(second, dict) else {}
    return {lang: "\n\n".join(t for t in (first.get(lang, ""), second.get(lang, "")) if t)
            for lang in dict.fromkeys([*first, *second])}


_KINDS = {"integer": Question.Kind.INTEGER, "decimal": Question.Kind.DECIMAL, "date": Question.Kind.DATE,
          "time": Question.Kind.TIME, "datetime": Question.Kind.DATETIME, "select_one": Question.Kind.SINGLE,
          "select_multiple": Question.Kind.MULTIPLE}


def _question(reader: _Reader, row: _Row, index: int, head: str, rest: str) -> QuestionDocument | None:
    code, prompt = row.get("name", ""), _texts(reader, SURVEY, row, "label")
    question: QuestionDocument
    appearance = row.get("appearance", "").split()
    if head in ("select_one", "select_multiple"):
        list_name, _, other = rest.partition(" ")
        if not list_name or other not in ("", "or_other"):
            reader.problem(SURVEY, index, "type", f"write '{head} LIST' (or '{head} LIST or_other') with the name of "
                           "a list of the choices sheet")
            return None
        question = {"kind": _KINDS[head], "choices": list_name, "code": code, "prompt": prompt}
    elif head == "acknowledge" and not rest:
        # ODK's acknowledge stores OK when ticked, nothing otherwise.
        question = {"kind": Question.Kind.SINGLE, "code": code, "prompt": prompt,
                    "choices": [{"value": "OK", "label": _in_every_language(reader, "OK")}]}
    elif head == "text" and not rest:
        long = "multiline" in appearance
        question = {"kind": Question.Kind.LONG_TEXT if long else Question.Kind.SHORT_TEXT, "code": code,
                    "prompt": prompt}
        appearance = [a for a in appearance if a != "multiline"]
    elif head in _KINDS and not rest:
        question = {"kind": _KINDS[head], "code": code, "prompt": prompt}
    else:
        reader.problem(SURVEY, index, "type", f"'{row.get('type')}' is not a type of XLSForm this survey system "
                       "reads (docs/xlsform.md lists them)")
        return None
    _common(reader, row, index, question)
    default = row.get("default", "")
    if default and re.search(r"\$\{|\(", default):
        reader.refuse(SURVEY, index, "default", "default values computed from an expression",
                      f"'{code}' has the default {default!r}")
    elif default:
        question["default"] = default
    for value in appearance:
        reader.ignored_appearances.setdefault(value, []).append(index)
    return question


def _other_question(reader: _Reader, question: QuestionDocument, lists: dict[str, list[ChoiceDocument]]) -> (
        QuestionDocument):
    """Give a ``select_one L or_other`` question its choice 'other' and return the text question that follows it,
    asked when 'other' is chosen (``CODE_other``, as pyxform makes it)."""
    name = cast(str, question["choices"])
    if name in lists:
        other_list = f"{name} or_other"
        lists[other_list] = [*lists[name], {"value": "other", "label": _in_every_language(reader, "Other")}]
        question["choices"] = other_list
    return {"code": f"{question['code']}_other", "kind": Question.Kind.SHORT_TEXT,
            "prompt": _in_every_language(reader, "Specify other."),
            "show_if": _all_of([question.get("show_if"), {"op": "selected", "q": question["code"], "value": "other"}])}


def _common(reader: _Reader, row: _Row, index: int, element: QuestionDocument | RowDocument) -> None:
    """Set what every question and grid may carry: hint, required, messages, relevant, constraint."""
    hint = _texts(reader, SURVEY, row, "hint")
    if hint:
        element["help_text"] = hint
    required = row.get("required", "").strip().lower()
    if required not in _TRUE | _FALSE:
        reader.problem(SURVEY, index, "required", f"{row.get('required')!r} is not yes or no")
    element["required"] = required in _TRUE
    for key in ("required_message", "constraint_message"):
        text = _texts(reader, SURVEY, row, key)
        if text:
            element[key] = text
    if row.get("relevant"):
        element["show_if"] = _rule(reader, row, index, "relevant")
    if row.get("constraint"):
        constraint = _rule(reader, row, index, "constraint", own=True)
        if element.get("kind") in Question.NUMBER_KINDS and constraint:  # a question's: a grid row has no kind
            constraint = _take_bounds(cast(QuestionDocument, element), constraint)
        if constraint:
            element["constraint"] = constraint


def _grid_row(reader: _Reader, row: _Row, index: int, group: _Group, head: str, rest: str) -> None:
    grid = cast(QuestionDocument, group.element)  # a grid's group holds the grid
    if head != "select_one" or not rest or " " in rest:
        reader.problem(SURVEY, index, "type", "a grid (table-list) holds only select_one rows of one list")
        return
    if row.get("appearance") == "label":
        return  # ODK's header row of a table-list: the grid's own heading shows the choices
    if group.list_name and rest != group.list_name:
        reader.problem(SURVEY, index, "type", f"every row of a grid shares one list: this one is '{rest}', "
                       f"the grid's is '{group.list_name}'")
        return
    group.list_name = rest
    grid["choices"] = rest
    for value in row.get("appearance", "").split():
        if value != "list-nolabel":
            reader.ignored_appearances.setdefault(value, []).append(index)
    grid_row: RowDocument = {"code": row.get("name", ""), "prompt": _texts(reader, SURVEY, row, "label")}
    _common(reader, row, index, grid_row)
    grid_row.pop("help_text", None)
    path = f"{group.path}.rows[{len(grid['rows']) + 1}]"
    reader.origins[path] = (SURVEY, index, None)
    grid["rows"].append(grid_row)


def _take_bounds(question: QuestionDocument, constraint: RuleJSON) -> RuleJSON | None:
    """Move the whole-number bounds of a number question's constraint (``. >= n``, ``. <= n``; ``. > n`` and
    ``. < n`` too for an integer) to its min and max; return what is left of the constraint, or None."""
    parts = constraint["rules"] if constraint["op"] == "and" else [constraint]
    left: list[RuleJSON] = []
    for part in parts:
        bound = _bound(part, question["kind"])
        if bound and bound[0] not in question:
            question[bound[0]] = bound[1]
        else:
            left.append(part)
    if not left:
        return None
    return left[0] if len(left) == 1 else {"op": "and", "rules": left}


def _bound(part: RuleJSON, kind: str) -> tuple[Literal["min", "max"], int] | None:
    value = part.get("value")
    if part.get("q") != "." or not isinstance(value, int) or isinstance(value, bool):
        return None
    strict = kind == Question.Kind.INTEGER  # > 4 is >= 5 only for whole numbers
    bounds: dict[str, tuple[Literal["min", "max"], int] | None] = {
        "ge": ("min", value), "le": ("max", value),
        "gt": ("min", value + 1) if strict else None, "lt": ("max", value - 1) if strict else None,
    }
    return bounds.get(part["op"])


def _rule(reader: _Reader, row: _Row, index: int, column: str, *, own: bool = False) -> RuleJSON | None:
    try:
        return xpath_rule(row[column], own=own)
    except XPathError as error:
        reader.problem(SURVEY, index, column, f"{error} in {row[column]!r}")
        return None


def _located(reader: _Reader, problem: str) -> str:
    """Name the sheet, row and column of a problem the document's checks found (``pages[2].questions[1]...``)."""
    path, _, message = problem.partition(": ")
    best = ""
    for prefix in reader.origins:
        if (path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")) and len(prefix) > len(
                best):
            best = prefix
    if not best:
        return f"workbook: {problem}"
    sheet, row, column = reader.origins[best]
    key = path[len(best):].lstrip(".").split(".")[0].split("[")[0]
    column = column or _KEY_COLUMNS.get(key, key) or None
    where = f"{sheet} sheet" + (f", row {row}" if row else "") + (f", column {column}" if column else "")
    return f"{where}: {message}"
