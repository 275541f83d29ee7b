"""The completion summary rebuilt off the save path, from a replica when one is up and current: three GROUP BYs
over a survey's respondents, rolled up to school, district and state rows, replaced in one transaction
(docs/architecture.md, "Completion monitoring")."""
from datetime import UTC

from django.db import transaction
from django.db.models import Count, Max, Q
from django.db.models.functions import TruncHour
from django.utils import timezone

from monitoring.models import CompletionSummary
from monitoring.selectors import COUNTS, Completion
from respondents.models import Respondent
from surveys.models import Survey

Status = Respondent.Status
Level = CompletionSummary.Level


def completion_summary_refresh(*, survey: Survey, using: str | None = None) -> int:
    """Rebuild ``survey``'s completion summary from database ``using`` (a replica); return the group rows written."""
    respondents = Respondent.objects.using(using).filter(survey=survey).order_by()
    active = Q(withdrawn_at__isnull=True)
    groups = respondents.values("school_id", "school__district_id", "grade", "role").annotate(
        rostered=Count("pk", filter=active), withdrawn=Count("pk", filter=~active),
        not_started=Count("pk", filter=active & Q(status=Status.NOT_STARTED)),
        in_progress=Count("pk", filter=active & Q(status=Status.IN_PROGRESS)),
        completed=Count("pk", filter=active & Q(status=Status.COMPLETED)),
        last_activity=Max("last_saved_at"),
    )
    pages: dict[tuple[int | None, str, str], dict[str, int]] = {}
    for row in (respondents.filter(active, status=Status.IN_PROGRESS)
                .values("school_id", "grade", "role", "current_page").annotate(count=Count("pk"))):
        pages.setdefault((row["school_id"], row["grade"], row["role"]), {})[str(row["current_page"])] = row["count"]
    # Every group adds into its school, its district and the state (Completion.add, the same sum the pages use).
    state = Completion()
    districts: dict[int | None, Completion] = {}
    schools: dict[int | None, tuple[int | None, Completion]] = {}
    rows: list[CompletionSummary] = []
    now = timezone.now()
    for values in groups:
        district_id: int | None = values["school__district_id"]  # None: a respondent without a school
        key = (values["school_id"], values["grade"], values["role"])
        group = CompletionSummary(survey=survey, level=Level.GROUP, refreshed_at=now, district_id=district_id,
                                  pages=pages.get(key, {}), school_id=values["school_id"], grade=values["grade"],
                                  role=values["role"], rostered=values["rostered"], withdrawn=values["withdrawn"],
                                  not_started=values["not_started"], in_progress=values["in_progress"],
                                  completed=values["completed"], last_activity=values["last_activity"])
        rows.append(group)
        school = schools.setdefault(group.school_id, (district_id, Completion()))[1]
        for level in (school, districts.setdefault(district_id, Completion()), state):
            level.add(group)
    completed = (respondents.filter(active, status=Status.COMPLETED, completed_at__isnull=False)
                 .annotate(hour=TruncHour("completed_at", tzinfo=UTC)).values("school_id", "hour")
                 .annotate(count=Count("pk")))
    for hourly in completed:
        district_id, school = schools[hourly["school_id"]]
        for level in (school, districts[district_id], state):
            level.completions[hourly["hour"].isoformat()] += hourly["count"]

    def summary(completion: Completion, level: str, **where: int | None) -> CompletionSummary:
        return CompletionSummary(survey=survey, level=level, refreshed_at=now, pages=dict(completion.pages),
                                 completions=dict(completion.completions), last_activity=completion.last_activity,
                                 **{name: getattr(completion, name) for name in COUNTS}, **where)

    written = len(rows)
    rows += [summary(school, Level.SCHOOL, school_id=school_id, district_id=district_id)
             for school_id, (district_id, school) in schools.items()]
    rows += [summary(district, Level.DISTRICT, district_id=district_id) for district_id, district in districts.items()]
    rows.append(summary(state, Level.STATE))
    with transaction.atomic(durable=True):
        CompletionSummary.objects.filter(survey=survey).delete()
        CompletionSummary.objects.bulk_create(rows, batch_size=2000)
    return written


def completion_summaries_refresh(*, using: str | None = None) -> int:
    """Rebuild the completion summary of every open survey, reading database ``using``; return how many."""
    surveys = list(Survey.objects.filter(status=Survey.Status.OPEN))
    for survey in surveys:
        completion_summary_refresh(survey=survey, using=using)
    return len(surveys)
