"""The one-box stack's identity provider, set up: a Keycloak realm and the confidential client the app signs staff in
through (OpenID Connect's authorisation code flow). Keycloak keeps its data in memory on the stack, so deploy/stack
runs this at each start; it changes nothing that is already as asked:

    python deploy/keycloak_realm.py KEYCLOAK_URL REALM --admin-password-file F --client-secret-file F \\
        --redirect 'http://127.0.0.1:*' [--redirect ...]

``KeycloakAdmin`` is also what the tests use to make the provider's users (a staff member as the agency knows them).
Standard library only: it runs before anything else is installed.
"""
import argparse
import json
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

CLIENT_ID = "survey-staff"


class KeycloakAdmin:
    """Keycloak's admin REST API, as the bootstrap administrator of the master realm."""

    def __init__(self, url: str, admin_password: str, *, admin: str = "admin") -> None:
        self.url = url.rstrip("/")
        form = urllib.parse.urlencode({"grant_type": "password", "client_id": "admin-cli", "username": admin,
                                       "password": admin_password}).encode()
        with urllib.request.urlopen(f"{self.url}/realms/master/protocol/openid-connect/token", form, timeout=30) as r:
            self.token = json.load(r)["access_token"]

    def call(self, method: str, path: str, body: object = None) -> Any:  # noqa: ANN401 - the API's decoded JSON
        request = urllib.request.Request(
            f"{self.url}/admin/realms{path}", method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
        return json.loads(text) if text else None

    def realm_ensure(self, realm: str, *, client_secret: str, redirects: list[str]) -> None:
        """Make the realm and its client for the app unless they are there; set the client's secret and redirects."""
        try:
            self.call("GET", f"/{realm}")
        except urllib.error.HTTPError as error:
            if error.code != 404:
                raise
            self.call("POST", "", {"realm": realm, "enabled": True, "displayName": "Survey office (stand-in)",
                                   "loginWithEmailAllowed": True, "duplicateEmailsAllowed": False,
                                   "bruteForceProtected": True})
        client = {"clientId": CLIENT_ID, "name": "Survey staff area", "enabled": True, "protocol": "openid-connect",
                  "publicClient": False, "secret": client_secret, "standardFlowEnabled": True,
                  "directAccessGrantsEnabled": False, "implicitFlowEnabled": False, "redirectUris": redirects,
                  "webOrigins": [], "attributes": {"pkce.code.challenge.method": "S256",
                                                  # Back to the app after signing out: the redirect URIs' rule.
                                                  "post.logout.redirect.uris": "+"}}
        found = self.call("GET", f"/{realm}/clients?clientId={CLIENT_ID}")
        if found:
            self.call("PUT", f"/{realm}/clients/{found[0]['id']}", {**found[0], **client})
        else:
            self.call("POST", f"/{realm}/clients", client)

    def user_create(self, realm: str, *, username: str, email: str, password: str, first_name: str = "",
                    last_name: str = "", email_verified: bool = True) -> str:
        """Make a user of the realm who can sign in with ``password``; return their id (the ``sub`` claim)."""
        self.call("POST", f"/{realm}/users", {
            "username": username, "email": email, "firstName": first_name, "lastName": last_name, "enabled": True,
            "emailVerified": email_verified, "requiredActions": [],
            "credentials": [{"type": "password", "value": password, "temporary": False}]})
        return self.call("GET", f"/{realm}/users?exact=true&username={urllib.parse.quote(username)}")[0]["id"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url")
    parser.add_argument("realm")
    parser.add_argument("--admin-password-file", type=Path, required=True)
    parser.add_argument("--client-secret-file", type=Path, required=True)
    parser.add_argument("--redirect", action="append", required=True,
                        help="a redirect URI the client accepts (a trailing * is a prefix)")
    args = parser.parse_args()
    admin = KeycloakAdmin(args.url, args.admin_password_file.read_text().strip())
    admin.realm_ensure(args.realm, client_secret=args.client_secret_file.read_text().strip(), redirects=args.redirect)
    print(f"realm {args.realm}: client {CLIENT_ID}")


if __name__ == "__main__":
    main()
