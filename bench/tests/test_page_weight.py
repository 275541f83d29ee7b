"""Page weight's counts (bench/page_weight.py): the stylesheets and scripts a page names, and the bytes of each
request as sent and as read, from canned responses."""
import gzip
import io
import urllib.error
import urllib.response
from email.message import Message

import pytest

from bench import page_weight

PAGE = b"""<!doctype html><html><head>
<link rel="stylesheet" href="/static/survey.css">
<link rel="preload stylesheet" href="https://static.example.org/bucket/print.css" as="style">
<link rel="icon" href="/static/favicon.ico">
<link rel="stylesheet">
<script>var inline = 1;</script>
<script src="../static/survey.js" defer></script>
</head><body><main id="survey-page">the questions</main></body></html>"""
CSS = b"body { color: black; }\n" * 40


def response(url, body, *, status=200, gzipped=False):
    headers = Message()
    if gzipped:
        headers["Content-Encoding"] = "gzip"
        body = gzip.compress(body)
    headers["Cache-Control"] = "max-age=31536000, immutable"
    return urllib.response.addinfourl(io.BytesIO(body), headers, url, status)


class CannedOpener:
    """Answers each URL with its canned response; records the Accept-Encoding each request sent."""

    def __init__(self, answers):
        self.answers, self.accepted = answers, []

    def open(self, request, timeout):
        self.accepted.append(request.get_header("Accept-encoding"))
        answer = self.answers[request.full_url]
        if answer.status >= 400:
            raise urllib.error.HTTPError(request.full_url, answer.status, "refused", answer.headers, answer)
        return answer


def test_the_page_s_stylesheets_and_scripts_are_found_in_document_order_and_nothing_else():
    parser = page_weight.Assets()
    parser.feed(PAGE.decode())
    assert parser.urls == [("css", "/static/survey.css"), ("css", "https://static.example.org/bucket/print.css"),
                           ("js", "../static/survey.js")]


def test_each_request_counts_what_was_sent_and_what_it_decodes_to_resolved_against_the_page():
    page_url = "http://127.0.0.1:28080/take/"
    opener = CannedOpener({
        page_url: response(page_url, PAGE, gzipped=True),
        "http://127.0.0.1:28080/static/survey.css": response("survey.css", CSS, gzipped=True),
        "https://static.example.org/bucket/print.css": response("print.css", b"@media print {}"),
        "http://127.0.0.1:28080/static/survey.js": response("survey.js", b"x", status=404),
    })
    rows = page_weight.page_and_assets(opener, page_url, "ABCDE-FGHJK")
    assert [(kind, url, status) for kind, url, status, *_ in rows] == [
        ("html", page_url, 200), ("css", "http://127.0.0.1:28080/static/survey.css", 200),
        ("css", "https://static.example.org/bucket/print.css", 200), ("js", "http://127.0.0.1:28080/static/survey.js", 404)]
    assert opener.accepted == ["gzip"] * 4  # as browsers ask
    html, css = rows[0], rows[1]
    assert html[5] == PAGE and len(html[4]) == len(gzip.compress(PAGE)) < len(PAGE)
    assert css[5] == CSS and len(css[4]) < len(CSS) and css[3]["Content-Encoding"] == "gzip"

    totals = page_weight.weight(rows)
    raw = len(PAGE) + len(CSS) + len(b"@media print {}") + 1
    sent = len(gzip.compress(PAGE)) + len(gzip.compress(CSS)) + len(b"@media print {}") + 1
    assert totals == {"requests": 4, "raw_bytes": raw, "transferred_bytes": sent,
                      "static_requests": 3, "static_raw_bytes": raw - len(PAGE),
                      "static_transferred_bytes": sent - len(gzip.compress(PAGE))}
    assert page_weight.requests(rows)[1] == {
        "kind": "css", "url": "http://127.0.0.1:28080/static/survey.css", "status": 200, "raw_bytes": len(CSS),
        "transferred_bytes": len(gzip.compress(CSS)), "content_encoding": "gzip",
        "cache_control": "max-age=31536000, immutable"}
    assert page_weight.requests(rows)[2]["content_encoding"] is None


def test_a_login_that_does_not_lead_to_the_survey_page_stops_the_tool():
    page_url = "http://127.0.0.1:28080/take/"
    opener = CannedOpener({page_url: response(page_url, b"<form>Enter your access code</form>")})
    with pytest.raises(SystemExit, match="logging in with ABCDE-FGHJK did not lead to a survey page"):
        page_weight.page_and_assets(opener, page_url, "ABCDE-FGHJK")
