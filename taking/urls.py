from django.urls import path

from taking import preview, views

# The URL names stay "surveys:login" and the rest: templates, tests and outside tools use them.
app_name = "surveys"

urlpatterns = [
    path("", views.survey_login, name="login"),
    path("logout/", views.survey_logout, name="logout"),
    path("language/", views.survey_switch_language, name="language"),
    path("take/", views.survey_display, name="display"),
    path("take/complete/", views.survey_complete, name="complete"),
    path("take/keep-alive/", views.survey_keep_alive, name="keep-alive"),
    # One URL, two names: GET is survey_content, POST is survey_change_page.
    path("take/page/<int:number>/", views.survey_page, name="content"),
    path("take/page/<int:number>/", views.survey_page, name="change-page"),
    # The survey office's preview of a survey's pages (taking/preview.py), beside the staff area's screens.
    path("staff/surveys/<slug:slug>/preview/", preview.survey_preview, name="preview"),
]
