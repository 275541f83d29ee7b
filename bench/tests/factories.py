"""Test data for the bench's tools: JMeter's results files."""
import csv


def jtl(path, rows):
    """Write a JMeter results file: rows of (timeStamp ms, elapsed ms, label, responseCode, success, code, page)."""
    with open(path, "w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["timeStamp", "elapsed", "label", "responseCode", "success", "code", "page"])
        writer.writerows(rows)
    return path
