"""Reading and writing the files staff upload and download: CSV and XLSX tables, workbook bounds, PDF text."""
