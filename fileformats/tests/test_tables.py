"""Reading uploaded tables: hostile XLSX and CSV files are refused with a message naming the limit, or read as
they should be; values come out as openpyxl's read-only mode gave them. (Memory and time: `make fuzz-uploads`.)"""
import datetime
import io
import re
import zipfile

import pytest
from openpyxl import Workbook
from openpyxl.worksheet.formula import ArrayFormula

from fileformats import tables as tabular
from fileformats.tables import TableError, open_table
from rosters.directory import COLUMNS
from rosters.importing import OPTIONAL, REQUIRED

MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
SHEET = "xl/worksheets/sheet1.xml"


def roster(path):
    return open_table(path, required=REQUIRED, optional=OPTIONAL, max_bytes=200_000_000)


def read(path, columns=(*REQUIRED, *OPTIONAL)):
    table = open_table(path, required=columns[:2], optional=columns[2:], max_bytes=200_000_000)
    return list(table.rows)


def xlsx(path, rows=(("external_id", "school_code"), ("s1", "LIN")), *, parts=None, compression=None):
    """A workbook saved by openpyxl, with ``parts`` replaced or added: {name: bytes}, or {name: function of the
    part's text, returning its new text}."""
    book = Workbook()
    for values in rows:
        book.active.append(values)
    saved = io.BytesIO()
    book.save(saved)
    with zipfile.ZipFile(saved) as original, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as changed:
        for info in original.infolist():
            data = original.read(info)
            replacement = (parts or {}).get(info.filename)
            if callable(replacement):
                data = replacement(data.decode()).encode()
            elif replacement is not None:
                data = replacement
            changed.writestr(info.filename, data, compress_type=(compression or {}).get(info.filename))
        for name, data in (parts or {}).items():
            if name not in original.NameToInfo:
                changed.writestr(name, data)
    return path


def sheet(rows_xml, dimension=""):
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<worksheet {MAIN}>{dimension}<sheetData>{rows_xml}'
            f'</sheetData></worksheet>').encode()


def inline(reference, text):
    return f'<c r="{reference}" t="inlineStr"><is><t>{text}</t></is></c>'


HEADER_ROW = f'<row r="1">{inline("A1", "external_id")}{inline("B1", "school_code")}</row>'


def person(number, external_id="s1"):
    return f'<row r="{number}">{inline(f"A{number}", external_id)}{inline(f"B{number}", "LIN")}</row>'


# ---------------------------------------------------------------- XLSX: the sheet

def test_a_sheet_declaring_column_xfd_and_one_row_far_down_is_read_without_padding(tmp_path):
    path = xlsx(tmp_path / "r.xlsx", parts={SHEET: sheet(HEADER_ROW + person(8000), '<dimension ref="A1:XFD8000"/>')})
    table = roster(path)
    assert table.columns == REQUIRED and table.rows_expected == 7999
    assert list(table.rows) == [(8000, {"external_id": "s1", "school_code": "LIN"})]


def test_rows_past_the_sheets_declared_dimension_are_read_too(tmp_path):
    rows = HEADER_ROW + person(2, "s1") + person(3, "s2") + person(4, "s3")
    path = xlsx(tmp_path / "r.xlsx", parts={SHEET: sheet(rows, '<dimension ref="A1:B2"/>')})
    assert [record["external_id"] for _, record in read(path, REQUIRED)] == ["s1", "s2", "s3"]


def test_a_row_numbered_past_the_last_row_of_a_sheet_is_refused(tmp_path):
    path = xlsx(tmp_path / "r.xlsx", parts={SHEET: sheet(HEADER_ROW + person(1_048_577))})
    with pytest.raises(TableError, match="row numbered 1,048,577, past the last row of a sheet"):
        read(path)


