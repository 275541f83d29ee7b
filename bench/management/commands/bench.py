"""Run one of the bench's tools: ``manage.py bench drill --short``, ``manage.py bench roster_bench --rows 20000``;
``manage.py bench`` lists them, ``manage.py bench TOOL --help`` gives a tool's arguments.

A tool that measures the one-box stack runs in the stack's environment (its PostgreSQL, pgbouncer, Redis,
memcached and nginx; production settings with the bench installed). Started anywhere else, this command brings
the stack up (the floor views on) and runs itself again through ``deploy/stack manage``: Django is set up once per
process, with the settings the tool measures.
"""
import importlib
import os
import sys
from types import ModuleType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import stack

# Each tool is a module of this app with ``main(argv)``; the first paragraph of its docstring says what it measures.
TOOLS = ["survey_bench", "sizing", "cpu_profile", "drill", "fuzz", "login_flood", "roster_bench", "monitoring_bench",
         "results_bench", "export_bench", "search_bench", "microbench", "page_weight", "upload_bombs", "document_bench", "restore_drill", "lab_drill",
         "staff_import_bench"]
# The tools that need no stack: they read files in child processes of their own, wherever they are started.
LOCAL_TOOLS = {"upload_bombs", "document_bench", "staff_import_bench"}


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("tool", nargs="?", choices=sorted(TOOLS), help="the tool; none lists them")
        # Not ``args``: Django hands an option of that name to handle() as positional arguments.
        parser.add_argument("tool_args", nargs="...", metavar="args", help="the tool's own arguments (--help for its list)")

    def handle(self, *, tool: str | None = None, tool_args: list[str], **options: Any) -> None:
        if tool is None:
            width = max(map(len, TOOLS)) + 2
            for name in TOOLS:
                self.stdout.write(f"{name:<{width}}{summary(tool_module(name))}")
            return
        # A tool's --help is answered here: it needs no stack, and should not bring one up.
        asks_for_help = {"-h", "--help"} & set(tool_args)
        # The restore drill on the lab measures the lab, from this machine (its controller), not the stack.
        on_the_lab = tool == "lab_drill" or (tool == "restore_drill" and "--lab" in tool_args)
        if tool not in LOCAL_TOOLS and not on_the_lab and not asks_for_help and not in_stack_environment():
            stack.stack_env()  # deploy/stack up, the floor views on
            sys.stdout.flush()
            command = [str(stack.ROOT / "deploy" / "stack"), "manage", "bench", tool, *tool_args]
            os.execv(command[0], command)
        try:
            status = tool_module(tool).main(tool_args)
        except stack.StackError as error:
            raise CommandError(f"{tool}: {error}") from error
        if status:
            raise CommandError(f"{tool} failed", returncode=status if isinstance(status, int) else 1)


def tool_module(name: str) -> ModuleType:
    return importlib.import_module(f"bench.{name}")


def summary(module: ModuleType) -> str:
    """Return the first paragraph of a tool's docstring, on one line."""
    return " ".join((module.__doc__ or "").split("\n\n")[0].split())


def in_stack_environment() -> bool:
    """Whether this process runs with the stack's settings (``deploy/stack manage`` sets them)."""
    return settings.SETTINGS_MODULE == "config.settings.production" and os.environ.get("BENCH_TOOLS") == "1"
