"""Run one of the bench's tools: ``manage.py bench drill --short``, ``manage.py bench roster_bench --rows 20000``;
``manage.py bench`` lists them.

A tool that measures the one-box stack runs in the stack's environment (its PostgreSQL, pgbouncer, Redis,
memcached and nginx; production settings with the bench installed). Started anywhere else, this command brings
the stack up (the floor views on) and runs itself again through ``deploy/stack manage``: Django is set up once per
process, with the settings the tool measures.
"""
import importlib
import os
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from bench import stack

# Each tool: a module of this app with ``main(argv)``, and whether it runs against the stack.
TOOLS = {
    "survey_bench": ("the survey mix through the stack, against its floor and ceiling (make bench, make smoke)", True),
    "sizing": ("the survey mix with several gunicorn workers, pgbouncer pools and think times (make sizing)", True),
    "cpu_profile": ("where a request's CPU goes, under load and in-process (make profile)", True),
    "drill": ("faults under load in both replication modes: nothing acknowledged lost (make drill)", True),
    "fuzz": ("adversarial requests through nginx, then every stored answer checked (make fuzz)", True),
    "login_flood": ("respondents' latency while clients hammer the staff login (make bench-login-flood)", True),
    "roster_bench": ("a roster import through the staff area's code, and page saves during it (make bench-roster)",
                     True),
    "monitoring_bench": ("the monitoring pages and their refresh at state scale (make bench-monitoring)", True),
    "export_bench": ("exports at state scale (make bench-export)", True),
    "microbench": ("the cost of single pieces of a request, in-process (make bench-micro)", True),
    "page_weight": ("the survey page's requests and bytes, compressed from S3 (make page-weight)", True),
    "upload_bombs": ("hostile uploads read within the memory and time bound (make fuzz-uploads)", False),
    "document_bench": ("memory of loading hostile survey documents", False),
}


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0]

    def add_arguments(self, parser):
        parser.add_argument("tool", nargs="?", choices=sorted(TOOLS), help="the tool; none lists them")
        parser.add_argument("args", nargs="...", help="the tool's own arguments (--help for its list)")

    def handle(self, *args, tool=None, **options):
        if tool is None:
            for name, (what, _) in TOOLS.items():
                self.stdout.write(f"{name:<18}{what}")
            return
        if TOOLS[tool][1] and not in_stack_environment():
            stack.stack_env()  # deploy/stack up, the floor views on
            sys.stdout.flush()
            command = [str(stack.ROOT / "deploy" / "stack"), "manage", "bench", tool, *options["args"]]
            os.execv(command[0], command)
        try:
            status = importlib.import_module(f"bench.{tool}").main(options["args"])
        except stack.StackError as error:
            raise CommandError(f"{tool}: {error}") from error
        if status:
            raise CommandError(f"{tool} failed", returncode=status if isinstance(status, int) else 1)


def in_stack_environment():
    """Whether this process runs with the stack's settings (``deploy/stack manage`` sets them)."""
    return settings.SETTINGS_MODULE == "config.settings.production" and os.environ.get("BENCH_TOOLS") == "1"