def test_cells_read_as_openpyxl_read_them_and_an_array_formula_is_a_formula(tmp_path):
    path = tmp_path / "r.xlsx"
    book = Workbook()
    sheet_ = book.active
    sheet_.append(["External ID", " school_code ", "grade", "role", "language", "display_name", "Notes"])
    sheet_.append([1203, 7.0, datetime.date(2020, 1, 2), True, "  es ", "=1+2", "ignored"])
    sheet_.append([None, None, None, None, None, None, "only a note"])
    sheet_.append([12.5, "LIN", datetime.datetime(2020, 1, 2, 3, 4, 5), 45000, "x005F_a", None])
    sheet_["D4"].number_format = "yyyy-mm-dd"
    sheet_["A5"] = "s5"
    sheet_["C5"] = ArrayFormula("C5", "=SUM(A2:A3)")
    book.save(path)
    rows = read(path)
    assert rows == [
        (2, {"external_id": "1203", "school_code": "7", "grade": "2020-01-02", "role": "True", "language": "es",
             "display_name": "=1+2"}),
        (3, {"external_id": "", "school_code": "", "grade": "", "role": "", "language": "", "display_name": ""}),
        (4, {"external_id": "12.5", "school_code": "LIN", "grade": "2020-01-02T03:04:05", "role": "2023-03-15",
             "language": "x005F_a", "display_name": ""}),
        (5, {"external_id": "s5", "school_code": "", "grade": "=SUM(A2:A3)", "role": "", "language": "",
             "display_name": ""}),
    ]


def test_a_workbook_whose_first_sheet_is_a_chart_reads_its_first_worksheet(tmp_path):
    path = tmp_path / "r.xlsx"
    book = Workbook()
    book.active.append(["external_id", "school_code"])
    book.active.append(["s1", "LIN"])
    book.create_chartsheet("chart", 0)
    book.save(path)
    assert read(path, REQUIRED) == [(2, {"external_id": "s1", "school_code": "LIN"})]


# ---------------------------------------------------------------- XLSX: shared texts

def shared_texts(path, count, text="a", change=None):
    """A workbook whose header's texts are shared, as Excel saves them, then ``count`` times ``text``."""
    texts = f'<sst {MAIN}><si><t>external_id</t></si><si><t>school_code</t></si>{f"<si><t>{text}</t></si>" * count}' \
            f'</sst>'
    kind = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
    relationship = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"
    header = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
    return xlsx(path, parts={
        "[Content_Types].xml": lambda text: text.replace(
            "</Types>", f'<Override PartName="/xl/sharedStrings.xml" ContentType="{kind}"/></Types>'),
        "xl/_rels/workbook.xml.rels": lambda text: text.replace(
            "</Relationships>", f'<Relationship Id="rIdS" Type="{relationship}" Target="sharedStrings.xml"/>'
                                f'</Relationships>'),
        SHEET: sheet(header + person(2)),
        "xl/sharedStrings.xml": (change or (lambda text: text))(texts).encode()})


def test_a_workbook_of_many_repeated_shared_texts_is_read(tmp_path):
    path = shared_texts(tmp_path / "r.xlsx", 200_000)
    assert read(path, REQUIRED) == [(2, {"external_id": "s1", "school_code": "LIN"})]


@pytest.mark.parametrize("limit, value, count, says", [
    ("XLSX_STRINGS_MAX_BYTES", 100_000, 10_000, "The workbook's table of shared texts is 0.3 MB unpacked; the largest "
                                                "accepted is 0.1 MB. Save the sheet as CSV"),
    ("XLSX_STRINGS_MAX", 1_000, 1_000, "The workbook holds more different texts than the 1,000 accepted."),
])
def test_shared_texts_past_their_limits_are_refused_naming_the_limit(tmp_path, monkeypatch, limit, value, count,
                                                                      says):
    monkeypatch.setattr(tabular, limit, value)
    with pytest.raises(TableError, match=re.escape(says)):
        read(shared_texts(tmp_path / "r.xlsx", count, "some text"))


