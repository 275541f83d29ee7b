from django.urls import include, path, register_converter

from staff import single_sign_on
from staff.forms.fields import row_id
from staff.views import (
    accounts,
    exports,
    home,
    monitoring,
    office,
    passwords,
    people,
    places,
    results,
    rosters,
    search,
    slips,
)


class RowIdConverter:
    """``<id:...>``: a row id. A number too large for the id column matches no URL (a 404): looked up, it would
    raise OverflowError on SQLite and DataError on PostgreSQL."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        number = row_id(value)
        if number is None:
            raise ValueError(value)
        return number

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(RowIdConverter, "id")

app_name = "staff"

# Under surveys/<slug:slug>/: a survey's screens, each view taking the survey's ``slug``.
survey_patterns = [
    path("", people.survey_people, name="survey"),
    path("monitoring/", monitoring.survey_monitoring, name="monitoring"),
    path("results/", results.survey_results, name="results"),
    path("results/texts/<str:code>/", results.survey_text_answers, name="results-texts"),
    path("publish/", office.survey_publish, name="survey-publish"),
    path("dates/", office.survey_dates, name="survey-dates"),
    path("close/", office.survey_close, name="survey-close"),
    path("rosters/new/", rosters.roster_new, name="roster-new"),
    path("rosters/<id:roster_id>/", rosters.roster_detail, name="roster"),
    path("rosters/<id:roster_id>/progress/", rosters.roster_progress, name="roster-progress"),
    path("rosters/<id:roster_id>/problems.csv", rosters.roster_problems_csv, name="roster-problems"),
    path("rosters/<id:roster_id>/apply/", rosters.roster_apply, name="roster-apply"),
    path("rosters/<id:roster_id>/discard/", rosters.roster_discard_view, name="roster-discard"),
    path("schools/<str:school_code>/", people.school_people, name="school"),
    path("schools/<str:school_code>/login-limits/<id:hit_id>/lift/", people.school_login_limit_lift,
         name="school-login-limit-lift"),
    path("schools/<str:school_code>/slips.pdf", slips.school_slips_pdf, name="school-slips"),
    path("schools/<str:school_code>/slips/", slips.slips_new, name="slips-new"),
    path("schools/<str:school_code>/codes.csv", slips.school_codes_csv, name="school-codes"),
    path("schools/<str:school_code>/not-finished.pdf", monitoring.school_non_responders, {"format": "pdf"},
         name="school-not-finished-pdf"),
    path("schools/<str:school_code>/not-finished.csv", monitoring.school_non_responders, {"format": "csv"},
         name="school-not-finished-csv"),
    path("slips/<id:job_id>/", slips.slips_detail, name="slips"),
    path("slips/<id:job_id>/progress/", slips.slips_progress, name="slips-progress"),
    path("slips/<id:job_id>/download/", slips.slips_download, name="slips-download"),
    path("people/", search.people_search, name="people"),
    path("people/act/", search.people_act, name="people-act"),
    path("people/kept/<str:token>/", search.people_kept, name="people-kept"),
    path("people/<id:respondent_id>/", people.respondent_detail, name="respondent"),
    path("people/<id:respondent_id>/reissue/", people.respondent_reissue, name="respondent-reissue"),
    path("people/<id:respondent_id>/slip.pdf", slips.respondent_slip_pdf, name="respondent-slip"),
    path("people/withdraw/", search.people_act, {"action": "withdraw"}, name="withdraw"),
    path("people/restore/", search.people_act, {"action": "restore"}, name="restore"),
    path("exports/", exports.exports, name="exports"),
    path("exports/<id:job_id>/", exports.export_detail, name="export"),
    path("exports/<id:job_id>/progress/", exports.export_progress, name="export-progress"),
    path("exports/<id:job_id>/download/", exports.export_download, name="export-download"),
]

urlpatterns = [
    path("", home.home, name="home"),
    path("login/", home.SignInView.as_view(), name="login"),
    path("logout/", single_sign_on.StaffSignOutView.as_view(), name="logout"),
    path("password/reset/", passwords.PasswordResetAskView.as_view(), name="password-reset"),
    path("password/reset/sent/", passwords.PasswordResetSentView.as_view(), name="password-reset-sent"),
    path("password/set/<uidb64>/<token>/", passwords.PasswordSetView.as_view(), name="password-set"),
    path("password/reset/<uidb64>/<token>/", passwords.PasswordResetLinkView.as_view(), name="password-reset-link"),
    path("password/set/done/", passwords.PasswordSetDoneView.as_view(), name="password-set-done"),
    path("sign-on/", single_sign_on.sign_on_start, name="sign-on"),
    path("sign-on/callback/", single_sign_on.sign_on_callback, name="sign-on-callback"),
    # Before surveys/<slug:slug>/, which it would otherwise read as a survey named "import".
    path("surveys/import/", office.survey_import, name="survey-import"),
    path("surveys/<slug:slug>/", include(survey_patterns)),
    path("exports/file/<str:token>/", exports.export_file, name="export-file"),
    path("schools/", office.directory, name="directory"),
    path("places/", places.places, name="places"),
    path("schools/import/", office.directory_import, name="directory-import"),
    path("schools/imports/<id:upload_id>/", office.directory_upload, name="directory-upload"),
    path("schools/imports/<id:upload_id>/apply/", office.directory_upload_apply, name="directory-upload-apply"),
    path("schools/imports/<id:upload_id>/discard/", office.directory_upload_discard, name="directory-upload-discard"),
    path("accounts/", accounts.staff_list, name="staff-list"),
    path("accounts/new/", accounts.staff_edit, name="staff-new"),
    path("accounts/<id:user_id>/", accounts.staff_edit, name="staff-edit"),
    path("accounts/<id:user_id>/sign-on/<id:identity_id>/unlink/", accounts.staff_sign_on_unlink,
         name="staff-sign-on-unlink"),
    path("accounts/deactivate/", accounts.staff_deactivate, name="staff-deactivate"),
    path("accounts/reactivate/", accounts.staff_reactivate, name="staff-reactivate"),
    path("accounts/invite/", accounts.staff_invite, name="staff-invite"),
    path("accounts/<id:user_id>/invite/", accounts.staff_invite, name="staff-invite-one"),
    path("accounts/import/", accounts.staff_import, name="staff-import"),
    path("accounts/imports/<id:upload_id>/", accounts.staff_upload, name="staff-upload"),
    path("accounts/imports/<id:upload_id>/apply/", accounts.staff_upload_apply_view, name="staff-upload-apply"),
    path("accounts/imports/<id:upload_id>/discard/", accounts.staff_upload_discard_view,
         name="staff-upload-discard"),
    path("audit/", office.audit_log, name="audit"),
]
