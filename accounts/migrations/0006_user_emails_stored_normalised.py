"""Store every user's email in the one normal form it is compared in (accounts/emails.py): existing accounts typed
in any case ("Lee@Agency.Example") are found as those entered since. An address that cannot be normalised (no
address at all, or with characters standing for other letters) is left as it is: nothing matches it."""
from django.conf import settings
from django.db import migrations

from accounts.emails import email_normal_or_as_given


def normalise(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    changed = []
    for user in User.objects.exclude(email="").only("pk", "email").iterator(chunk_size=2000):
        email = email_normal_or_as_given(user.email)
        if email != user.email:
            user.email = email
            changed.append(user)
    User.objects.bulk_update(changed, ["email"], batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0005_audit_actions_of_issue_33"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(normalise, migrations.RunPython.noop, elidable=True),
    ]
