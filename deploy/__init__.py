"""Deployment tools that are Python: the capacity planner (capacity.py, run by deploy/plan) and the S3 buckets
script; the shell scripts beside them (stack, lab, tls, drill) are not imported."""
