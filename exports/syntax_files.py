"""The SPSS (``.sps``) and Stata (``.do``) files that read an export's data file (``.dat``) with its labels.

Read next: ``docs/architecture.md``, "Response exports" (the data file, how each tool reads it, the labels' limits).
"""
from collections.abc import Iterable, Sequence
from pathlib import Path

from exports.cells import DATA_ESCAPES
from exports.variables import MISSING_CODES, NOMINAL, ORDINAL, SCALE, Variable, VariablePlan
from surveys.models import Survey

# Each tool's limits on a label: longer ones are cut.
SPSS_VARIABLE_LABEL_BYTES = 256
SPSS_VALUE_LABEL_BYTES = 120
STATA_VARIABLE_LABEL_CHARS = 80
STATA_VALUE_LABEL_CHARS = 32_000
_SPSS_CHUNK = 100  # characters of a string literal per line; longer ones are joined with "+"
# DO REPEAT's stand-in for each string variable: a name no variable has (a question's code never starts with
# roster_, and no roster field is called text).
_SPSS_STAND_IN = "roster_text"
_NAMES_PER_LINE = 6  # variable names on a line of a list: 6 of 32 characters keep it under SPSS's 256 bytes a line


def _one_line(text: object) -> str:
    # Neither tool takes a line break inside a string of a command.
    return " ".join(str(text).split("\n")).replace("\r", " ").replace("\t", " ")


