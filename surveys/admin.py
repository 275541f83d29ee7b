from django.contrib import admin

from surveys.models import Choice, Page, Question, Survey


class PageInline(admin.TabularInline):
    model = Page
    extra = 0
    fields = ["position", "title"]
    show_change_link = True


@admin.register(Survey)
class SurveyAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "status", "opens_at", "closes_at", "version"]
    list_filter = ["status"]
    search_fields = ["title", "slug"]
    inlines = [PageInline]


class QuestionInline(admin.StackedInline):
    model = Question
    fk_name = "page"
    extra = 0
    fields = ["position", "code", "kind", "prompt", "help_text", "required", "grid", "min_value", "max_value", "max_length"]
    show_change_link = True


@admin.register(Page)
class PageAdmin(admin.ModelAdmin):
    list_display = ["__str__", "title"]
    list_filter = ["survey"]
    inlines = [QuestionInline]


class ChoiceInline(admin.TabularInline):
    model = Choice
    extra = 0


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["code", "kind", "page", "required"]
    list_filter = ["survey", "kind"]
    search_fields = ["code", "prompt"]
    inlines = [ChoiceInline]
