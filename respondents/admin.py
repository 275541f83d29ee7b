from django.contrib import admin

from respondents.models import Respondent, Roster


@admin.register(Roster)
class RosterAdmin(admin.ModelAdmin):
    list_display = ["name", "survey", "created_at"]
    list_filter = ["survey"]


@admin.register(Respondent)
class RespondentAdmin(admin.ModelAdmin):
    list_display = ["__str__", "survey", "school", "grade", "role", "status", "current_page", "completed_at"]
    list_filter = ["survey", "status", "role"]
    search_fields = ["external_id", "access_code", "school"]
    readonly_fields = ["access_code", "last_save_id", "started_at", "last_saved_at", "completed_at"]
