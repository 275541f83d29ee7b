from django.contrib import admin

from rosters.models import Roster


@admin.register(Roster)
class RosterAdmin(admin.ModelAdmin):
    list_display = ["name", "survey", "created_at"]
    list_filter = ["survey"]
