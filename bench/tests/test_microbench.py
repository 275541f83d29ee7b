"""The microbench's one figure (bench/microbench.py): milliseconds a call, the first call left out."""
from bench import microbench


def test_a_call_s_milliseconds_are_the_timed_calls_time_over_their_number_after_one_untimed_call(monkeypatch):
    clock, calls = [100.0], []

    def call():
        calls.append(clock[0])
        clock[0] += 0.5 if len(calls) == 1 else 0.002  # the first call is the slow one: caches, imports

    monkeypatch.setattr(microbench.time, "perf_counter", lambda: clock[0])
    assert round(microbench.per_call_ms(call, 50), 9) == 2.0
    assert len(calls) == 51
