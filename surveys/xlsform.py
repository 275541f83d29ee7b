"""XLSForm workbooks as survey documents: read with pyxform's workbook reader, turned into ``surveys.documents``.

Supported (anything else is a problem, and nothing is written):

- sheets ``survey``, ``choices``, ``settings`` (``form_id`` is the slug,
  ``form_title`` the title, ``default_language`` the first language);
- a page is a ``begin group``/``end group`` with ``appearance`` ``field-list``
  (its ``label`` is the page's title, its ``relevant`` the page's show_if);
  every question is on a page;
- a Likert grid is a group with ``appearance`` ``table-list`` inside a page:
  consecutive ``select_one`` rows sharing one list (the group's ``name`` is
  the grid's code, its ``label`` the grid's prompt; a row with ``appearance``
  ``label``, ODK's header row, is left out);
- types ``select_one L``, ``select_multiple L``, ``integer``, ``decimal``
  (``min``/``max`` from the constraint's ``. >= n`` and ``. <= n``), ``text``
  (``appearance`` ``multiline``: long text), ``date``, and ``note`` before a
  page's first question (the page's intro);
- columns ``type``, ``name``, ``label``, ``hint``, ``required``,
  ``required_message``, ``constraint``, ``constraint_message``, ``relevant``,
  ``appearance``; ``label::Español (es)``-style columns for each language;
- ``relevant`` and ``constraint`` in the usual XPath forms, compiled into the
  rule language of ``surveys/rules.py`` by ``surveys/xpath.py``: ``${q} =
  'v'``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` (with a text, a number or
  another ``${q}``; ``.`` for the question's own value), ``${q} != ''``
  (answered), ``selected(${q}, 'v')``, ``count-selected(${q}) >= n``,
  ``and``, ``or``, ``not(...)`` and brackets. Nothing is evaluated: the
  expression is parsed into the tree.

Every problem names its sheet, row and column: ``survey sheet, row 12,
column relevant: ...``. Problems the survey document's own checks find (a
rule reading a later question, a duplicate choice value) are named the same
way, through the rows each element came from.
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
    ChoiceDocument, DocumentError, DocumentText, PageDocument, QuestionDocument, RowDocument, SurveyDocument,
    parse_survey_document,
)
from surveys.models import Question, Survey
from surveys.rules import RuleJSON
from surveys.xpath import XPathError, xpath_rule

SURVEY, CHOICES, SETTINGS = "survey", "choices", "settings"
TRANSLATED = ("label", "hint", "required_message", "constraint_message", "form_title")
SURVEY_COLUMNS = {"type", "name", "required", "constraint", "relevant", "appearance", "label", "hint",
                  "required_message", "constraint_message"}
CHOICE_COLUMNS = {"list_name", "name", "label"}
SETTINGS_COLUMNS = {"form_id", "form_title", "default_language", "version"}
_TRUE, _FALSE = {"yes", "true", "1", "true()"}, {"no", "false", "0", "false()", ""}
_LANGUAGE_COLUMN = re.compile(r"^(?P<column>[a-z_]+)::(?P<name>.*?)\s*(?:\((?P<code>[A-Za-z-]+)\))?$")
# Where a document's element came from, and which column each of its keys is read from.
_KEY_COLUMNS = {"code": "name", "kind": "type", "choices": "type", "prompt": "label", "help_text": "hint",
                "required": "required", "show_if": "relevant", "constraint": "constraint", "title": "label",
                "min": "constraint", "max": "constraint", "required_message": "required_message",
                "constraint_message": "constraint_message", "value": "name", "label": "label", "rows": "type"}
# A row of a sheet as pyxform reads it: the text of each of its non-empty cells (trimmed), by column.
_Row = Mapping[str, str]


class XLSFormError(DocumentError):
    """An XLSForm that cannot be turned into a survey; ``problems`` lists why, by sheet, row and column."""


@dataclass
class _Reader:
    problems: list[str] = field(default_factory=list)
    # document path -> (sheet, row, column or None), so that the document's own checks point at the workbook.
    origins: dict[str, tuple[str, int, str | None]] = field(default_factory=dict)
    languages: tuple[str, ...] = ()
    # sheet -> {column: (base column, language or None)}
    columns: dict[str, dict[str, tuple[str, str | None]]] = field(default_factory=dict)

    def problem(self, sheet: str, row: int | None, column: str | None, message: str) -> None:
        where = f"{sheet} sheet" + (f", row {row}" if row else "") + (f", column {column}" if column else "")
        self.problems.append(f"{where}: {message}")


# pyxform reads a workbook through openpyxl, which holds every XML element it reads as an object (some hundred
# bytes; a cell style some 600): so the workbook is checked first (fileformats.workbooks). A survey of 2,000 questions
# in five languages is about 3 MB and 200,000 elements.
XLSFORM_MAX_BYTES = 16_000_000
XLSFORM_MAX_ELEMENTS = 1_000_000
XLSFORM_STYLES_MAX_ELEMENTS = 20_000


def xlsform_document(source: str | os.PathLike[str] | bytes | IO[bytes], *,
                     status: str = Survey.Status.DRAFT) -> SurveyDocument:
    """Return the survey document of the XLSForm workbook ``source`` (a path, a binary file or bytes), checked whole.

    Raise XLSFormError listing every problem by sheet, row and column.
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
    for sheet in (SURVEY, CHOICES, SETTINGS):
        if sheet not in book:
            reader.problem(sheet, None, None, "is missing" if sheet != SETTINGS else "is missing (form_id, "
                           "form_title)")
    if reader.problems:
        raise XLSFormError(reader.problems)
    reader.columns = {sheet: _columns(reader, sheet, book.get(f"{sheet}_header") or [{}])
                      for sheet in (SURVEY, CHOICES, SETTINGS)}
    settings_row = (book[SETTINGS] or [{}])[0]
    reader.languages = _languages(reader, settings_row)
    document: SurveyDocument = {
        "slug": settings_row.get("form_id", ""),
        "title": _texts(reader, SETTINGS, settings_row, "form_title"),
        "status": status,
        "languages": list(reader.languages),
        "choice_lists": _choice_lists(reader, book[CHOICES]),
        "pages": [],
    }
    reader.origins["survey.slug"] = (SETTINGS, 2, "form_id")
    reader.origins["survey.title"] = (SETTINGS, 2, "form_title")
    _pages(reader, book[SURVEY], document)
    try:
        parse_survey_document(document)
    except DocumentError as error:
        # Reported beside the workbook's own problems: every one at once, each once.
        reader.problems.extend(p for p in map(functools.partial(_located, reader), error.problems)
                               if p not in reader.problems)
    if reader.problems:
        raise XLSFormError(reader.problems)
    return document


