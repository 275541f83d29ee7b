# The audit actions issue 33 added: a respondent login limit lifted, a single sign-on link removed, an old address told of an email change, text answers read.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_staff_name_and_uploads'),
    ]

    operations = [
        migrations.AlterField(
            model_name='auditentry',
            name='action',
            field=models.CharField(choices=[('sign_in', 'Signed in'), ('sign_in_failed', 'Sign-in failed'), ('sign_out', 'Signed out'), ('schools_imported', 'School directory imported'), ('roster_checked', 'Roster checked (dry run)'), ('roster_applied', 'Roster applied'), ('slips_printed', 'Code slips printed'), ('codes_downloaded', 'Codes downloaded'), ('code_reissued', 'Code reissued'), ('withdrawn', 'Respondent withdrawn'), ('restored', 'Respondent restored'), ('staff_changed', 'Staff account changed'), ('export_requested', 'Export requested'), ('export_downloaded', 'Export downloaded'), ('survey_loaded', 'Survey loaded'), ('survey_revised', 'Survey given a new version'), ('survey_published', 'Survey published'), ('roster_discarded', 'Roster discarded'), ('codes_shown', 'Codes shown on a page'), ('admin_changed', 'Changed in /admin/'), ('survey_dates', 'Survey opening or closing time changed'), ('staff_import_checked', 'Staff file checked (dry run)'), ('staff_imported', 'Staff file applied'), ('password_mail_sent', 'Set-your-password email sent'), ('password_reset_asked', 'Password reset asked for'), ('password_set', 'Password set from an emailed link'), ('sign_on_unlinked', 'Single sign-on link removed'), ('email_change_told', 'Old address told of an email change'), ('login_limit_lifted', 'Respondent login limit lifted'), ('text_answers_read', 'Text answers read')], max_length=20),
        ),
    ]
