"""What the export tests share: reading back an XLSX export."""
from openpyxl import load_workbook


def xlsx_rows(path, sheet=None):
    book = load_workbook(path, read_only=True)
    rows = [list(r) for r in (book[sheet] if sheet else book.worksheets[0]).iter_rows(values_only=True)]
    names = book.sheetnames
    book.close()
    return names, [["" if v is None else v for v in row] for row in rows]