def test_damaged_shared_texts_get_one_clear_message(tmp_path):
    path = shared_texts(tmp_path / "r.xlsx", 10, change=lambda text: text.replace("</sst>", "</sst><sst>"))
    with pytest.raises(TableError, match=re.escape("The workbook is damaged: xl/sharedStrings.xml is not well-formed "
                                                   "XML (junk after document element at line 1, column")):
        read(path)


# ---------------------------------------------------------------- XLSX: the ZIP and the XML

def test_a_workbook_whose_table_of_contents_is_over_a_megabyte_is_refused(tmp_path):
    path = xlsx(tmp_path / "r.xlsx")
    with zipfile.ZipFile(path, "a") as archive:
        for n in range(25_000):
            archive.writestr(f"xl/media/image{n:05d}.png", b"")
    with pytest.raises(TableError, match=r"table of contents is 1\.\d MB; the largest accepted is 1\.0 MB"):
        read(path)


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_part_compressed_otherwise_than_excel_does_is_refused(tmp_path, method):
    path = xlsx(tmp_path / "r.xlsx", compression={SHEET: method})
    with pytest.raises(TableError, match=f"The workbook's part {SHEET} is encrypted or compressed in a way Excel "
                                         "does not write"):
        read(path)


@pytest.mark.parametrize("rows_xml, says", [
    (HEADER_ROW + "<!-- a comment -->" + person(2), "holds a DTD, a comment or a processing instruction"),
    (HEADER_ROW + "<?pi something?>" + person(2), "holds a DTD, a comment or a processing instruction"),
    (HEADER_ROW + "<row r=\"2\">" + "<x>" * 100 + "</x>" * 100 + "</row>", "nests its elements more than 64 deep"),
    (HEADER_ROW + f'<row r="2">{inline("A2", "x" * 1_100_000)}</row>', "holds a cell or a tag longer than 1.0 MB"),
    (HEADER_ROW + f'<row r="2"><c r="A2" s="1" t="inlineStr" x="{">" * 1_100_000}"/></row>',
     "holds a cell or a tag longer than 1.0 MB"),
])
def test_xml_excel_never_writes_or_that_expat_would_hold_whole_is_refused(tmp_path, rows_xml, says):
    path = xlsx(tmp_path / "r.xlsx", parts={SHEET: sheet(rows_xml)})
    with pytest.raises(TableError, match=re.escape(says)):
        read(path)


def test_a_dtd_is_refused(tmp_path):
    doctype = '<?xml version="1.0"?>\n<!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa">]>'
    path = xlsx(tmp_path / "r.xlsx", parts={SHEET: sheet(HEADER_ROW).replace(b'<?xml version="1.0" encoding='
                                                                           b'"UTF-8"?>', doctype.encode())})
    with pytest.raises(TableError, match="holds a DTD, a comment or a processing instruction"):
        read(path)


@pytest.mark.parametrize("part, change, says", [
    ("[Content_Types].xml", lambda text: text[:150], "The workbook is damaged: [Content_Types].xml is not "
                                                     "well-formed XML"),
    ("xl/workbook.xml", lambda text: text.replace("</workbook>", ""), "The workbook is damaged: xl/workbook.xml"),
    ("[Content_Types].xml", lambda text: text.replace("sheet.main+xml", "nothing+xml"),
     "This is not a CSV or XLSX file: it is a ZIP archive that is not an XLSX workbook (it names no workbook)."),
    ("xl/_rels/workbook.xml.rels", lambda text: text.replace("worksheets/sheet1.xml", "nowhere.xml"),
     "The workbook has no sheet."),
])
def test_a_damaged_workbook_gets_one_clear_message(tmp_path, part, change, says):
    path = xlsx(tmp_path / "d.xlsx", rows=[COLUMNS, ["D1", "North", "S1", "Alpha"]], parts={part: change})
    with pytest.raises(TableError, match=re.escape(says)):
        read(path, COLUMNS)


