"""The staff area's settings checks (staff/checks.py): the addresses its emails and slips print, the reset links'
lifetime."""
from django.core import checks


def errors(*ids):
    return sorted((message.id, message.msg) for message in checks.run_checks() if message.id in ids)


def test_the_default_settings_pass():
    assert not errors("staff.E002", "staff.E003", "staff.E004")


def test_an_empty_or_relative_address_stops_the_app_at_its_checks(settings):
    settings.SURVEY_PUBLIC_URL, settings.STAFF_SITE_URL = "", "survey.example.org"
    [(staff, staff_message), (survey, survey_message)] = errors("staff.E002", "staff.E003")
    assert (staff, survey) == ("staff.E002", "staff.E003")
    assert staff_message.startswith("STAFF_SITE_URL is 'survey.example.org': it must be the staff area's address")
    assert survey_message.startswith("SURVEY_PUBLIC_URL is '': it must be the respondents' login page")
    settings.SURVEY_PUBLIC_URL, settings.STAFF_SITE_URL = "ftp://survey.example.org/", "https://"
    assert [error for error, _ in errors("staff.E002", "staff.E003")] == ["staff.E002", "staff.E003"]
    settings.SURVEY_PUBLIC_URL, settings.STAFF_SITE_URL = "https://survey.example.org/", "https://staff.example.org"
    assert not errors("staff.E002", "staff.E003")


def test_a_reset_link_may_not_outlive_a_set_your_password_link(settings):
    settings.PASSWORD_RESET_LINK_SECONDS = settings.PASSWORD_RESET_TIMEOUT + 1
    [(_, message)] = errors("staff.E004")
    assert "give from 1 to PASSWORD_RESET_TIMEOUT" in message
    settings.PASSWORD_RESET_LINK_SECONDS = 0
    assert errors("staff.E004")
    settings.PASSWORD_RESET_LINK_SECONDS = settings.PASSWORD_RESET_TIMEOUT
    assert not errors("staff.E004")
