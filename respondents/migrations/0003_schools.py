"""Districts and schools; a respondent's school becomes a foreign key.

The free-text schools of existing respondents become schools of one district,
``PRE-DIRECTORY`` ("Schools named before the directory"), each with a code made
from its name (``OLD-0001`` and on, in name order). Importing the real
directory afterwards adds the real codes; staff move respondents from there.
"""
import django.db.models.deletion
from django.db import migrations, models

LEGACY_DISTRICT = ("PRE-DIRECTORY", "Schools named before the directory")


def free_text_to_schools(apps, schema_editor):
    Respondent = apps.get_model("respondents", "Respondent")
    District = apps.get_model("respondents", "District")
    School = apps.get_model("respondents", "School")
    names = sorted(set(Respondent.objects.exclude(school_name="").values_list("school_name", flat=True)))
    if not names:
        return
    district = District.objects.create(code=LEGACY_DISTRICT[0], name=LEGACY_DISTRICT[1])
    for number, name in enumerate(names, start=1):
        school = School.objects.create(code=f"OLD-{number:04d}", name=name[:200], district=district)
        Respondent.objects.filter(school_name=name).update(school=school)


def schools_to_free_text(apps, schema_editor):
    Respondent = apps.get_model("respondents", "Respondent")
    for respondent in Respondent.objects.exclude(school=None).select_related("school"):
        Respondent.objects.filter(pk=respondent.pk).update(school_name=respondent.school.name)


class Migration(migrations.Migration):
    dependencies = [
        ("respondents", "0002_page_save_log"),
    ]

    operations = [
        migrations.CreateModel(
            name="District",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("code", models.CharField(max_length=20, unique=True)),
                ("name", models.CharField(max_length=200)),
            ],
            options={"ordering": ["code"]},
        ),
        migrations.CreateModel(
            name="School",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("code", models.CharField(max_length=20, unique=True)),
                ("name", models.CharField(max_length=200)),
                ("district", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="schools",
                                               to="respondents.district")),
            ],
            options={"ordering": ["code"]},
        ),
        migrations.RenameField(model_name="respondent", old_name="school", new_name="school_name"),
        migrations.AddField(
            model_name="respondent",
            name="school",
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name="respondents", to="respondents.school"),
        ),
        migrations.RunPython(free_text_to_schools, schools_to_free_text),
        migrations.RemoveField(model_name="respondent", name="school_name"),
    ]
