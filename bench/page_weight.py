"""What a respondent's browser downloads for one survey page, through the running stack (`make page-weight`).

    manage.py bench page_weight [--base http://127.0.0.1:28080] [--code ABCDE-FGHJK] [--json FILE]

Logs in with an access code (a fresh demo code from `deploy/stack manage seed_demo`
when none is given), fetches the survey page (/take/), then every stylesheet
(<link rel=stylesheet href>) and script (<script src>) it names, wherever they
are served from (nginx's /static/, or the S3 static bucket). Each request says
``Accept-Encoding: gzip``, as browsers do. Prints one line per request and the
totals: requests, raw bytes (decoded), bytes transferred (the body as sent,
gzip-compressed where the server compressed it). A first visit: nothing cached.
"""
import argparse
import gzip
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from email.message import Message
from html.parser import HTMLParser
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

from bench import stack

# A request of the page's (``page_and_assets``): kind, URL, status, headers, the body as sent, the body decoded.
Row = tuple[str, str, int, Message, bytes, bytes]


class Assets(HTMLParser):
    """Collect the stylesheet and script URLs of a page, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        href, src = values.get("href"), values.get("src")
        if tag == "link" and "stylesheet" in (values.get("rel") or "").split() and href:
            self.urls.append(("css", href))
        elif tag == "script" and src:
            self.urls.append(("js", src))


def demo_code() -> str:
    """Return an unused demo access code from the stack's own database (seeding the demo survey once)."""
    output = stack.manage("seed_demo", "--show", "1")
    return re.findall(r"^  ([2-9A-Z]{5}-[2-9A-Z]{5})$", output, re.M)[0]


def fetch(opener: urllib.request.OpenerDirector, url: str, data: Mapping[str, str | None] | None = None,
          headers: Mapping[str, str] | None = None) -> tuple[int, Message, bytes, bytes]:
    """Return (status, headers, body as sent, body decoded)."""
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    request = urllib.request.Request(url, data=body, headers={"Accept-Encoding": "gzip", **(headers or {})})
    try:
        response = opener.open(request, timeout=15)
    except urllib.error.HTTPError as error:
        response = error
    with response:
        sent = response.read()
        decoded = gzip.decompress(sent) if response.headers.get("Content-Encoding") == "gzip" else sent
        return response.status, response.headers, sent, decoded


def measure(base: str, code: str) -> list[Row]:
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    fetch(opener, base + "/")  # the CSRF cookie
    token = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
    status, _, _, _ = fetch(opener, base + "/", data={"csrfmiddlewaretoken": token, "access_code": code},
                            headers={"Referer": base + "/"})
    return page_and_assets(opener, base + "/take/", code)


def page_and_assets(opener: urllib.request.OpenerDirector, page_url: str, code: str) -> list[Row]:
    """Fetch the survey page and every stylesheet and script it names; return a row a request:
    (kind, url, status, headers, body as sent, body decoded)."""
    status, headers, sent, decoded = fetch(opener, page_url)
    if status != 200 or b"survey-page" not in decoded:
        sys.exit(f"page-weight: logging in with {code} did not lead to a survey page ({status})")
    rows: list[Row] = [("html", page_url, status, headers, sent, decoded)]
    parser = Assets()
    parser.feed(decoded.decode("utf-8"))
    for kind, url in parser.urls:
        absolute = urllib.parse.urljoin(page_url, url)
        status, headers, sent, decoded = fetch(opener, absolute)
        rows.append((kind, absolute, status, headers, sent, decoded))
    return rows


def weight(rows: list[Row]) -> dict[str, int]:
    """Return the totals of ``measure``'s rows: requests, raw (decoded) and transferred bytes, of the whole page and
    of its static files (every row but the first, the page itself)."""
    return {"requests": len(rows), "raw_bytes": sum(len(r[5]) for r in rows),
            "transferred_bytes": sum(len(r[4]) for r in rows),
            "static_requests": len(rows) - 1, "static_raw_bytes": sum(len(r[5]) for r in rows[1:]),
            "static_transferred_bytes": sum(len(r[4]) for r in rows[1:])}


def requests(rows: list[Row]) -> list[dict[str, Any]]:
    """Return each of ``measure``'s rows as the JSON file gives it."""
    return [{"kind": k, "url": u, "status": s, "raw_bytes": len(d), "transferred_bytes": len(b),
             "content_encoding": h.get("Content-Encoding"), "cache_control": h.get("Cache-Control")}
            for k, u, s, h, b, d in rows]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default=None, help="the app's address (default: the stack's nginx)")
    parser.add_argument("--code", default=None, help="an unused access code (default: a fresh demo code)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    base = args.base
    if base is None:
        base = f"http://127.0.0.1:{stack.nginx_port()}"
    rows = measure(base.rstrip("/"), args.code or demo_code())
    print(f"{'kind':<5} {'status':>6} {'raw B':>8} {'sent B':>8} {'encoding':<8} cache-control / url")
    for kind, url, status, headers, sent, decoded in rows:
        print(f"{kind:<5} {status:>6} {len(decoded):>8} {len(sent):>8} {headers.get('Content-Encoding') or '-':<8} "
              f"{headers.get('Cache-Control') or '-'}\n{'':<38}{url}")
    totals = weight(rows)
    print(f"total: {totals['requests']} requests, {totals['raw_bytes']} B raw, {totals['transferred_bytes']} B transferred"
          f" (static: {totals['static_requests']} requests, {totals['static_raw_bytes']} B raw,"
          f" {totals['static_transferred_bytes']} B transferred)")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"totals": totals, "requests": requests(rows)}, indent=2) + "\n")
    if any(r[2] != 200 for r in rows):
        sys.exit("page-weight: a request did not answer 200")

