"""The monitoring bench's figures (bench/monitoring_bench.py): each page's latency, and the bench survey deleted."""
import pytest

from bench import monitoring_bench
from bench.tests.factories import seeded_respondents
from respondents.models import Respondent
from surveys.models import Survey
from surveys.tests.factories import make_survey


def test_a_page_s_latency_leaves_out_the_warm_up_requests():
    warm_up = [5000.0] * monitoring_bench.WARM_UP  # templates compiled, connections opened
    times = warm_up + [float(n) for n in range(20, 0, -1)]  # 1 to 20 ms
    assert monitoring_bench.latency(times) == (10.5, 19.0)  # the 19th of 20: int(20 * 0.95) - 1


def test_one_timed_request_is_its_own_median_and_95th_percentile():
    assert monitoring_bench.latency([900.0] * monitoring_bench.WARM_UP + [42.0]) == (42.0, 42.0)


@pytest.mark.django_db
def test_the_bench_survey_is_deleted_with_its_people_and_nothing_else():
    kept, bench = make_survey(slug="kept"), make_survey(slug="monitoring-bench-1")
    seeded_respondents(kept, 2, prefix="1")
    seeded_respondents(bench, 3)
    monitoring_bench.forget(bench)
    assert list(Survey.objects.values_list("slug", flat=True)) == ["kept"]
    assert Respondent.objects.count() == 2
