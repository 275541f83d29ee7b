"""The Django admin's view of respondents."""
import re

import pytest
from django.contrib.auth.models import User

from respondents.tests.factories import login, save_page

pytestmark = pytest.mark.django_db


def test_a_respondents_page_lists_its_saves_and_offers_no_way_to_change_them(client, respondent):
    taker = client.__class__()
    login(taker, respondent)
    save_page(taker, 1, {"q-colour": "red"})
    save_page(taker, 2, {}, nav="back")
    admin = User.objects.create_superuser("admin", "admin@example.org", "pw")
    client.force_login(admin)
    html = client.get(f"/admin/respondents/respondent/{respondent.pk}/change/").content.decode()
    assert 'id="page_saves-1"' in html and 'id="page_saves-2"' not in html
    navs = re.findall(r'<td class="field-nav">\s*<p>(\w+)</p>', html)
    assert navs[:2] == ["Next", "Back"]
    assert 'name="page_saves-0-DELETE"' not in html and 'name="page_saves-0-page"' not in html
    assert 'name="page_saves-MAX_NUM_FORMS" value="0"' in html
