"""The tools that generate and measure load: bench surveys and respondents, the floor views, the benchmarks,
fuzzers and drills that ``jmeter/`` and the Makefile run.

Installed where load is generated or measured (the embedded default, the tests, the one-box stack, the lab),
never by a plain production deploy (``BENCH_TOOLS`` in config/settings/production.py).
"""
