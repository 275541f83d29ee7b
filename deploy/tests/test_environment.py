"""The app's environment and processes, written once for both deployments: deploy/templates/app.env (every key) and
deploy/templates/Procfile (gunicorn's and Celery's commands), which deploy/stack and the app, web and worker roles
render, and the restore steps both scripts share (deploy/restore.sh). The stack's side runs here (its functions,
sourced, over a scratch STACK_DIR); the roles' runs through Ansible where it is installed (make install-lab)."""
import json
import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
ANSIBLE = DEPLOY / "ansible"
PLACEHOLDER = re.compile(r"@([A-Z][A-Z0-9_]*)@")
# The process each role task starts, by the role whose tasks file holds it.
ROLE_PROCESSES = {"web": "web", "worker": "worker", "beat": "worker"}


def env_keys(text):
    """Return the keys of a KEY=value file, in order (comments and blank lines left out)."""
    return [line.split("=", 1)[0] for line in text.splitlines() if line.strip() and not line.startswith("#")]


def procfile():
    """Return deploy/templates/Procfile's commands by process name."""
    lines = (DEPLOY / "templates" / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line and not line.startswith("#"))


@pytest.fixture
def stack_function(tmp_path):
    """Run a function of deploy/stack over a scratch STACK_DIR, in an environment that holds none of the app's
    keys (so a value the stack forgets is not filled from the caller's); return its output."""
    (tmp_path / "secret_key").write_text("the-stacks-secret-key\n")

    def run(*call):
        environment = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "STACK_DIR": str(tmp_path)}
        # Sourced, the script defines its functions and runs nothing; $0 is not the script, so it knows.
        result = subprocess.run(["bash", "-c", 'source "$1" && shift && "$@"', "bash", str(DEPLOY / "stack"), *call],
                                cwd=ROOT, env=environment, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout

    return run


def command_and_extras(command, process, program_dir):
    """Split a started command into the Procfile's (as a pattern: its placeholders any one word) and the rest."""
    line = procfile()[process]
    pattern = r"\S+".join(re.escape(part) for part in PLACEHOLDER.split(line)[::2])
    match = re.fullmatch(rf"{re.escape(program_dir)}/({pattern})((?: \S+)*)", command)
    assert match, f"{command!r} is not deploy/templates/Procfile's {process}: {line!r}, then options of its own"
    return match.group(1), match.group(2).split()


def assert_adds_no_procfile_option(extras, process):
    """What a deployment adds to a Procfile command sets none of the options the Procfile sets."""
    options = {word for word in procfile()[process].split() if word.startswith("-")}
    assert not options & set(extras), f"{process}: {extras} sets again what deploy/templates/Procfile sets"


# ---------------------------------------------------------------- the environment

def app_role_values():
    """Return the names app_env_values gives (roles/app/vars/main.yml), in order."""
    text = (ANSIBLE / "roles" / "app" / "vars" / "main.yml").read_text()
    block = re.search(r"^app_env_values:\n((?:  .*\n|\s*\n)+)", text, re.M).group(1)
    return re.findall(r"^  ([A-Z][A-Z0-9_]*):", block, re.M)


def test_the_app_role_gives_every_placeholder_of_the_environment_template_and_no_other():
    template = (DEPLOY / "templates" / "app.env").read_text()
    given = app_role_values()
    assert len(given) == len(set(given))
    assert set(given) == set(PLACEHOLDER.findall(template))


def test_the_stack_and_the_app_role_write_the_same_keys_in_the_same_order(stack_function):
    template = (DEPLOY / "templates" / "app.env").read_text()
    stack_keys = env_keys(stack_function("app_env"))
    # As roles/common/templates/stack-file.j2 fills it: each name's placeholder replaced, none left.
    rendered = template
    for name in app_role_values():
        rendered = rendered.replace(f"@{name}@", "value")
    assert not PLACEHOLDER.search(rendered)
    assert stack_keys == env_keys(rendered) == env_keys(template)
    assert len(stack_keys) == len(set(stack_keys))
    # The role writes its file from that template and nothing else.
    tasks = (ANSIBLE / "roles" / "app" / "tasks" / "main.yml").read_text()
    assert "stack_template: app.env" in tasks
    assert not list((ANSIBLE / "roles").glob("*/templates/*.env*"))


def test_the_stack_gives_its_settings_of_stack_conf_where_the_template_names_them(stack_function):
    template = dict(line.split("=", 1) for line in (DEPLOY / "templates" / "app.env").read_text().splitlines()
                    if line and not line.startswith("#"))
    environment = dict(line.split("=", 1) for line in stack_function("app_env").splitlines())
    named = {key: value[1:-1] for key, value in template.items() if re.fullmatch(r"@STACK_[A-Z0-9_]+@", value)}
    assert named
    for key, setting in named.items():
        assert environment[key] == stack_function("printenv", setting).strip(), key


def test_the_stacks_environment_loads_the_production_settings(stack_function):
    environment = dict(line.split("=", 1) for line in stack_function("app_env").splitlines())
    settings = production_settings(environment)
    assert settings["sessions"].startswith("redis://:") and settings["sessions"].endswith("/0")
    assert settings["broker"].startswith("redis://:") and settings["sentinels"] is None
    assert settings["single_sign_on"] is True and settings["role_mapping"] == {}
    assert settings["allowed_hosts"] == ["127.0.0.1", "localhost", "testserver"]


def production_settings(environment):
    """Return what production settings make of ``environment`` (a process of their own: Django set up afresh)."""
    probe = (
        "import json, django\n"
        "from django.conf import settings\n"
        "django.setup()\n"
        "print(json.dumps({'sessions': settings.CACHES['sessions']['LOCATION'], 'broker': settings.CELERY_BROKER_URL,\n"
        "    'sentinels': settings.CACHES['sessions']['OPTIONS'].get('sentinels'),\n"
        "    'single_sign_on': settings.SINGLE_SIGN_ON, 'role_mapping': settings.OIDC_ROLE_MAPPING,\n"
        "    'allowed_hosts': settings.ALLOWED_HOSTS}))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                            env={"PATH": os.environ["PATH"], **environment})
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


# ---------------------------------------------------------------- the processes

@pytest.mark.parametrize("function, process, extras", [
    ("gunicorn_command", "web", ["--max-requests", "--daemon", "--pid", "--error-logfile"]),
    ("celery_command", "worker", ["--beat", "--schedule", "--detach", "--pidfile", "--logfile"]),
])
def test_the_stack_starts_gunicorn_and_celery_with_the_procfiles_commands(stack_function, function, process,
                                                                          extras):
    words = stack_function(function).splitlines()
    shared, own = command_and_extras(" ".join(words), process, str(ROOT / ".venv" / "bin"))
    def setting(placeholder):
        return stack_function("printenv", placeholder.group(1)).strip()

    # Its own settings of stack.conf fill the Procfile's placeholders (its port, its number of workers).
    assert shared == PLACEHOLDER.sub(setting, procfile()[process])
    assert [word for word in own if word.startswith("-")] == extras
    assert_adds_no_procfile_option(own, process)


def role_task_vars(role, marker):
    """Return the `vars:` block, as written, of the task of ``role``'s tasks/main.yml that holds ``marker``."""
    text = (ANSIBLE / "roles" / role / "tasks" / "main.yml").read_text()
    [task] = [task for task in re.split(r"\n(?=- name: )", text) if marker in task]
    return re.search(r"^  vars:\n((?:    .*\n)+)", task + "\n", re.M).group(1)


def test_the_web_and_worker_roles_start_the_procfiles_processes():
    for process, role in ROLE_PROCESSES.items():
        block = role_task_vars(role, f"app_process: {process}\n")
        assert re.search(r'^    service_command: "\{\{ app_process_command \}\}[^"]*"$', block, re.M), block
        values = block.split("app_process_values:", 1)[1]
        assert set(re.findall(r"\b([A-Z][A-Z0-9_]*):", values)) == set(PLACEHOLDER.findall(procfile()[process]))
    assert set(ROLE_PROCESSES) == set(procfile())


# ---------------------------------------------------------------- the roles, rendered by Ansible

def ansible_playbook():
    found = shutil.which("ansible-playbook", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("ansible-playbook is missing (make install-lab)")
        pytest.skip("ansible-playbook is not installed (make install-lab)")
    return found


PROBE_PLAY = """\
- name: What the app role writes and the web and worker roles start, on one web and one worker host
  hosts: "{{ probe_hosts }}"
  connection: local
  gather_facts: false
  tasks:
    - name: The web and worker roles' defaults
      ansible.builtin.include_vars:
        file: "{{ playbook_dir }}/roles/{{ item }}/defaults/main.yml"
      loop: [web, worker]
    - name: The app role's environment file and the processes' commands
      ansible.builtin.include_role:
        name: app
        tasks_from: probe
"""

PROBE_COMMAND = """\
- name: The {process} command
  ansible.builtin.set_fact:
    probe_{process}: "{{{{ service_command }}}}"
  vars:
{vars}"""

PROBE_COMMANDS_WRITTEN = """\
- name: The commands, written down
  ansible.builtin.copy:
    content: "{{ {'web': probe_web, 'worker': probe_worker, 'beat': probe_beat} | to_json }}"
    dest: "{{ probe_out }}/{{ inventory_hostname }}.json"
    mode: "0600"
"""


@pytest.fixture(scope="module")
def rendered_by_the_roles(tmp_path_factory):
    """Render, with Ansible, for a web and a worker host of each inventory, the app role's environment file and
    the commands the web and worker roles give the service manager: their own tasks, run on a copy of the roles."""
    playbook = ansible_playbook()
    out = {}
    for inventory, hosts in {"lab": ["web1", "worker1"],
                             "example": ["web1.survey.example", "worker1.survey.example"]}.items():
        work = tmp_path_factory.mktemp(inventory)
        shutil.copytree(ANSIBLE, work / "deploy" / "ansible", ignore=shutil.ignore_patterns("secrets", "releases"))
        for name in ("templates", "tls"):
            (work / "deploy" / name).symlink_to(DEPLOY / name)
        app_tasks = (ANSIBLE / "roles" / "app" / "tasks" / "main.yml").read_text()
        [environment_task] = [task for task in re.split(r"\n(?=- name: )", app_tasks)
                              if "stack_template: app.env" in task]
        commands = [PROBE_COMMAND.format(process=process, vars=role_task_vars(role, f"app_process: {process}\n"))
                    for process, role in ROLE_PROCESSES.items()]
        probe = work / "deploy" / "ansible" / "roles" / "app" / "tasks" / "probe.yml"
        probe.write_text("\n".join([environment_task.strip() + "\n", *commands, PROBE_COMMANDS_WRITTEN]))
        (work / "deploy" / "ansible" / "probe.yml").write_text(PROBE_PLAY)
        (work / "out").mkdir()
        extra = {"probe_hosts": ":".join(hosts), "probe_out": str(work / "out"),
                 "app_env_file": "{{ probe_out }}/{{ inventory_hostname }}.env",
                 "app_user": pwd.getpwuid(os.getuid()).pw_name, "host_root": str(work / "root"),
                 "secrets_dir": str(work / "secrets"), "app_release_dir": "/opt/survey/releases/0123456789ab",
                 "app_requirements_hash": "ba9876543210"}
        environment = {**os.environ, "ANSIBLE_CONFIG": str(work / "deploy" / "ansible" / "ansible.cfg"),
                       "ANSIBLE_HOME": str(work / "ansible-home")}
        result = subprocess.run([playbook, "-i", f"inventories/{inventory}", "probe.yml", "-e", json.dumps(extra)],
                                cwd=work / "deploy" / "ansible", env=environment, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout[-4000:]
        out[inventory] = {host: {"env": (work / "out" / f"{host}.env").read_text(),
                                 **json.loads((work / "out" / f"{host}.json").read_text())} for host in hosts}
    return out


def sourced(text):
    """Return what a shell (bin/manage, supervisord's programs) makes of an environment file."""
    result = subprocess.run(["sh", "-c", 'set -a && . /dev/stdin && env -0'], input=text, capture_output=True,
                            text=True, env={}, check=True)
    return dict(item.split("=", 1) for item in result.stdout.split("\0") if "=" in item)


# Ids of their own: a test named "lab" or "stack" would be taken for one of those (conftest.py).
INVENTORIES = [pytest.param("lab", id="lab-inventory"), pytest.param("example", id="example-inventory")]


@pytest.mark.parametrize("inventory", INVENTORIES)
def test_the_app_roles_environment_file_has_the_stacks_keys_and_loads_the_settings(rendered_by_the_roles,
                                                                                    stack_function, inventory):
    stack_keys = env_keys(stack_function("app_env"))
    for host, files in rendered_by_the_roles[inventory].items():
        assert env_keys(files["env"]) == stack_keys, host
    # The web and worker hosts' files differ in no key; the settings are loaded once.
    environment = sourced(files["env"])
    assert set(stack_keys) <= set(environment)
    settings = production_settings({key: environment[key] for key in stack_keys})
    assert settings["broker"].startswith("sentinel://") and settings["sentinels"]
    assert settings["single_sign_on"] is False and settings["role_mapping"] == {}
    # A value with a quote in it (the provider's name) reaches the app as written.
    assert environment["OIDC_PROVIDER_NAME"] == "your agency's sign-in"


@pytest.mark.parametrize("inventory", INVENTORIES)
def test_the_roles_start_gunicorn_and_celery_with_the_procfiles_commands(rendered_by_the_roles, inventory):
    web, worker = rendered_by_the_roles[inventory].values()
    for process, files in (("web", web), ("worker", worker), ("beat", worker)):
        command = files[process].strip()
        program_dir = command.split(" ", 1)[0].rsplit("/", 1)[0]
        assert program_dir.endswith("/bin"), command
        shared, own = command_and_extras(command, process, program_dir)
        assert not PLACEHOLDER.search(shared)
        assert_adds_no_procfile_option(own, process)
        assert shlex.split(command) == command.split()


# ---------------------------------------------------------------- the restore steps both scripts share

def restore_moment(*arguments):
    script = ('die() { echo "$*" >&2; exit 1; }; . "$1"; shift; restore_moment "x restore" "$@"; '
              'printf "%s\\n" "${RESTORE_OPTIONS[@]}"')
    return subprocess.run(["bash", "-c", script, "bash", str(DEPLOY / "restore.sh"), *arguments],
                          capture_output=True, text=True)


@pytest.mark.parametrize("arguments, refusal", [
    ((), "usage: x restore --to"),
    (("--to",), "usage: x restore --to"),
    (("--to", "2026-11-26 10:00:00+00", "again"), "usage: x restore --to"),
    (("--to", "yesterday"), "is not a moment with its time zone"),
    (("--to", "2026-11-26 10:00:00"), "is not a moment with its time zone"),
    (("--to", "2999-01-01 00:00:00+00"), "is in the future"),
])
def test_a_restore_refuses_a_moment_it_cannot_use(arguments, refusal):
    run = restore_moment(*arguments)
    assert run.returncode == 1 and refusal in run.stderr and not run.stdout


def test_a_restore_asks_pgbackrest_for_the_moment_and_a_promotion_there():
    run = restore_moment("--to", "2026-11-26 10:00:00+00")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["--delta", "--type=time", "--target=2026-11-26 10:00:00+00",
                                       "--target-action=promote"]


@pytest.mark.parametrize("script", ["deploy/stack", "deploy/lab"])
def test_the_stack_and_the_lab_restore_with_the_shared_steps(script):
    text = (ROOT / script).read_text()
    assert '. "$ROOT/deploy/restore.sh"' in text
    for step in ("restore_moment", "wal_archive_now", "recovery_settings_reset", "memcached_flush"):
        assert step in text, f"{script} does not use {step}"
    assert "pg_switch_wal" not in text and "ALTER SYSTEM RESET" not in text and "flush_all" not in text
