"""What the staff screens' tests share: the staff password of the factories, a roster file's header, and
uploading a roster through the page."""
from django.core.files.uploadedfile import SimpleUploadedFile

PASSWORD = "a long staff passphrase"
HEADER = "external_id,school_code,grade,role,language,display_name\n"


def upload(client, survey, content, name="roster.csv"):
    file = SimpleUploadedFile(name, content.encode() if isinstance(content, str) else content)
    return client.post(f"/staff/surveys/{survey.slug}/rosters/new/", {"file": file}, follow=True)
