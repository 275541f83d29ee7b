"""How an export writes a cell, where the codebook and the syntax files must say the same: the escapes of a text in
the SPSS and Stata data file (why: ``docs/architecture.md``, "Response exports") and which columns hold numbers only."""
from exports.variables import Variable
from fileformats.tables import NUMBER

# The escapes of a text in the SPSS and Stata data file, (as written, the text), in the order the syntax files undo
# them: the backslash's last (each backslash in the file starts a pair, so no pair is read across two).
DATA_ESCAPES = (("\\t", "\t"), ("\\n", "\n"), ("\\r", "\r"), ("\\=", "="), ("\\+", "+"), ("\\-", "-"),
                ("\\@", "@"), ('\\"', '"'), ("\\b", "\\"))
_DATA_INSIDE = str.maketrans({"\\": "\\b", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
_DATA_FIRST = frozenset("=+-@\"")


def data_text(text: str) -> str:
    """Return ``text`` as the SPSS and Stata data file holds it: on one line, without a tab, and starting with
    nothing a spreadsheet runs."""
    if "\\" in text or "\t" in text or "\n" in text or "\r" in text:  # seldom: translate costs more than looking
        text = text.translate(_DATA_INSIDE)
    if text[:1] in _DATA_FIRST and not NUMBER.match(text):
        return "\\" + text
    return text


def writes_numbers(v: Variable, *, statistics: bool, typed: bool, labels: bool) -> bool:
    """Whether the cells of ``v`` hold numbers only: in the SPSS/Stata data, or in XLSX (``typed``) unless they
    hold choice labels. A missing answer there is a code or an empty cell, never text."""
    return v.numeric and (statistics or (typed and not (labels and v.choices and v.choice_value is None)))
