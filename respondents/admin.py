from django.contrib import admin

from respondents.models import PageSave, Respondent


class PageSaveInline(admin.TabularInline):
    """The respondent's page saves, oldest first: an audit trail, so nothing here can be changed."""

    model = PageSave
    fields = readonly_fields = ("saved_at", "page", "nav", "next_page", "answer_count", "completed", "save_id")
    ordering = ["pk"]
    can_delete = False
    extra = 0

    def has_add_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False


@admin.register(Respondent)
class RespondentAdmin(admin.ModelAdmin):
    list_display = ["__str__", "survey", "school", "grade", "role", "status", "current_page", "completed_at"]
    list_filter = ["survey", "status", "role"]
    search_fields = ["external_id", "access_code", "school__code", "school__name"]
    readonly_fields = ["access_code", "started_at", "last_saved_at", "completed_at"]
    inlines = [PageSaveInline]
