"""Staff accounts in bulk (`make bench-staff-import ACCOUNTS=5000`): the first import and the same file again.

Writes a staff file of ACCOUNTS accounts (school coordinators of one to three schools, district coordinators,
analysts of a district, a few state administrators) over a directory of SCHOOLS schools in DISTRICTS districts,
then imports it twice, each time in a child process through the command line's service
(``accounts.staff_import.staff_import``, what ``manage.py import_staff`` runs): the first import (every account
new) and the same file again (every account unchanged, nothing written). Prints each run's wall time, the child's
peak resident memory (Django's own start included) and the queries the import ran.

Where: with ``DATABASE_URL`` naming a PostgreSQL server (the stack's environment, as ``deploy/stack env`` gives it:
its PostgreSQL through pgbouncer), in a database of the bench's own on that server (``<the app's>_staffbench``, migrated by
this checkout: the app's database keeps the schema of the code the stack serves); its directory is kept for the
next run and its accounts are deleted before each run; ``--drop`` drops that database. Anywhere else, a new SQLite
database in a temporary folder, migrated first. No stack is started.
"""
import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from bench.stack import ROOT, manage_measured

PREFIX = "staffbench-"
CODE = "SB"


def write_staff_file(path: Path, *, accounts: int, schools: int, districts: int) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write("username,email,name,role,district_codes,school_codes\n")
        for n in range(accounts):
            school = n % schools
            if n < 5:
                role, district_codes, school_codes = "state_admin", "", ""
            elif n % 50 == 0:
                role, district_codes, school_codes = "analyst", f"{CODE}D{n % districts:02d}", ""
            elif n % 10 == 1:
                role, district_codes, school_codes = "district", " ".join(
                    f"{CODE}D{(n + k) % districts:02d}" for k in range(1 + n % 2)), ""
            else:
                role, district_codes, school_codes = "school", "", " ".join(
                    f"{CODE}{(school + k * 7) % schools:05d}" for k in range(1 + n % 3))
            out.write(f"{PREFIX}{n:05d},{PREFIX}{n:05d}@example.org,Bench Person {n},{role},{district_codes},"
                      f"{school_codes}\n")


def child(action: str, argv: list[str]) -> None:
    """Run one step in this (child) process, printing what it measured as JSON."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from accounts.scopes import COMMAND_LINE
    from accounts.staff_import import staff_import
    from infra.db_router import read_from_master
    from respondents.models import School
    from rosters.directory import schools_ensure

    User = get_user_model()
    with read_from_master():
        if action == "seed":
            schools, districts = int(argv[0]), int(argv[1])
            if School.objects.filter(code__startswith=CODE).count() < schools:
                schools_ensure([(f"{CODE}D{n % districts:02d}", f"Staff bench district {n % districts}",
                                 f"{CODE}{n:05d}", f"Staff bench school {n}") for n in range(schools)])
            deleted, _ = User.objects.filter(username__startswith=PREFIX).delete()
            print(json.dumps({"deleted": deleted}))
        elif action == "import":
            started = time.monotonic()
            with CaptureQueriesContext(connection) as queries:
                result = staff_import(scope=COMMAND_LINE, path=argv[0])
            seconds = time.monotonic() - started
            if result.problems:
                sys.exit(f"the bench's file has problems: {result.problems[:5]}")
            print(json.dumps({"seconds": seconds, "queries": len(queries), "counts": str(result.counts),
                              "created": len(result.created_user_ids)}))


def own_database(env: dict[str, str]) -> str:
    """Point ``env``'s database URLs (master and replica) at the bench's own database on the stack's server, made
    when missing; return its name."""
    from django.db import connection

    from infra.db_router import read_from_master

    name = f"{connection.settings_dict['NAME']}_staffbench"
    for variable in ("DATABASE_URL", "REPLICA_DATABASE_URL"):
        if env.get(variable):
            parts = urlsplit(env[variable])
            env[variable] = urlunsplit(parts._replace(path=f"/{name}"))
    with read_from_master(), connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        if cursor.fetchone() is None:
            cursor.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_own_database(name: str) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run_child(env: dict[str, str], *args: str) -> tuple[dict[str, Any], float, float]:
    """Run a step in a child process; return (what it printed, as JSON; its wall time; its peak RSS in MB)."""
    seconds, peak, output, _ = manage_measured(*args, env=env)
    last = output.strip().splitlines()[-1] if output.strip() else "{}"
    return json.loads(last) if last.startswith("{") else {}, seconds, peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accounts", type=int, default=5000)
    parser.add_argument("--schools", type=int, default=3000)
    parser.add_argument("--districts", type=int, default=60)
    parser.add_argument("--drop", action="store_true", help="on the stack: drop the bench's database, and stop")
    parser.add_argument("--output", default=str(ROOT / "jmeter" / "results" / "staff-import-bench.json"))
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1:])
        return 0

    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as scratch:
        on_postgresql = env.get("DATABASE_URL", "").startswith(("postgres:", "postgresql:", "pgsql:"))
        if on_postgresql and args.drop:
            name = f"{own_database(env)}"
            drop_own_database(name)
            print(f"dropped the database {name}")
            return 0
        if on_postgresql:
            print(f"database: {own_database(env)}, on the PostgreSQL server of DATABASE_URL")
        else:
            env["DATABASE_URL"] = f"sqlite:///{scratch}/staff-bench.sqlite3"
            print("database: a new SQLite database (DATABASE_URL names no PostgreSQL server)")
        _, seconds, _ = run_child(env, "migrate", "--no-input", "-v", "0")
        print(f"  migrated in {seconds:.1f} s")
        step = ["bench", "staff_import_bench", "--child"]
        seeded, seconds, _ = run_child(env, *step, "seed", str(args.schools), str(args.districts))
        print(f"directory: {args.schools} schools in {args.districts} districts; {seeded.get('deleted', 0)} rows of "
              f"earlier bench accounts deleted ({seconds:.1f} s)")
        path = Path(scratch) / "staff.csv"
        write_staff_file(path, accounts=args.accounts, schools=args.schools, districts=args.districts)
        print(f"staff file: {args.accounts} accounts, {path.stat().st_size / 1e3:.0f} KB")
        print(f"{'run':<18}{'import s':>10}{'child s':>9}{'peak RSS MB':>13}{'queries':>9}  counts")
        figures: dict[str, Any] = {"database": "postgresql" if on_postgresql else "sqlite", "accounts": args.accounts,
                   "schools": args.schools, "runs": {}}
        for name in ("first import", "same file again"):
            measured, seconds, peak = run_child(env, *step, "import", str(path))
            print(f"{name:<18}{measured['seconds']:>10.2f}{seconds:>9.1f}{peak:>13.0f}{measured['queries']:>9}  "
                  f"{measured['counts']}")
            figures["runs"][name] = {**measured, "child_seconds": round(seconds, 2), "peak_rss_mb": round(peak)}
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(figures, indent=2) + "\n")
    print(f"written: {args.output}")
    return 0
