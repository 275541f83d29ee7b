"""The tools that generate and measure load: bench surveys and respondents, the floor views, the benchmarks,
fuzzers and drills (``manage.py bench TOOL``; the Makefile and the wrappers in ``jmeter/`` and ``deploy/`` run it).

Installed where load is generated or measured (the embedded default, the tests, the one-box stack, the lab),
never by a plain production deploy (``BENCH_TOOLS`` in config/settings/production.py).
"""
