"""Staff members and the audit log, moved here from ``respondents`` with their tables.

State only: the tables keep their names (``Meta.db_table``), so nothing is
rebuilt, no row is copied and the PostgreSQL audit trigger stays; a release
still running the old code reads and writes the same tables while this one
rolls out. ``respondents`` 0015 removes the models from its own state and
moves their content types (and so their permissions) here.
"""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('respondents', '0014_export_format_labels'),
        ('surveys', '0004_decimal_kind'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
                migrations.CreateModel(
                    name='AuditEntry',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('at', models.DateTimeField(db_index=True)),
                        ('username', models.CharField(blank=True, max_length=150)),
                        ('action', models.CharField(choices=[('sign_in', 'Signed in'), ('sign_in_failed', 'Sign-in failed'), ('sign_out', 'Signed out'), ('schools_imported', 'School directory imported'), ('roster_checked', 'Roster checked (dry run)'), ('roster_applied', 'Roster applied'), ('slips_printed', 'Code slips printed'), ('codes_downloaded', 'Codes downloaded'), ('code_reissued', 'Code reissued'), ('withdrawn', 'Respondent withdrawn'), ('restored', 'Respondent restored'), ('staff_changed', 'Staff account changed'), ('export_requested', 'Export requested'), ('export_downloaded', 'Export downloaded'), ('survey_loaded', 'Survey loaded'), ('survey_revised', 'Survey given a new version'), ('survey_published', 'Survey published'), ('roster_discarded', 'Roster discarded'), ('codes_shown', 'Codes shown on a page'), ('admin_changed', 'Changed in /admin/'), ('survey_dates', 'Survey opening or closing time changed')], max_length=20)),
                        ('address', models.CharField(blank=True, max_length=45)),
                        ('detail', models.TextField(blank=True)),
                        ('school', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='respondents.school')),
                        ('survey', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='surveys.survey')),
                        ('user', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'verbose_name_plural': 'audit entries',
                        'db_table': 'respondents_auditentry',
                        'ordering': ['-at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='StaffMember',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('role', models.CharField(choices=[('state_admin', 'State administrator'), ('district', 'District coordinator'), ('school', 'School coordinator'), ('analyst', 'Analyst')], max_length=12)),
                        ('districts', models.ManyToManyField(blank=True, related_name='+', to='respondents.district')),
                        ('schools', models.ManyToManyField(blank=True, related_name='+', to='respondents.school')),
                        ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='staff_member', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'respondents_staffmember',
                    },
                ),
        ]),
    ]
