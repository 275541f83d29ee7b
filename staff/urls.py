from django.contrib.auth import views as auth_views
from django.urls import path, register_converter

from staff import views
from staff.forms import row_id


class RowIdConverter:
    """``<id:...>``: a row id. A number too large for the id column matches no URL (a 404): looked up, it would
    raise OverflowError on SQLite and DataError on PostgreSQL."""

    regex = "[0-9]+"

    def to_python(self, value):
        number = row_id(value)
        if number is None:
            raise ValueError(value)
        return number

    def to_url(self, value):
        return str(value)


register_converter(RowIdConverter, "id")

app_name = "staff"

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", views.SignInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="staff:login"), name="logout"),
    # Before surveys/<slug>/, which it would otherwise read as a survey named "import".
    path("surveys/import/", views.survey_import, name="survey-import"),
    path("surveys/<slug:slug>/", views.survey_people, name="survey"),
    path("surveys/<slug:slug>/monitoring/", views.survey_monitoring, name="monitoring"),
    path("surveys/<slug:slug>/rosters/new/", views.roster_new, name="roster-new"),
    path("surveys/<slug:slug>/rosters/<id:roster_id>/", views.roster_detail, name="roster"),
    path("surveys/<slug:slug>/rosters/<id:roster_id>/progress/", views.roster_progress, name="roster-progress"),
    path("surveys/<slug:slug>/rosters/<id:roster_id>/problems.csv", views.roster_problems_csv,
         name="roster-problems"),
    path("surveys/<slug:slug>/rosters/<id:roster_id>/apply/", views.roster_apply, name="roster-apply"),
    path("surveys/<slug:slug>/rosters/<id:roster_id>/discard/", views.roster_discard_view, name="roster-discard"),
    path("surveys/<slug:slug>/schools/<str:school_code>/", views.school_people, name="school"),
    path("surveys/<slug:slug>/schools/<str:school_code>/slips.pdf", views.school_slips_pdf, name="school-slips"),
    path("surveys/<slug:slug>/schools/<str:school_code>/slips/", views.slips_new, name="slips-new"),
    path("surveys/<slug:slug>/slips/<id:job_id>/", views.slips_detail, name="slips"),
    path("surveys/<slug:slug>/slips/<id:job_id>/progress/", views.slips_progress, name="slips-progress"),
    path("surveys/<slug:slug>/slips/<id:job_id>/download/", views.slips_download, name="slips-download"),
    path("surveys/<slug:slug>/schools/<str:school_code>/not-finished.pdf", views.school_non_responders,
         {"format": "pdf"}, name="school-not-finished-pdf"),
    path("surveys/<slug:slug>/schools/<str:school_code>/not-finished.csv", views.school_non_responders,
         {"format": "csv"}, name="school-not-finished-csv"),
    path("surveys/<slug:slug>/schools/<str:school_code>/codes.csv", views.school_codes_csv, name="school-codes"),
    path("surveys/<slug:slug>/people/<id:respondent_id>/", views.respondent_detail, name="respondent"),
    path("surveys/<slug:slug>/people/<id:respondent_id>/reissue/", views.respondent_reissue,
         name="respondent-reissue"),
    path("surveys/<slug:slug>/people/<id:respondent_id>/slip.pdf", views.respondent_slip_pdf,
         name="respondent-slip"),
    path("surveys/<slug:slug>/people/withdraw/", views.respondents_withdraw, name="withdraw"),
    path("surveys/<slug:slug>/people/restore/", views.respondents_restore, name="restore"),
    path("surveys/<slug:slug>/exports/", views.exports, name="exports"),
    path("surveys/<slug:slug>/exports/<id:job_id>/", views.export_detail, name="export"),
    path("surveys/<slug:slug>/exports/<id:job_id>/progress/", views.export_progress, name="export-progress"),
    path("surveys/<slug:slug>/exports/<id:job_id>/download/", views.export_download, name="export-download"),
    path("exports/file/<str:token>/", views.export_file, name="export-file"),
    path("schools/", views.directory, name="directory"),
    path("schools/import/", views.directory_import, name="directory-import"),
    path("schools/imports/<id:upload_id>/", views.directory_upload, name="directory-upload"),
    path("schools/imports/<id:upload_id>/apply/", views.directory_upload_apply, name="directory-upload-apply"),
    path("schools/imports/<id:upload_id>/discard/", views.directory_upload_discard, name="directory-upload-discard"),
    path("surveys/<slug:slug>/publish/", views.survey_publish, name="survey-publish"),
    path("surveys/<slug:slug>/dates/", views.survey_dates, name="survey-dates"),
    path("surveys/<slug:slug>/close/", views.survey_close, name="survey-close"),
    path("accounts/", views.staff_list, name="staff-list"),
    path("accounts/new/", views.staff_edit, name="staff-new"),
    path("accounts/<id:user_id>/", views.staff_edit, name="staff-edit"),
    path("audit/", views.audit_log, name="audit"),
]
