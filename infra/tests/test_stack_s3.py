"""S3 on the live stack: MinIO's buckets over HTTPS (the stack's own authority), media
through django-storages, presigned links that expire, and static files compressed
offline and served from the static bucket, which browsers reach through nginx. No
stand-in: the MinIO and nginx that deploy/stack runs.
"""
import gzip
import json
import os
import re
import ssl
import time
import urllib.error
import urllib.request
import uuid
from html.parser import HTMLParser
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import ClientError
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage, storages

from deploy.tests import stack
from infra.storages import MediaS3Storage

pytestmark = [pytest.mark.stack]

ROOT = Path(__file__).resolve().parents[2]


def s3():
    """A boto3 client with the app's credentials, straight to MinIO (not through django-storages)."""
    return boto3.client("s3", endpoint_url=settings.AWS_S3_ENDPOINT_URL, region_name=settings.AWS_S3_REGION_NAME)


def get(url, headers=None, method="GET", authority=None):
    """Return (status, headers, body as sent) of an anonymous request, as a browser's first visit; HTTPS checked
    against the stack's authority (AWS_CA_BUNDLE), or the file `authority` names."""
    request = urllib.request.Request(url, headers=headers or {}, method=method)
    context = ssl.create_default_context(cafile=authority or os.environ["AWS_CA_BUNDLE"])
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


@pytest.fixture
def media_name():
    """A fresh object name in the media bucket, deleted afterwards."""
    name = f"tests/{uuid.uuid4().hex}.txt"
    yield name
    s3().delete_object(Bucket=settings.AWS_STORAGE_BUCKET_NAME, Key=name)


def test_status_lists_minio_and_up_made_both_buckets():
    assert re.search(rf"^minio\s+\d+\s+{stack.conf()['STACK_MINIO_PORT']}\s+up$", stack.stack("status"), re.M)
    client = s3()
    for bucket in (settings.AWS_STORAGE_BUCKET_NAME, settings.AWS_STATIC_BUCKET_NAME):
        client.head_bucket(Bucket=bucket)
    assert settings.AWS_S3_ENDPOINT_URL == f"https://127.0.0.1:{stack.conf()['STACK_MINIO_PORT']}"
    policy = json.loads(client.get_bucket_policy(Bucket=settings.AWS_STATIC_BUCKET_NAME)["Policy"])
    assert [s["Action"] for s in policy["Statement"]] in (["s3:GetObject"], [["s3:GetObject"]])
    with pytest.raises(ClientError):  # the media bucket has no policy: nothing in it is public
        client.get_bucket_policy(Bucket=settings.AWS_STORAGE_BUCKET_NAME)


def test_a_file_saved_through_default_storage_lands_in_the_private_media_bucket(media_name):
    saved = default_storage.save(media_name, ContentFile(b"respondent_id,status\n1,completed\n"))
    assert saved == media_name
    stored = s3().get_object(Bucket=settings.AWS_STORAGE_BUCKET_NAME, Key=media_name)["Body"].read()
    assert stored == b"respondent_id,status\n1,completed\n"
    # Without a signature nobody may read it, nor list the bucket: at MinIO itself, nor through nginx.
    for address in (settings.AWS_S3_ENDPOINT_URL, settings.AWS_S3_PUBLIC_URL):
        assert get(f"{address}/{settings.AWS_STORAGE_BUCKET_NAME}/{media_name}")[0] == 403
        assert get(f"{address}/{settings.AWS_STORAGE_BUCKET_NAME}/")[0] == 403


def test_minio_speaks_only_https_with_a_certificate_of_the_stacks_authority(tmp_path):
    port = stack.conf()["STACK_MINIO_PORT"]
    # Plain HTTP gets no S3 answer (MinIO answers a TLS alert or a 400 of its own, never an object).
    try:
        status = get(f"http://127.0.0.1:{port}/{settings.AWS_STATIC_BUCKET_NAME}/")[0]
    except (urllib.error.URLError, ConnectionError):
        status = None
    assert status in (None, 400)
    # A client that trusts only the system's authorities refuses MinIO's certificate ...
    system = ssl.get_default_verify_paths().cafile or "/etc/ssl/certs/ca-certificates.crt"
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
        get(f"{settings.AWS_S3_ENDPOINT_URL}/minio/health/ready", authority=system)
    # ... and one that trusts the stack's authority takes it, for the name MinIO is reached by.
    assert get(f"{settings.AWS_S3_ENDPOINT_URL}/minio/health/ready")[0] == 200
    assert get(f"https://localhost:{port}/minio/health/ready")[0] == 200


