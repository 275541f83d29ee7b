"""What the lab tests share (config/tests/test_lab*.py): the lab's commands, its hosts, and what they answer."""
import json
import subprocess
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "deploy" / "lab"
SECRETS = ROOT / ".lab" / "controller" / "secrets"


def lab(*args, check=True):
    return subprocess.run([str(LAB), *args], capture_output=True, text=True, check=check, timeout=300)


def hosts():
    """{name: address} from the lab's inventory, the one list."""
    output = subprocess.run([str(ROOT / ".venv" / "bin" / "ansible-inventory"), "-i",
                             str(ROOT / "deploy" / "ansible" / "inventories" / "lab"), "--list"],
                            capture_output=True, text=True, check=True).stdout
    return {name: values["ansible_host"] for name, values in json.loads(output)["_meta"]["hostvars"].items()}


def in_host(host, *command):
    return subprocess.run(["ip", "netns", "exec", f"lab-{host}", *command], capture_output=True, text=True)


def connects(host, address, port=22):
    """Whether ``host`` opens a TCP connection to ``address:port`` within two seconds."""
    return in_host(host, "timeout", "2", "bash", "-c", f"</dev/tcp/{address}/{port}").returncode == 0


def cluster():
    """The Patroni cluster as a member that answers sees it: {name: role}."""
    for name, address in hosts().items():
        if not name.startswith("db"):
            continue
        try:
            with urllib.request.urlopen(f"http://{address}:8008/cluster", timeout=2) as response:
                return {member["name"]: member["role"] for member in json.load(response)["members"]}
        except OSError:
            continue
    return {}


def wait_for(condition, seconds):
    """Poll ``condition`` each half second for ``seconds``; return (its last value, seconds waited)."""
    started = time.monotonic()
    while True:
        value = condition()
        if value or time.monotonic() - started > seconds:
            return value, time.monotonic() - started
        time.sleep(0.5)


def superuser_query(address, sql):
    password = (SECRETS / "postgres-superuser").read_text().strip()
    run = subprocess.run(["psql", "-h", address, "-U", "postgres", "-d", "survey", "-Atc", sql],
                         env={"PGPASSWORD": password, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    return run.stdout.split()


def sentinel_primary():
    """The primary's address as the Sentinels on worker1 name it."""
    run = in_host("worker1", "redis-cli", "-h", hosts()["worker1"], "-p", "26379",
                  "sentinel", "get-master-addr-by-name", "survey")
    return run.stdout.split()[0] if run.stdout.strip() else None


def redis_role(host):
    password = (SECRETS / "redis").read_text().strip()
    run = in_host(host, "redis-cli", "-h", "127.0.0.1", "-a", password, "--no-auth-warning", "info", "replication")
    return dict(line.split(":", 1) for line in run.stdout.splitlines() if ":" in line)


def load_balancer_url():
    """The load balancer's address, as the first line of `deploy/lab status` gives it."""
    return lab("status").stdout.splitlines()[0].strip()


def leader():
    """The Patroni leader's name, once there is one (60 s at most)."""
    roles, _ = wait_for(lambda: (lambda c: c if "leader" in c.values() else None)(cluster()), 60)
    return next(name for name, role in roles.items() if role == "leader")
