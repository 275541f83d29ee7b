"""Roster and directory uploads, their rows and problems, slip jobs, moved here from ``respondents`` with their tables.

State only: the tables keep their names (``Meta.db_table``), so nothing is
rebuilt, no row is copied and the PostgreSQL audit trigger stays; a release
still running the old code reads and writes the same tables while this one
rolls out. ``respondents`` 0015 removes the models from its own state and
moves their content types (and so their permissions) here.
"""
import infra.jobs
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
                    name='DirectoryUpload',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('uploaded_from', models.CharField(blank=True, max_length=45)),
                        ('source_filename', models.CharField(blank=True, max_length=255)),
                        ('described', models.CharField(blank=True, help_text='The file as read: CSV (UTF-8), XLSX.', max_length=40)),
                        ('status', models.CharField(choices=[('checked', 'Checked: ready to apply'), ('refused', 'Not applied: the file has problems'), ('applied', 'Applied'), ('discarded', 'Discarded: not applied')], max_length=10)),
                        ('district_rows', models.JSONField(blank=True, default=dict)),
                        ('school_rows', models.JSONField(blank=True, default=dict)),
                        ('counts', models.JSONField(blank=True, default=dict)),
                        ('problem_list', models.JSONField(blank=True, default=list)),
                        ('note', models.TextField(blank=True)),
                        ('checked_at', models.DateTimeField(blank=True, null=True)),
                        ('applied_at', models.DateTimeField(blank=True, null=True)),
                        ('uploaded_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'respondents_directoryupload',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='Roster',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200)),
                        ('source_filename', models.CharField(blank=True, max_length=255)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('uploaded_from', models.CharField(blank=True, help_text="The uploader's address, for the audit log.", max_length=45)),
                        ('status', models.CharField(choices=[('checking', 'Checking the file'), ('checked', 'Checked: ready to apply'), ('refused', 'Not applied: the file has problems'), ('applying', 'Applying'), ('applied', 'Applied'), ('failed', 'Failed: nothing was applied'), ('discarded', 'Discarded: not applied')], default='applied', max_length=10)),
                        ('file', models.FileField(blank=True, upload_to='rosters/%Y/%m/')),
                        ('described', models.CharField(blank=True, help_text='The file as read: CSV (UTF-8), XLSX.', max_length=40)),
                        ('columns', models.JSONField(blank=True, default=list)),
                        ('rows_expected', models.PositiveIntegerField(default=0)),
                        ('rows_read', models.PositiveIntegerField(default=0)),
                        ('problem_count', models.PositiveIntegerField(default=0)),
                        ('counts', models.JSONField(blank=True, default=list)),
                        ('error', models.TextField(blank=True)),
                        ('checked_at', models.DateTimeField(blank=True, null=True)),
                        ('applied_at', models.DateTimeField(blank=True, null=True)),
                        ('survey', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='rosters', to='surveys.survey')),
                        ('uploaded_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'respondents_roster',
                        'ordering': ['survey_id', 'created_at'],
                    },
                ),
                migrations.CreateModel(
                    name='SlipsJob',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('grade', models.CharField(blank=True, help_text='None: the whole school.', max_length=20, null=True)),
                        ('requested_from', models.CharField(blank=True, max_length=45)),
                        ('status', models.CharField(choices=[('queued', 'Waiting to start'), ('running', 'Printing'), ('done', 'Ready to download'), ('failed', 'Failed')], default='queued', max_length=10)),
                        ('slips_total', models.PositiveIntegerField(default=0)),
                        ('slips_done', models.PositiveIntegerField(default=0)),
                        ('file', models.FileField(blank=True, upload_to='slips/%Y/%m/')),
                        ('error', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('requested_by', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('school', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='respondents.school')),
                        ('survey', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='surveys.survey')),
                    ],
                    options={
                        'db_table': 'respondents_slipsjob',
                    },
                    bases=(infra.jobs.JobProgress, models.Model),
                ),
                migrations.CreateModel(
                    name='RosterProblem',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('row', models.PositiveIntegerField()),
                        ('column', models.CharField(blank=True, max_length=40)),
                        ('value', models.CharField(blank=True, max_length=200)),
                        ('reason', models.CharField(max_length=300)),
                        ('roster', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='problems', to='rosters.roster')),
                    ],
                    options={
                        'db_table': 'respondents_rosterproblem',
                        'ordering': ['roster_id', 'row', 'id'],
                        'indexes': [models.Index(fields=['roster', 'row'], name='roster_problem_row')],
                    },
                ),
                migrations.CreateModel(
                    name='RosterRow',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('row', models.PositiveIntegerField()),
                        ('external_id', models.CharField(max_length=100)),
                        ('grade', models.CharField(blank=True, max_length=20)),
                        ('role', models.CharField(blank=True, max_length=10)),
                        ('language', models.CharField(blank=True, max_length=10)),
                        ('display_name', models.CharField(blank=True, max_length=200)),
                        ('access_code', models.CharField(max_length=10)),
                        ('roster', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='rows', to='rosters.roster')),
                        ('school', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='respondents.school')),
                    ],
                    options={
                        'db_table': 'respondents_rosterrow',
                        'indexes': [models.Index(fields=['roster', 'external_id'], name='roster_row_external_id')],
                    },
                ),
        ]),
    ]