def test_nginx_passes_only_reads_to_the_object_store(media_name):
    key = f"{settings.AWS_S3_PUBLIC_URL}/{settings.AWS_STATIC_BUCKET_NAME}/{media_name}"
    for method in ("PUT", "DELETE", "POST"):
        assert get(key, method=method)[0] == 403, method
    assert get(f"{settings.AWS_S3_PUBLIC_URL}/{settings.AWS_STATIC_BUCKET_NAME}/{media_name}")[0] in (403, 404)


def test_saving_the_same_name_twice_keeps_both_files(media_name):
    first = default_storage.save(media_name, ContentFile(b"one"))
    second = default_storage.save(media_name, ContentFile(b"two"))
    try:
        assert first != second and default_storage.open(first).read() == b"one"
    finally:
        default_storage.delete(second)


def test_a_presigned_link_downloads_and_one_past_its_expiry_is_refused(media_name):
    default_storage.save(media_name, ContentFile(b"export"))
    url = default_storage.url(media_name)
    # Signed for MinIO, named at nginx's address (the one browsers reach), which passes it on with MinIO's Host.
    assert url.startswith(f"http://127.0.0.1:{stack.conf()['STACK_NGINX_PORT']}/{settings.AWS_STORAGE_BUCKET_NAME}/")
    assert f"X-Amz-Expires={settings.EXPORT_LINK_SECONDS}" in url
    assert get(url)[:3:2] == (200, b"export")
    # The same link at MinIO itself works too; with its signature changed, at neither.
    direct = settings.AWS_S3_ENDPOINT_URL + url[len(settings.AWS_S3_PUBLIC_URL):]
    assert get(direct)[:3:2] == (200, b"export")
    assert get(url.replace("X-Amz-Signature=", "X-Amz-Signature=0"))[0] == 403

    short_lived = MediaS3Storage(**{**storages.backends["default"]["OPTIONS"], "querystring_expire": 1})
    expiring = short_lived.url(media_name)
    time.sleep(2.5)
    status, _, body = get(expiring)
    assert status == 403 and b"expired" in body.lower()


class Assets(HTMLParser):
    def __init__(self):
        super().__init__()
        self.css, self.js = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and attrs.get("rel") == "stylesheet":
            self.css.append(attrs["href"])
        elif tag == "script" and attrs.get("src"):
            self.js.append(attrs["src"])


@pytest.fixture
def respondent_page():
    """The survey page a demo respondent gets from nginx: (headers, HTML)."""
    output = stack.stack("manage", "seed_demo", "--show", "1")
    code = re.findall(r"^  ([2-9A-Z]{5}-[2-9A-Z]{5})$", output, re.M)[0]
    web = stack.WebClient()
    status, _, _ = web.post_form("/", {"access_code": code})
    assert status == 302
    status, headers, html = web.request("GET", "/take/")
    assert status == 200 and "survey-page" in html
    return headers, html


def test_the_respondent_page_links_one_compressed_css_and_js_on_the_static_bucket(respondent_page):
    headers, html = respondent_page
    assets = Assets()
    assets.feed(html)
    static = settings.STATIC_URL
    assert static == f"{settings.AWS_S3_PUBLIC_URL}/{settings.AWS_STATIC_BUCKET_NAME}/"
    assert len(assets.css) == 1 and re.fullmatch(re.escape(static) + r"CACHE/css/output\.[0-9a-f]{12}\.css", assets.css[0])
    assert len(assets.js) == 1 and re.fullmatch(re.escape(static) + r"CACHE/js/output\.[0-9a-f]{12}\.js", assets.js[0])
    assert re.search(r'<script src="[^"]+" defer>', html)  # compressor keeps defer

    sources = {"css": (ROOT / "taking/static/taking/survey.css").read_text(),
               # The bundle: survey.js's modules and survey.js itself (taking/templates/taking/take.html).
               "js": "".join(path.read_text() for path in [*sorted((ROOT / "taking/static/taking/survey").glob("*.js")),
                                                            ROOT / "taking/static/taking/survey.js"])}
    for kind, url in (("css", assets.css[0]), ("js", assets.js[0])):
        status, response_headers, sent = get(url, {"Accept-Encoding": "gzip"})
        assert status == 200, url
        assert response_headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert response_headers.get("Content-Encoding") == "gzip"
        text = gzip.decompress(sent).decode()
        assert len(text) < len(sources[kind]) * 0.85  # minified: no comments, no indentation
        assert "/*" not in text and "\n    " not in text
        assert ("survey-form" in text) if kind == "js" else (".skip-link" in text)

    # The page itself keeps its headers, and its policy allows the static bucket and nothing more.
    assert headers["X-Frame-Options"] == "DENY"
    directives = dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))
    for directive in ("script-src", "style-src"):
        assert directives[directive].split() == ["'self'", static]
    assert "unsafe-inline" not in headers["Content-Security-Policy"]