def _columns(reader: _Reader, sheet: str,
             header: Sequence[Mapping[str, object]]) -> dict[str, tuple[str, str | None]]:
    """Map each column of ``sheet`` to (its base column, its language); note the columns not supported."""
    supported = {SURVEY: SURVEY_COLUMNS, CHOICES: CHOICE_COLUMNS, SETTINGS: SETTINGS_COLUMNS}[sheet]
    columns: dict[str, tuple[str, str | None]] = {}
    for name in header[0]:
        match = _LANGUAGE_COLUMN.match(name)
        base, language = (match["column"], name.split("::", 1)[1].strip()) if match else (name, None)
        if base not in supported or (language and base not in TRANSLATED):
            reader.problem(sheet, 1, name, f"is not supported (columns read: {', '.join(sorted(supported))})")
            continue
        columns[name] = (base, language)
    return columns


def _languages(reader: _Reader, settings_row: _Row) -> tuple[str, ...]:
    """Return the survey's languages: ``default_language`` first, then each language a column is written in."""
    known = dict(settings.LANGUAGES)
    names = {name.lower(): code for code, name in settings.LANGUAGES}

    def code_of(text: str, sheet: str, row: int, column: str) -> str | None:
        match = re.match(r"^(?P<name>.*?)\s*(?:\((?P<code>[A-Za-z-]+)\))?$", text.strip())
        # A line break inside the text (a default_language cell's) matches nothing: no language of this site either.
        code = (match["code"] or names.get(match["name"].lower()) or match["name"]) if match else None
        if code not in known:
            reader.problem(sheet, row, column, f"{text!r} is not a language of this site: write it 'Name (code)' "
                           f"with a code of {', '.join(known)}")
            return None
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
        choice: ChoiceDocument = {"value": value, "label": _texts(reader, CHOICES, row, "label")}
        path = f"choice_lists.{name}[{len(lists.get(name, [])) + 1}]"
        reader.origins[path] = (CHOICES, index, None)
        lists.setdefault(name, []).append(choice)
    return lists


@dataclass
class _Group:
    kind: str  # "page", "grid", or "other" (a group refused)
    row: int
    element: PageDocument | QuestionDocument | None  # the page, or the grid's question
    path: str
    list_name: str = ""


