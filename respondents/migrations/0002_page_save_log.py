import django.db.models.deletion
from django.db import migrations, models

# A respondent's last save_id becomes a row of the log, so that a replay of it
# that arrives after the deploy is still recognised. Its page and nav were not
# kept: current_page and the response's status are the best that is known.
CARRY_LAST_SAVE_IDS = """
    INSERT INTO respondents_pagesave (respondent_id, save_id, page, nav, next_page, completed, answer_count, saved_at)
    SELECT id, last_save_id, current_page,
           CASE WHEN status = 'completed' THEN 'finish' ELSE 'next' END,
           current_page, status = 'completed', 0, COALESCE(last_saved_at, CURRENT_TIMESTAMP)
    FROM respondents_respondent
    WHERE last_save_id IS NOT NULL
"""


class Migration(migrations.Migration):

    dependencies = [
        ('respondents', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='PageSave',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('save_id', models.UUIDField()),
                ('page', models.PositiveSmallIntegerField()),
                ('nav', models.CharField(choices=[('back', 'Back'), ('next', 'Next'), ('finish', 'Finish')], max_length=6)),
                ('next_page', models.PositiveSmallIntegerField()),
                ('completed', models.BooleanField(default=False, help_text='This save completed the response.')),
                ('answer_count', models.PositiveSmallIntegerField()),
                ('saved_at', models.DateTimeField()),
                ('respondent', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='page_saves', to='respondents.respondent')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('respondent', 'save_id'), name='page_save_once_per_save_id')],
            },
        ),
        migrations.RunSQL(CARRY_LAST_SAVE_IDS, migrations.RunSQL.noop),
        migrations.RemoveField(
            model_name='respondent',
            name='last_save_id',
        ),
    ]