def test_the_static_bucket_serves_objects_to_anyone_but_lists_nothing():
    assert get(f"{settings.STATIC_URL}")[0] == 403
    manifest = json.loads((Path(settings.STATIC_ROOT) / "staticfiles.json").read_text())
    hashed = manifest["paths"]["taking/survey.css"]
    assert re.fullmatch(r"taking/survey\.[0-9a-f]{12}\.css", hashed)
    status, headers, _ = get(settings.STATIC_URL + hashed)
    assert status == 200 and "immutable" in headers["Cache-Control"]


def test_with_minio_stopped_the_survey_page_still_renders_and_links_its_files():
    stack.stack("stop", "minio")
    try:
        with pytest.raises(urllib.error.URLError):  # nothing listens on MinIO's port
            get(f"{settings.AWS_S3_ENDPOINT_URL}/minio/health/ready")
        assert get(settings.STATIC_URL + "CACHE/manifest.json")[0] == 502  # nginx cannot reach it either
        output = stack.stack("manage", "seed_demo", "--show", "1")
        code = re.findall(r"^  ([2-9A-Z]{5}-[2-9A-Z]{5})$", output, re.M)[0]
        web = stack.WebClient()
        assert web.post_form("/", {"access_code": code})[0] == 302
        status, _, html = web.request("GET", "/take/")
        assert status == 200 and re.search(re.escape(settings.STATIC_URL) + r"CACHE/js/output\.[0-9a-f]{12}\.js", html)
    finally:
        stack.stack("start", "minio")


@pytest.mark.django_db
def test_an_export_lands_in_the_media_bucket_and_its_presigned_link_works_then_expires(client, settings):
    """The staff area's export on the stack: written by the task (in-process here) into MinIO, downloaded through
    the presigned URL the download view redirects to, refused by MinIO once EXPORT_LINK_SECONDS have passed."""
    import io
    import zipfile

    from accounts.models import StaffMember
    from exports.models import ExportJob
    from respondents.tests.factories import make_respondents, make_school, make_staff
    from surveys.tests.factories import make_survey

    survey = make_survey(slug=f"s3-export-{uuid.uuid4().hex[:8]}")
    make_respondents(survey, 3, school=make_school("S3S", "Bucket school"), grade="7")
    client.force_login(make_staff(StaffMember.Role.ANALYST))
    response = client.post(f"/staff/surveys/{survey.slug}/exports/", {
        "format": "stata", "answers": "values", "multiple": "joined", "roster_fields": ["school_code", "grade"]})
    assert response.status_code == 302
    job = ExportJob.objects.get(survey=survey)
    assert job.status == ExportJob.Status.DONE, job.error
    try:
        stored = s3().head_object(Bucket=settings.AWS_STORAGE_BUCKET_NAME, Key=job.file.name)
        assert stored["ContentLength"] == job.size
        link = client.get(f"/staff/surveys/{survey.slug}/exports/{job.pk}/download/")
        assert link.status_code == 302 and link.url.startswith(settings.AWS_S3_PUBLIC_URL + "/")
        assert "X-Amz-Expires=300" in link.url
        status, headers, body = get(link.url)
        assert status == 200 and "attachment" in headers["Content-Disposition"]
        assert sorted(zipfile.ZipFile(io.BytesIO(body)).namelist()) == [
            f"{survey.slug}-codebook.xlsx", f"{survey.slug}.dat", f"{survey.slug}.do"]
        # A link that lives a few seconds: MinIO refuses it after. (The signature's
        # time has whole seconds, so a one-second link may be dead on arrival: CI saw it.)
        short = job.file.storage.url(job.file.name, expire=5)
        assert get(short)[0] == 200
        time.sleep(6.5)
        assert get(short)[0] == 403
    finally:
        job.file.delete(save=False)