def _pages(reader: _Reader, rows: Iterable[_Row], document: SurveyDocument) -> None:
    """Walk the survey sheet into pages, questions and grids."""
    stack: list[_Group] = []
    page: PageDocument | None = None  # the page being read: set whenever a page's or a grid's group is open
    for index, row in enumerate(rows, start=2):
        if not row:
            continue
        type_ = re.sub(r"\s+", " ", row.get("type", "")).strip()
        head, _, rest = type_.partition(" ")
        if type_ in ("begin group", "begin_group"):
            appearance = row.get("appearance", "")
            if not stack and appearance == "field-list":
                page = {"title": _texts(reader, SURVEY, row, "label"), "questions": []}
                path = f"pages[{len(document['pages']) + 1}]"
                if row.get("relevant"):
                    page["show_if"] = _rule(reader, row, index, "relevant")
                reader.origins[path] = (SURVEY, index, None)
                document["pages"].append(page)
                stack.append(_Group("page", index, page, path))
            elif stack and stack[-1].kind == "page" and appearance == "table-list":
                assert page is not None
                grid: QuestionDocument = {"code": row.get("name", ""), "kind": Question.Kind.GRID,
                                          "prompt": _texts(reader, SURVEY, row, "label"), "rows": []}
                _common(reader, row, index, grid)
                path = f"{stack[-1].path}.questions[{len(page['questions']) + 1}]"
                reader.origins[path] = (SURVEY, index, None)
                page["questions"].append(grid)
                stack.append(_Group("grid", index, grid, path))
            elif stack:
                reader.problem(SURVEY, index, "appearance", "a group inside a page must be a grid (appearance "
                               "table-list) of select_one rows")
                stack.append(_Group("other", index, None, ""))
            else:
                reader.problem(SURVEY, index, "appearance", "a page is a group with appearance field-list")
                stack.append(_Group("other", index, None, ""))
            continue
        if type_ in ("end group", "end_group"):
            if not stack:
                reader.problem(SURVEY, index, "type", "ends a group that was not begun")
            else:
                group = stack.pop()
                if group.kind == "grid" and not cast(QuestionDocument, group.element)["rows"]:
                    reader.problem(SURVEY, group.row, "type", "a grid (table-list) needs select_one rows")
            continue
        if not stack or stack[-1].kind == "other":
            if stack or not type_:
                continue  # inside a group already refused; or a row with no type
            reader.problem(SURVEY, index, "type", f"'{type_}' is outside any page: put every question in a group "
                           "with appearance field-list")
            continue
        group = stack[-1]
        if group.kind == "grid":
            _grid_row(reader, row, index, group, head, rest)
            continue
        assert page is not None
        if head == "note":
            if page["questions"]:
                reader.problem(SURVEY, index, "type", "a note is shown as its page's introduction: put it before "
                               "the page's first question")
            elif row.get("relevant"):
                reader.problem(SURVEY, index, "relevant", "a note is the page's introduction: it has no condition")
            else:
                intro = _texts(reader, SURVEY, row, "label")
                page["intro"] = _joined(page.get("intro", ""), intro)
            continue
        question = _question(reader, row, index, head, rest)
        if question is not None:
            path = f"{group.path}.questions[{len(page['questions']) + 1}]"
            reader.origins[path] = (SURVEY, index, None)
            page["questions"].append(question)
    for group in stack:
        reader.problem(SURVEY, group.row, "type", "this group is never ended (end group)")
    if not document["pages"] and not reader.problems:
        reader.problem(SURVEY, None, None, "has no page: a page is a group with appearance field-list")


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
          "select_one": Question.Kind.SINGLE, "select_multiple": Question.Kind.MULTIPLE}


def _question(reader: _Reader, row: _Row, index: int, head: str, rest: str) -> QuestionDocument | None:
    code, prompt = row.get("name", ""), _texts(reader, SURVEY, row, "label")
    question: QuestionDocument
    if head in ("select_one", "select_multiple"):
        if not rest or " " in rest:
            reader.problem(SURVEY, index, "type", f"write '{head} LIST' with the name of a list of the choices sheet")
            return None
        question = {"kind": _KINDS[head], "choices": rest, "code": code, "prompt": prompt}
    elif head == "text":
        long = "multiline" in row.get("appearance", "").split()
        question = {"kind": Question.Kind.LONG_TEXT if long else Question.Kind.SHORT_TEXT, "code": code,
                    "prompt": prompt}
    elif head in _KINDS and not rest:
        question = {"kind": _KINDS[head], "code": code, "prompt": prompt}
    else:
        reader.problem(SURVEY, index, "type", f"'{row.get('type')}' is not supported (types read: select_one, "
                       "select_multiple, integer, decimal, text, date, note, begin/end group)")
        return None
    _common(reader, row, index, question)
    appearance = row.get("appearance", "")
    if appearance and appearance not in ("multiline",) or (appearance == "multiline" and head != "text"):
        reader.problem(SURVEY, index, "appearance", f"'{appearance}' is not supported here")
    return question


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
    if row.get("appearance") not in (None, "", "list-nolabel"):
        reader.problem(SURVEY, index, "appearance", f"'{row.get('appearance')}' is not supported in a grid")
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
