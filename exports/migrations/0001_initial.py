"""Export jobs, moved here from ``respondents`` with their tables.

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
                    name='ExportJob',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('requested_from', models.CharField(blank=True, max_length=45)),
                        ('format', models.CharField(choices=[('csv', 'CSV'), ('xlsx', 'Excel (XLSX)'), ('spss', 'SPSS (.dat data and .sps syntax)'), ('stata', 'Stata (.dat data and .do file)')], max_length=5)),
                        ('options', models.JSONField(blank=True, default=dict, help_text='ExportOptions as a dict.')),
                        ('status', models.CharField(choices=[('queued', 'Waiting to start'), ('running', 'Exporting'), ('done', 'Ready to download'), ('failed', 'Failed'), ('expired', 'Expired (deleted)')], default='queued', max_length=10)),
                        ('rows_total', models.PositiveIntegerField(default=0)),
                        ('rows_done', models.PositiveIntegerField(default=0)),
                        ('file', models.FileField(blank=True, max_length=300, upload_to='exports/%Y/%m/')),
                        ('size', models.PositiveBigIntegerField(default=0)),
                        ('error', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('expires_at', models.DateTimeField(blank=True, db_index=True, null=True)),
                        ('requested_by', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('survey', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='surveys.survey')),
                    ],
                    options={
                        'db_table': 'respondents_exportjob',
                    },
                    bases=(infra.jobs.JobProgress, models.Model),
                ),
        ]),
    ]
