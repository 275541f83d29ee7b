"""Rosters, exports, monitoring and staff accounts leave ``respondents`` for apps of their own (rosters, exports,
monitoring, accounts), with their tables: the other apps' 0001 add the models to their state under the same
``db_table``; this migration drops them from ``respondents``' state and moves their content types, so that their
permissions (and /admin/'s history of them) follow. No table, column, index, constraint or trigger changes.
"""
from django.db import migrations, models
import django.db.models.deletion

MOVED = {
    "directoryupload": "rosters", "roster": "rosters", "rosterrow": "rosters", "rosterproblem": "rosters",
    "slipsjob": "rosters", "exportjob": "exports", "completionsummary": "monitoring",
    "staffmember": "accounts", "auditentry": "accounts",
}


def content_types_follow(apps, schema_editor, forward=True):
    """Give each moved model's content type its new app label (or back), unless one is there already (a
    ``migrate`` run with the new code before this migration made it): that one stays, the old one is left for
    ``manage.py remove_stale_contenttypes``."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    for model, app in MOVED.items():
        old, new = ("respondents", app) if forward else (app, "respondents")
        if not ContentType.objects.using(db).filter(app_label=new, model=model).exists():
            ContentType.objects.using(db).filter(app_label=old, model=model).update(app_label=new)


def content_types_back(apps, schema_editor):
    content_types_follow(apps, schema_editor, forward=False)


class Migration(migrations.Migration):

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("respondents", "0014_export_format_labels"),
        ("accounts", "0001_initial"),
        ("exports", "0001_initial"),
        ("monitoring", "0001_initial"),
        ("rosters", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name="respondent",
                name="roster",
                field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                        related_name="respondents", to="rosters.roster"),
            ),
            migrations.DeleteModel(name="RosterRow"),
            migrations.DeleteModel(name="RosterProblem"),
            migrations.DeleteModel(name="SlipsJob"),
            migrations.DeleteModel(name="Roster"),
            migrations.DeleteModel(name="DirectoryUpload"),
            migrations.DeleteModel(name="ExportJob"),
            migrations.DeleteModel(name="CompletionSummary"),
            migrations.DeleteModel(name="StaffMember"),
            migrations.DeleteModel(name="AuditEntry"),
        ]),
        migrations.RunPython(content_types_follow, content_types_back, elidable=False),
    ]
