"""What the lab tests share (deploy/tests/test_lab*.py): the lab's commands, its hosts, and what they answer."""
import functools
import json
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "deploy" / "lab"
SECRETS = ROOT / ".lab" / "controller" / "secrets"

T = TypeVar("T")


def lab(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """deploy/lab ARGS; with ``check``, a failure raises with the end of what it printed (not only its status)."""
    run = subprocess.run([str(LAB), *args], capture_output=True, text=True, timeout=300)
    if check and run.returncode:
        printed = (run.stdout + run.stderr).strip().splitlines()[-20:]
        raise AssertionError(f"deploy/lab {' '.join(args)} exited {run.returncode}:\n" + "\n".join(printed))
    return run


@functools.cache
def inventory() -> dict[str, Any]:
    """The lab's inventory as ansible-inventory gives it (read once: it takes a second, and does not change)."""
    return json.loads(subprocess.run([str(ROOT / ".venv" / "bin" / "ansible-inventory"), "-i",
                                      str(ROOT / "deploy" / "ansible" / "inventories" / "lab"), "--list"],
                                     capture_output=True, text=True, check=True).stdout)


def hosts() -> dict[str, str]:
    """{name: address} from the lab's inventory, the one list."""
    return {name: values["ansible_host"] for name, values in inventory()["_meta"]["hostvars"].items()}


def group(name: str) -> list[str]:
    """The names of a group's hosts (``postgresql``: the Patroni members)."""
    return sorted(inventory()[name]["hosts"])


def in_host(host: str, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", "netns", "exec", f"lab-{host}", *command], capture_output=True, text=True)


def connects(host: str, address: str, port: int = 22) -> bool:
    """Whether ``host`` opens a TCP connection to ``address:port`` within two seconds."""
    return in_host(host, "timeout", "2", "bash", "-c", f"</dev/tcp/{address}/{port}").returncode == 0


def cluster() -> dict[str, str]:
    """The Patroni cluster as a member that answers sees it: {name: role}."""
    for name in group("postgresql"):
        try:
            with urllib.request.urlopen(f"http://{hosts()[name]}:8008/cluster", timeout=2) as response:
                return {member["name"]: member["role"] for member in json.load(response)["members"]}
        except OSError:
            continue
    return {}


def wait_for(condition: Callable[[], T], seconds: float) -> tuple[T, float]:
    """Poll ``condition`` each half second for ``seconds``; return (its last value, seconds waited)."""
    started = time.monotonic()
    while True:
        value = condition()
        if value or time.monotonic() - started > seconds:
            return value, time.monotonic() - started
        time.sleep(0.5)


def superuser_query(address: str, sql: str) -> list[str]:
    """The rows' words; a member that cannot answer raises (CalledProcessError), never reads as "no rows"."""
    password = (SECRETS / "postgres-superuser").read_text().strip()
    run = subprocess.run(["psql", "-h", address, "-U", "postgres", "-d", "survey", "-v", "ON_ERROR_STOP=1", "-Atc", sql],
                         env={"PGPASSWORD": password, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                         check=True)
    return run.stdout.split()


def missing_rows(sql: str, expected: set[str], seconds: float = 30) -> dict[str, set[str]]:
    """{member: the ``expected`` values that ``sql`` does not return there}, for every Patroni member, once each
    has had ``seconds`` to answer and to replay what it received."""
    def lacking(address: str) -> set[str]:
        try:
            return expected - set(superuser_query(address, sql))
        except subprocess.CalledProcessError:
            return expected  # not answering yet (starting, or still rejoining)

    missing = {}
    for name in group("postgresql"):
        address = hosts()[name]
        wait_for(lambda: not lacking(address), seconds)  # noqa: B023 (called before the loop moves on)
        missing[name] = lacking(address)
    return missing


def sentinel_primary() -> str | None:
    """The primary's address as the Sentinels on worker1 name it."""
    run = in_host("worker1", "redis-cli", "-h", hosts()["worker1"], "-p", "26379",
                  "sentinel", "get-master-addr-by-name", "survey")
    return run.stdout.split()[0] if run.stdout.strip() else None


def redis_role(host: str) -> dict[str, str]:
    password = (SECRETS / "redis").read_text().strip()
    run = in_host(host, "redis-cli", "-h", "127.0.0.1", "-a", password, "--no-auth-warning", "info", "replication")
    return dict(line.split(":", 1) for line in run.stdout.splitlines() if ":" in line)


def load_balancer_url() -> str:
    """The load balancer's address, as the first line of `deploy/lab status` gives it."""
    return lab("status").stdout.splitlines()[0].strip()


def leader(other_than: str | None = None, seconds: float = 60) -> str | None:
    """The Patroni leader's name, once there is one (other than ``other_than``); None after ``seconds``."""
    name, _ = wait_for(lambda: next((name for name, role in cluster().items()
                                     if role == "leader" and name != other_than), None), seconds)
    return name
