"""Completion summaries, moved here from ``respondents`` with their tables.

State only: the tables keep their names (``Meta.db_table``), so nothing is
rebuilt, no row is copied and the PostgreSQL audit trigger stays; a release
still running the old code reads and writes the same tables while this one
rolls out. ``respondents`` 0015 removes the models from its own state and
moves their content types (and so their permissions) here.
"""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('respondents', '0014_export_format_labels'),
        ('surveys', '0004_decimal_kind'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
                migrations.CreateModel(
                    name='CompletionSummary',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('level', models.CharField(choices=[('state', 'State'), ('district', 'District'), ('school', 'School'), ('group', 'Grade and role')], default='group', max_length=10)),
                        ('grade', models.CharField(blank=True, max_length=20)),
                        ('role', models.CharField(blank=True, max_length=10)),
                        ('rostered', models.PositiveIntegerField(default=0, help_text='Not withdrawn.')),
                        ('withdrawn', models.PositiveIntegerField(default=0)),
                        ('not_started', models.PositiveIntegerField(default=0)),
                        ('in_progress', models.PositiveIntegerField(default=0)),
                        ('completed', models.PositiveIntegerField(default=0)),
                        ('pages', models.JSONField(blank=True, default=dict)),
                        ('completions', models.JSONField(blank=True, default=dict)),
                        ('last_activity', models.DateTimeField(blank=True, null=True)),
                        ('refreshed_at', models.DateTimeField()),
                        ('district', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='respondents.district')),
                        ('school', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='respondents.school')),
                        ('survey', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='surveys.survey')),
                    ],
                    options={
                        'db_table': 'respondents_completionsummary',
                        'indexes': [models.Index(fields=['survey', 'level', 'district', 'school'], name='completion_summary_level')],
                    },
                ),
        ]),
    ]