@pytest.mark.parametrize("row_xml, says", [
    ('<row r="3"><c r="A3" t="s"><v>99</v></c></row>', "cell A3 of the first sheet cannot be read"),
    ('<row r="3"><c r="A3"><v>1x</v></c></row>', "cell A3 of the first sheet cannot be read"),
    ('<row r="x"><c r="A2"><v>1</v></c></row>', "a row of the first sheet is numbered 'x'"),
    ('<row r="3"><c r="A3"><v>1</v></c></row><row r="4"><c r="A4"><v>1</v></c>', "is not well-formed XML"),
])
def test_a_sheet_damaged_below_its_header_is_refused_when_read_to_there(tmp_path, row_xml, says):
    path = xlsx(tmp_path / "r.xlsx", parts={SHEET: sheet(HEADER_ROW + person(2) + row_xml)})
    with pytest.raises(TableError, match=says):
        read(path)


# ---------------------------------------------------------------- CSV

def test_a_csv_header_of_twenty_thousand_columns_is_read(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(",".join([*REQUIRED, *(f"extra_{n}" for n in range(20_000))]) + "\ns1,LIN\n")
    table = roster(path)
    assert len(table.ignored_columns) == 20_000 and list(table.rows) == [
        (2, {"external_id": "s1", "school_code": "LIN"})]


def test_a_header_naming_many_columns_twice_names_the_first_ten(tmp_path):
    path = tmp_path / "r.csv"
    names = [f"c{n:04d}" for n in range(5_000)]
    path.write_text(",".join([*REQUIRED, *names, *names]) + "\ns1,LIN\n")
    with pytest.raises(TableError, match=r"more than once: c0000, c0001, .*, c0009 and 4,990 more\.$"):
        roster(path)


def test_a_short_file_of_quotes_and_commas_is_refused_at_once(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(',"' * 16_384)
    with pytest.raises(TableError, match="The header names a column more than once"):
        roster(path)


def test_a_csv_line_longer_than_a_million_characters_is_refused(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("external_id,school_code\ns1,LIN" + "," * 1_100_000 + "\n")
    with pytest.raises(TableError, match="Line 2 of the file is longer than 1,048,576 characters"):
        list(roster(path).rows)


def test_quotes_doubled_in_a_quoted_cell_are_read_wherever_the_first_quoted_cell_is(tmp_path):
    path = tmp_path / "r.csv"
    people = "".join(f"s{n},LIN,Person {n}\n" for n in range(4_000))  # more than csv.Sniffer's 64 KB sample
    path.write_text("external_id,school_code,display_name\n" + people + 's9999,LIN,"Smith, ""Bo"""\n')
    assert read(path)[-1] == (4_002, {"external_id": "s9999", "school_code": "LIN", "display_name": 'Smith, "Bo"'})


@pytest.mark.parametrize("text", [
    "external_id;school_code;display_name\ns1;LIN;Ann, Bob, Cy\n",
    "external_id\tschool_code\tdisplay_name\ns1\tLIN\tAnn, Bob; Cy\n",
    'external_id, school_code, display_name\ns1, LIN, "Ann, Bob"\n',
])
def test_the_delimiter_is_the_one_that_splits_the_header(tmp_path, text):
    path = tmp_path / "r.csv"
    path.write_text(text)
    assert read(path)[0][1]["display_name"] in ("Ann, Bob, Cy", "Ann, Bob; Cy", "Ann, Bob")


def test_a_time_in_a_downloaded_file_is_iso_8601_in_the_deployment_s_zone_with_its_offset_to_the_second(settings):
    settings.TIME_ZONE = "America/Chicago"
    utc = datetime.timezone.utc
    assert tabular.moment_text(datetime.datetime(2026, 12, 2, 15, 15, 0, 700_000, tzinfo=utc)) == (
        "2026-12-02T09:15:00-06:00")
    assert tabular.moment_text(datetime.datetime(2026, 7, 1, 14, 0, tzinfo=utc)) == "2026-07-01T09:00:00-05:00"
    assert tabular.moment_text(None) == ""
