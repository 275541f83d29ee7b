"""Malformed requests get a clear 4xx, never a 500, and save nothing (infra/request_guard.py, infra/errors.py)."""
import io
import uuid

import pytest
from django.conf import settings

from respondents.models import Answer, PageSave

pytestmark = pytest.mark.django_db

AJAX = {"X-Requested-With": "XMLHttpRequest"}
FORM = "application/x-www-form-urlencoded"


def body(**fields):
    data = {"save_id": str(uuid.uuid4()), "nav": "next", "q-colour": "red", **fields}
    return "&".join(f"{k}={v}" for k, v in data.items()).encode()


@pytest.mark.parametrize("charset", ["latin-1", "utf-16", "cp1252", "nonsense", "utf-32"])
@pytest.mark.parametrize("path", ["/", "/take/page/1/"])
def test_a_form_in_another_charset_is_refused_with_400_and_saves_nothing(taker, path, charset):
    content_type = f"{FORM}; charset={charset}"
    page = taker.generic("POST", path, body(), content_type=content_type)
    ajax = taker.generic("POST", path, body(), content_type=content_type, headers=AJAX)
    assert page.status_code == ajax.status_code == 400
    assert "forms must be sent as UTF-8" in page.content.decode()
    assert ajax.json()["saved"] is False and "UTF-8" in ajax.json()["errors"]["__all__"][0]
    assert not Answer.objects.exists() and not PageSave.objects.exists()


@pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8", "us-ascii", '"utf-8"'])
def test_utf8_and_ascii_spelled_any_usual_way_are_accepted(taker, charset):
    response = taker.generic("POST", "/take/page/1/", body(), content_type=f"{FORM}; charset={charset}", headers=AJAX)
    assert response.status_code == 200 and response.json()["saved"] is True


def wsgi(environ_extra, body_bytes=b""):
    """Call the WSGI application gunicorn runs, as a server would; return (status, headers, body)."""
    from config.wsgi import application

    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": "/take/page/1/", "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body_bytes),
        "wsgi.errors": io.StringIO(), "CONTENT_LENGTH": str(len(body_bytes)), "HTTP_HOST": "127.0.0.1",
        **environ_extra,
    }
    seen = {}

    def start_response(status, headers, exc_info=None):
        seen.update(status=status, headers=dict(headers))

    content = b"".join(application(environ, start_response))
    return seen["status"], seen["headers"], content


@pytest.mark.parametrize("charset", ["hex", "base64", "zlib", "utf-16"])
def test_a_charset_that_breaks_decoding_the_query_string_is_a_400_through_the_wsgi_application(charset):
    # Django's own WSGIRequest raises for these while it is being built, before any middleware.
    status, headers, content = wsgi(
        {"CONTENT_TYPE": f"{FORM}; charset={charset}", "QUERY_STRING": "a=b&c", "HTTP_X_REQUESTED_WITH": "XMLHttpRequest"},
        body(),
    )
    assert status.startswith("400") and headers["Content-Type"] == "application/json"
    assert b"UTF-8" in content


def test_a_body_over_the_limit_is_a_413_with_a_message_the_page_can_show(taker):
    big = body(**{"q-nickname": "x" * settings.REQUEST_BODY_MAX_BYTES})
    ajax = taker.generic("POST", "/take/page/1/", big, content_type=FORM, headers=AJAX)
    page = taker.generic("POST", "/take/page/1/", big, content_type=FORM)
    assert ajax.status_code == page.status_code == 413
    assert "Shorten your longest answers" in ajax.json()["errors"]["__all__"][0]
    assert "Too much to send at once" in page.content.decode()
    assert not Answer.objects.exists()


def test_a_body_just_under_the_limit_reaches_the_form(taker):
    padding = settings.REQUEST_BODY_MAX_BYTES - len(body(**{"q-nickname": ""})) - 10
    response = taker.generic("POST", "/take/page/1/", body(**{"q-nickname": "x" * padding}), content_type=FORM, headers=AJAX)
    assert response.status_code == 400 and "q-nickname" in response.json()["errors"]  # too long for the question


@pytest.mark.parametrize("length", ["abc", "-5", "1e3"])
def test_a_malformed_content_length_is_a_400(length):
    status, headers, _ = wsgi({"CONTENT_TYPE": FORM, "CONTENT_LENGTH": length, "HTTP_X_REQUESTED_WITH": "XMLHttpRequest"})
    assert status.startswith("400") and headers["Content-Type"] == "application/json"


def test_too_many_fields_is_a_400_in_json_for_ajax(taker):
    fields = "&".join(f"x{n}=1" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    response = taker.generic("POST", "/take/page/1/", fields.encode(), content_type=FORM, headers=AJAX)
    assert response.status_code == 400 and response.json()["saved"] is False


def test_a_broken_multipart_body_is_a_400(taker):
    response = taker.generic(
        "POST", "/take/page/1/", b"--nope\r\nContent-Disposition: form-data\r\n\r\nx",
        content_type="multipart/form-data; boundary=", headers=AJAX,
    )
    assert response.status_code == 400 and response.json()["saved"] is False


def test_an_unknown_address_is_a_404_page_and_json_for_ajax(client):
    assert client.get("/no/such/place/").status_code == 404
    response = client.get("/no/such/place/", headers=AJAX)
    assert response.status_code == 404 and response.json()["errors"]["__all__"]


@pytest.mark.parametrize("path", ["/?grade=%00", "/take/page/1/?x=a%00b", "/staff/schools/?q=%00"])
def test_a_nul_character_in_the_query_string_is_answered_400_before_any_view(client, path):
    assert client.get(path).status_code == 400
