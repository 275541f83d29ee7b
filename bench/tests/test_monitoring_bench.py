"""The monitoring bench's figures (bench/monitoring_bench.py): each page's latency."""
from bench import monitoring_bench


def test_a_page_s_latency_leaves_out_the_warm_up_requests():
    warm_up = [5000.0] * monitoring_bench.WARM_UP  # templates compiled, connections opened
    times = warm_up + [float(n) for n in range(20, 0, -1)]  # 1 to 20 ms
    assert monitoring_bench.latency(times) == (10.5, 19.0)  # the 19th of 20: int(20 * 0.95) - 1


def test_one_timed_request_is_its_own_median_and_95th_percentile():
    assert monitoring_bench.latency([900.0] * monitoring_bench.WARM_UP + [42.0]) == (42.0, 42.0)
