"""Who a request comes from (infra/clients.py): only the hops our own proxies add are believed."""

import pytest
from django.test import RequestFactory

from infra.clients import client_ip

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("proxies, forwarded, expected", [
    (0, "", "10.0.0.9"),
    (0, "203.0.113.7", "10.0.0.9"),            # no proxy of ours: a client's header is not believed
    (1, "203.0.113.7", "203.0.113.7"),         # nginx appended the real address
    (1, "1.2.3.4, 203.0.113.7", "203.0.113.7"),  # what the client wrote itself comes first and is ignored
    (2, "1.2.3.4, 203.0.113.7, 10.1.1.1", "203.0.113.7"),
    (1, "", "10.0.0.9"),
])
def test_the_client_address_trusts_only_the_hops_our_own_proxies_add(settings, proxies, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = proxies
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected
