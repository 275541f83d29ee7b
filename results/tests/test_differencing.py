"""No figure a viewer can select gives a suppressed one away by subtraction: a search over every pair of selections
each role can make on seeded data (issue 33's review took the district-less-schools, school-less-grade and two-means
routes; this tries them all), checked against the respondents themselves, not against the suppression's own
bookkeeping."""
import itertools
import random

import pytest

from accounts.models import StaffMember
from accounts.scopes import staff_scope
from respondents.models import Answer, Respondent
from respondents.tests.factories import make_respondents, make_school, make_staff
from results.aggregates import answer_counts_refresh
from results.selectors import question_results
from results.tests.helpers import answered

pytestmark = pytest.mark.django_db
Role = StaffMember.Role
THRESHOLD = 3
SCHOOLS = {"LIN": "D1", "JEF": "D1", "KEN": "D1", "ADA": "D2", "BYR": "D2"}
GRADES = ("7", "8", "12")
ROLES = ("student", "teacher")


def seeded_world(client, survey, seed):
    """Schools of two districts, each grade and role a group of 0 to 7 people (small ones often), answering the
    survey's first page at random: a single choice, a multiple choice, a number and a text."""
    rng = random.Random(seed)
    schools = {code: make_school(code, code.title(), (district, f"District {district}"))
               for code, district in SCHOOLS.items()}
    for school in schools.values():
        for grade, role in itertools.product(GRADES, ROLES):
            size = rng.choice((0, 0, 1, 1, 2, 3, 4, 7))
            people = make_respondents(survey, size, school=school, grade=grade, role=role) if size else []
            for person in people if size > 1 else [people] if size else []:
                answers = {"q-colour": rng.choice(("red", "blue", "blue"))}
                if rng.random() < 0.8:
                    answers["q-pets"] = rng.sample(["cat", "dog", "fish"], rng.choice((1, 1, 2)))
                if rng.random() < 0.7:
                    answers["q-age"] = str(rng.choice((8, 12, 13, 40)))
                if rng.random() < 0.5:
                    answers["q-nickname"] = "x"
                answered(client, person, (1, answers))
    return schools


def viewers(schools):
    """The staff each role's selections are tried for: the whole state, a district whole, part of a district, one
    school, schools of two districts, an analyst of a district."""
    d1, d2 = schools["LIN"].district, schools["ADA"].district
    return {
        "state administrator": make_staff(Role.STATE_ADMIN),
        "district coordinator": make_staff(Role.DISTRICT_COORDINATOR, districts=[d1]),
        "coordinator of two schools": make_staff(Role.SCHOOL_COORDINATOR, schools=[schools["LIN"], schools["JEF"]]),
        "coordinator of one school": make_staff(Role.SCHOOL_COORDINATOR, schools=[schools["KEN"]]),
        "coordinator across districts": make_staff(Role.SCHOOL_COORDINATOR, schools=[schools["JEF"], schools["BYR"]]),
        "analyst of a district": make_staff(Role.ANALYST, districts=[d2]),
    }


def selections(scope):
    """Every (district, school, grade, role) the results page lets ``scope`` choose."""
    districts = [None, *scope.districts().order_by("code")]
    for district in districts:
        schools = [None, *scope.schools().filter(**({"district": district} if district else {})).order_by("code")]
        for school in schools:
            for grade in ("", *GRADES):
                for role in ("", *ROLES):
                    yield district, school, grade, role


def people_of(scope, survey, district, school, grade, role):
    """The respondents a selection counts, from the database: in progress or completed, not withdrawn."""
    people = scope.respondents(survey).filter(withdrawn_at__isnull=True, status__in=(
        Respondent.Status.IN_PROGRESS, Respondent.Status.COMPLETED))
    if school is not None:
        people = people.filter(school=school)
    elif district is not None:
        people = people.filter(school__district=district)
    if grade:
        people = people.filter(grade=grade)
    if role:
        people = people.filter(role=role)
    return frozenset(people.values_list("pk", flat=True))


def shown_figures(results):
    """{figure: value} of what the page shows; a hidden figure is absent. A mean is shown as the sum of the answers
    it averages (mean times those who answered), which is what subtracting two of them gives."""
    if results is None or results.too_few:
        return {}
    shown = {}
    for name in ("respondents", "in_progress", "completed"):
        if getattr(results, name) is not None:
            shown[name] = getattr(results, name)
    for question in results.questions:
        if question.answered is not None:
            shown[question.code, "answered"] = question.answered
        for cell in question.cells:
            if cell.count is not None:
                shown[question.code, cell.label] = cell.count
        if question.mean is not None and question.answered is not None:
            shown[question.code, "sum"] = question.mean * question.answered
    return shown


def true_figures(survey, people):
    """The same figures worked out from the answers of ``people``, for every figure (hidden or not)."""
    rows = list(Answer.objects.filter(respondent_id__in=people).exclude(value="").values_list(
        "respondent_id", "question__code", "value"))
    status = dict(Respondent.objects.filter(pk__in=people).values_list("pk", "status"))
    figures = {"respondents": len(people),
               "in_progress": sum(1 for s in status.values() if s == Respondent.Status.IN_PROGRESS),
               "completed": sum(1 for s in status.values() if s == Respondent.Status.COMPLETED)}
    labels = {"red": "Red", "blue": "Blue", "cat": "Cat", "dog": "Dog", "fish": "Fish"}
    for code in ("colour", "pets", "age", "nickname"):
        mine = [value for _, q, value in rows if q == code]
        figures[code, "answered"] = len(mine)
        if code in ("colour", "pets"):
            for value, label in labels.items():
                figures[code, label] = sum(1 for v in mine if value in v.split(" "))
        if code == "age":
            figures[code, "sum"] = float(sum(int(v) for v in mine))
            for low in range(0, 100, 10):  # the question's bins: 5 to 99 in tens
                figures[code, f"{low}–{low + 9}"] = sum(1 for v in mine if low <= int(v) < low + 10)
    return figures


def small(difference):
    return 0 < difference < THRESHOLD - 1e-9


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_pair_of_selections_any_role_can_make_gives_a_suppressed_figure_away(client, settings, survey, seed):
    settings.RESULTS_SUPPRESSION_THRESHOLD = THRESHOLD
    schools = seeded_world(client, survey, seed)
    answer_counts_refresh(survey=survey)
    checked = recovered = 0
    for who, user in viewers(schools).items():
        scope = staff_scope(user=user)
        seen = []  # (selection, its people, what it shows, its true figures)
        keys = list(selections(scope))
        for district, school, grade, role in keys:
            results = question_results(scope=scope, survey=survey, district=district, school=school, grade=grade,
                                       role=role)
            people = people_of(scope, survey, district, school, grade, role)
            truth = true_figures(survey, people)
            shown = shown_figures(results)
            name = f"{who}: {district and district.code}/{school and school.code}/{grade or '*'}/{role or '*'}"
            for figure, value in shown.items():  # what is shown is right (a mean to two places)
                tolerance = 0.005 * shown.get((figure[0], "answered"), 0) + 1e-9 if figure[-1] == "sum" else 0
                assert value == pytest.approx(truth[figure], abs=tolerance), f"{name} {figure}"
            seen.append((name, people, shown, truth))
        alike: dict[frozenset, list] = {}
        for x, x_people, x_shown, x_truth in seen:
            alike.setdefault(x_people, []).append((x, x_shown, x_truth))
        for (a, a_people, a_shown, _), (b, b_people, b_shown, _) in itertools.permutations(seen, 2):
            if not b_people <= a_people:
                continue
            same_as_rest = alike.get(a_people - b_people, [])
            for figure in a_shown.keys() & b_shown.keys():
                checked += 1
                if figure[-1] == "sum":
                    # Two means give the rest's mean: only where the rest answered in numbers enough, or not at all.
                    left = a_shown[figure[0], "answered"] - b_shown[figure[0], "answered"]
                    assert not small(left), f"{a} less {b}: the mean of {left} people"
                    continue
                difference = a_shown[figure] - b_shown[figure]
                assert not small(difference), f"{a} less {b}: {figure} = {difference}, a small group's"
                for x, x_shown, x_truth in same_as_rest:
                    if figure not in x_shown and x_truth.get(figure, 0):
                        recovered += 1
                        pytest.fail(f"{a} less {b} gives {x}'s suppressed {figure} = {x_truth[figure]}")
        # A selection less all its other parts shown: the schools of a district (or of the scope), the districts of
        # the state, the grades or the roles of a selection, each part one step narrower.
        by_key = {key: entry for key, entry in zip(keys, seen, strict=True)}
        for key, (a, a_people, a_shown, _) in by_key.items():
            for parts in _partitions(key, by_key):
                for figure in a_shown:
                    if figure[-1] == "sum":
                        continue
                    hidden = [p for p in parts if figure not in p[2]]
                    shown = [p for p in parts if figure in p[2]]
                    if len(hidden) == 1 and hidden[0][3].get(figure, 0):
                        x = hidden[0]
                        others = frozenset().union(*(p[1] for p in shown))
                        if others == a_people - x[1]:
                            recovered += 1
                            pytest.fail(f"{a}'s {figure} less its shown parts gives {x[0]}'s suppressed "
                                        f"{x[3][figure]}")
    assert checked > 1000 and not recovered


def _partitions(key, by_key):
    """The ways of splitting selection ``key`` one step narrower: into its districts or schools (whichever the page
    offers under it), its grades, its roles; each a list of the parts' entries."""
    district, school, grade, role = key
    if school is None:
        narrower = [k for k in by_key if k[2:] == (grade, role) and k[1] is not None and k[0] == district]
        if district is None:
            districts = [k for k in by_key if k[2:] == (grade, role) and k[1] is None and k[0] is not None]
            yield [by_key[k] for k in districts]
            narrower = [k for k in narrower if k[0] is None]
        yield [by_key[k] for k in narrower]
    if not grade:
        yield [by_key[(district, school, g, role)] for g in GRADES]
    if not role:
        yield [by_key[(district, school, grade, r)] for r in ROLES]