def _cut_bytes(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", errors="ignore")


def spss_string(text: object, *, max_bytes: int | None = None) -> str:
    """Return ``text`` as an SPSS string literal (one line, or several joined with "+"): double-quoted, a double
    quote inside doubled."""
    text = _one_line(text)
    if max_bytes is not None:
        text = _cut_bytes(text, max_bytes)
    chunks = [text[i:i + _SPSS_CHUNK] for i in range(0, len(text), _SPSS_CHUNK)] or [""]
    return " +\n    ".join('"' + chunk.replace('"', '""') + '"' for chunk in chunks)


def stata_string(text: object, *, max_chars: int | None = None) -> str:
    """Return ``text`` as a Stata compound-quoted string literal: its backquotes turned into apostrophes, its dollar
    signs escaped so that no macro is expanded, and a space put between a double quote and an apostrophe that would
    close the compound quote early."""
    text = _one_line(text)
    if max_chars is not None:
        text = text[:max_chars]
    text = text.replace("`", "'").replace("$", "\\$").replace("\"'", "\" '")
    return f"`\"{text}\"'"


def _spss_literal(text: str) -> str:
    """Return ``text`` as an SPSS string literal; a control character (tab, line break) in hexadecimal."""
    return spss_string(text) if text.isprintable() else "X'" + text.encode("utf-8").hex().upper() + "'"


def _stata_literal(text: str) -> str:
    """Return ``text`` as a Stata expression of its characters (``char(92) + char(116)``): no quoting to get
    wrong."""
    return " + ".join(f"char({ord(character)})" for character in text)


def _name_lines(names: Sequence[str], indent: str) -> str:
    """Return ``names`` on lines of _NAMES_PER_LINE, the first without ``indent``."""
    lines = [" ".join(names[i:i + _NAMES_PER_LINE]) for i in range(0, len(names), _NAMES_PER_LINE)]
    return f"\n{indent}".join(lines)


def _spss_format(v: Variable) -> str:
    if not v.numeric:
        return f"A{max(v.width, 1)}"
    return "F12.0" if v.level == SCALE or v.kind == "roster" else "F8.0"


def _spss_value(v: Variable, value: int | str) -> str:
    return str(value) if v.numeric else spss_string(value)


def spss_syntax_write(*, path: Path, survey: Survey, plan: VariablePlan, data_name: str) -> None:
    """Write the SPSS syntax that reads ``data_name`` (the export's data file) with its labels to ``path``."""
    variables = plan.variables
    lines = [
        "* Encoding: UTF-8.",
        f"* {_one_line(survey.title)} ({survey.slug}), survey definition version {plan.definition_version}.",
        f"* Reads {data_name}: run this file from the folder that holds it, or give its full path on /FILE.",
        "* Missing values: " + "; ".join(f"{m.code} = {m.label}" for m in MISSING_CODES) + ".",
        "* Measurement levels: integer questions scale, grid rows ordinal, everything else nominal.",
        "GET DATA",
        "  /TYPE=TXT",
        f"  /FILE={spss_string(data_name)}",
        "  /ENCODING='UTF8'",
        "  /ARRANGEMENT=DELIMITED",
        "  /DELCASE=LINE",
        "  /FIRSTCASE=2",
        '  /DELIMITERS="\\t"',
        "  /VARIABLES=",
        *(f"    {v.name} {_spss_format(v)}" for v in variables),
        ".",
    ]
    strings = [v.name for v in variables if not v.numeric]
    if strings:
        lines += [
            "* The data file writes a tab in a text as \\t, a line break as \\n, a backslash as \\b (see the "
            "codebook): undo it.",
            f"DO REPEAT {_SPSS_STAND_IN} = {_name_lines(strings, '    ')}.",
            *(f"  COMPUTE {_SPSS_STAND_IN} = REPLACE({_SPSS_STAND_IN}, {_spss_literal(written)}, "
              f"{_spss_literal(text)})." for written, text in DATA_ESCAPES),
            "END REPEAT.",
        ]
    lines += [
        "VARIABLE LABELS",
        "\n".join(f"  {'/' if n else ''}{v.name} {spss_string(v.label, max_bytes=SPSS_VARIABLE_LABEL_BYTES)}"
                  for n, v in enumerate(variables)),
        ".",
    ]
    labelled = [v for v in variables if v.value_labels or v.missing]
    if labelled:
        lines.append("VALUE LABELS")
        for n, v in enumerate(labelled):
            pairs = [*v.value_labels, *((m.code if v.numeric else str(m.code), m.label) for m in v.missing)]
            lines.append(f"  {'/' if n else ''}{v.name}")
            lines.extend(f"    {_spss_value(v, value)} {spss_string(label, max_bytes=SPSS_VALUE_LABEL_BYTES)}"
                         for value, label in pairs)
        lines.append(".")
    coded = [v for v in variables if v.missing]
    if coded:
        lines.append("MISSING VALUES")
        lines.extend(f"  {'/' if n else ''}{v.name} ({', '.join(_spss_value(v, m.code) for m in v.missing)})"
                     for n, v in enumerate(coded))
        lines.append(".")
    lines.append("VARIABLE LEVEL")
    groups = [(level, [v.name for v in variables if v.level == level]) for level in (NOMINAL, ORDINAL, SCALE)]
    lines.extend(f"  {'/' if n else ''}{_name_lines(names, '    ')} ({level.upper()})"
                 for n, (level, names) in enumerate(g for g in groups if g[1]))
    lines += [".", "EXECUTE."]
    _write_lines(path, lines)


def stata_syntax_write(*, path: Path, survey: Survey, plan: VariablePlan, data_name: str) -> None:
    """Write the Stata do-file that reads ``data_name`` (the export's data file) with its labels to ``path``."""
    variables = plan.variables
    columns = {kind: " ".join(str(n) for n, v in enumerate(variables, start=1) if v.numeric == (kind == "numeric"))
               for kind in ("numeric", "string")}
    read = [f"import delimited using {stata_string(data_name)}, clear varnames(1) case(preserve)",
            'encoding("utf-8") delimiters("\\t") bindquote(nobind) stripquotes(no)']
    read += [f"{kind}cols({listed})" for kind, listed in columns.items() if listed]
    lines = [
        f"* {_one_line(survey.title)} ({survey.slug}), survey definition version {plan.definition_version}.",
        f"* Reads {data_name}: run this file from the folder that holds it.",
        "* Missing values: " + "; ".join(f"{m.code} -> {m.stata} ({m.label})" for m in MISSING_CODES) + ".",
        "version 14",
        " ///\n    ".join(read),
    ]
    strings = [v.name for v in variables if not v.numeric]
    if strings:
        lines += [
            "* The data file writes a tab in a text as \\t, a line break as \\n, a backslash as \\b (see the "
            "codebook): undo it.",
            f"foreach v of varlist {' '.join(strings)} {{",
            *(f"    quietly replace `v' = subinstr(`v', {_stata_literal(written)}, {_stata_literal(text)}, .)"
              for written, text in DATA_ESCAPES),
            "}",
        ]
    numeric_coded = [v.name for v in variables if v.missing and v.numeric]
    if numeric_coded:
        recode = " \\ ".join(f"{m.code}={m.stata}" for m in MISSING_CODES)
        lines.append(f"mvdecode {' '.join(numeric_coded)}, mv({recode})")
    string_coded = [v.name for v in variables if v.missing and not v.numeric]
    if string_coded:
        codes = ", ".join(f'"{m.code}"' for m in MISSING_CODES)
        lines += [
            "* Stata strings have no extended missing values: the coded cells of string variables are emptied",
            "* here (the data file and the codebook keep the codes).",
            f"foreach v of varlist {' '.join(string_coded)} {{",
            f"    quietly replace `v' = \"\" if inlist(`v', {codes})",
            "}",
        ]
    for v in variables:
        lines.append(f"label variable {v.name} {stata_string(v.label, max_chars=STATA_VARIABLE_LABEL_CHARS)}")
    for v in variables:
        if v.numeric and (v.value_labels or v.missing):
            lines.append(f"capture label drop {v.name}")
            pairs = [*v.value_labels, *((m.stata, m.label) for m in v.missing)]
            lines.extend(f"label define {v.name} {value} {stata_string(label, max_chars=STATA_VALUE_LABEL_CHARS)}, add"
                         for value, label in pairs)
            lines.append(f"label values {v.name} {v.name}")
        elif v.value_labels:
            lines.append(f"* {v.name}: Stata cannot put value labels on strings; its choices' labels are in the "
                         f"codebook.")
    _write_lines(path, lines)


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write("\n".join(lines) + "\n")
