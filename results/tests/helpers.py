"""What several results test modules share: answers given through the respondent pages."""
from respondents.tests.factories import login, save_page


def answered(client, person, *pages):
    """Log ``client`` in as ``person`` and save each of ``pages`` ((number, {"q-code": value}), ...) with Next, as
    the survey page does; log out."""
    login(client, person)
    for number, answers in pages:
        response = save_page(client, number, answers)
        assert response.json()["saved"], response.content
    client.post("/logout/")
