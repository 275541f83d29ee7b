# Commands for people: `make demo` starts the app, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: install-lab lab-up lab-down lab-test messages demo test test-local test-stack bench bench-micro profile sizing plan plan-check bench-login-flood bench-roster bench-staff-import bench-monitoring bench-results bench-export bench-search page-weight smoke fuzz fuzz-uploads drill restore-drill lab-restore-drill lab-drill lint lint-ansible install install-dev migrate clean help stack-up stack-down stack-status demo-stack

help:
	@echo "make demo    install into .venv, migrate SQLite, seed the demo survey, serve it on http://127.0.0.1:$(PORT)/"
	@echo "make test    the whole test suite: on the embedded default, then against the live stack"
	@echo "make test-local / test-stack    one of the two runs"
	@echo "make stack-up / stack-down / stack-status    the one-box production stack (deploy/stack)"
	@echo "make demo-stack    the demo survey in the stack, served by nginx"
	@echo "make bench [DURATION=60 THREADS=50 THINK=0]    JMeter through the stack, the survey without and with skip logic: the table and jmeter/results/bench.json"
	@echo "make smoke    a few respondents through the stack with JMeter, and the data check (CI)"
	@echo "make fuzz [REQUESTS=10000]    adversarial requests through nginx: a status histogram; fails on any 5xx or bad stored value"
	@echo "make fuzz-uploads    hostile roster, directory and survey files read in fresh processes: memory and time against the bound"
	@echo "make restore-drill / lab-restore-drill [RESTORE_ARGS='--short']    a backup under load, the answers destroyed, a restore to a moment, a recount"
	@echo "make lab-drill [LAB_DRILL_ARGS='--faults web1 --modes sync']    machines lost under load on the lab (deploy/lab up first)"
	@echo "make drill [DRILL_ARGS='--short']    faults under load (both replication modes): per fault saves, lost, duplicates, statuses, recovery"
	@echo "make bench-roster ROWS=1000000    a state-wide roster import into the stack: seconds, rows/s, peak RSS; slips/s"
	@echo "make bench-staff-import [ACCOUNTS=5000]    staff accounts in bulk, the first import and the same file again: s, peak RSS, queries (SQLite; the stack's PostgreSQL in its environment)"
	@echo "make bench-monitoring RESPONDENTS=2000000    monitoring pages at state scale on the stack: summary rebuild s, each page's ms"
	@echo "make bench-results RESPONDENTS=2000000 SCHOOLS=3000    results by question on the stack: the counts' rebuild s, each page's median and p95 ms and queries"
	@echo "make bench-export RESPONDENTS=1000000    CSV and XLSX exports of that many completed respondents x 60 questions: s, peak RSS"
	@echo "make bench-search RESPONDENTS=2000000 SEARCH_SCHOOLS=3000    finding people at state scale on the stack: each search page's ms (median, p95), queries, plans"
	@echo "make bench-micro    in-process timings of a request's parts (rendering, sessions, JSON)"
	@echo "make sizing [SIZING_ARGS='--workers 3,5,9']    the survey mix with 3/5/9 gunicorn workers, pgbouncer pools 5/20, think 0/1/5 s: jmeter/results/sizing.json"
	@echo "make plan [PLAN_ARGS='--takers-per-hour 50000 --pages 55']    the capacity plan: machines and settings for a survey's peak (deploy/plan)"
	@echo "make plan-check [PLAN_CHECK_REPEAT=3]    a fresh bench, then make sizing's settings several times each: the model's predictions against the medians (within 20%)"
	@echo "make profile [PROFILE_ARGS='--duration 40']    py-spy flame graph of the gunicorn workers under the survey plan, cProfile of each kind of request"
	@echo "make bench-login-flood    respondents' latency while 20 clients hammer the staff login, limits off and on"
	@echo "make page-weight    what a respondent's browser downloads for the survey page through the stack: requests, raw and gzip bytes"
	@echo "make lint    ruff (likely bugs, missing annotations, import order, Django and security checks), then mypy on every app"
	@echo "make messages    extract the respondent interface's strings into config/locale (Spanish) and compile them (needs gettext)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(VENV)/.installed $@

# Front-end libraries from package-lock.json (chart.js for the monitoring charts), served as static files.
# Without npm the monitoring pages keep their tables and draw no charts.
node_modules/.installed: package.json package-lock.json
	@if command -v npm >/dev/null; then \
	  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && touch $@; \
	else \
	  echo "npm not found: the monitoring pages will show their tables without charts (install nodejs and npm)."; \
	fi

install: $(VENV)/.installed node_modules/.installed
install-dev: $(VENV)/.installed-dev node_modules/.installed

# The lab's controller: Ansible (deploy/lab).
$(VENV)/.installed-lab: requirements-lab.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-lab.txt
	touch $@

install-lab: $(VENV)/.installed-lab

# The respondent interface's catalogue (config/locale); the .mo is committed, so that `make demo` needs no gettext.
messages: install
	$(BIN)/python manage.py respondent_messages

# The debug toolbar is a development requirement: `DEBUG_TOOLBAR=1 make demo` installs requirements-dev.txt too.
migrate: $(if $(DEBUG_TOOLBAR),install-dev,install)
	$(BIN)/python manage.py migrate --noinput

# The address the demo serves: its emailed links (STAFF_SITE_URL) and its slips' QR codes (SURVEY_PUBLIC_URL) name
# it, whatever PORT is.
DEMO_URL = http://127.0.0.1:$(PORT)
demo: migrate
	$(BIN)/python manage.py seed_demo
	@echo
	@echo "Open $(DEMO_URL)/ in a browser and type one of the codes above."
	@echo
	STAFF_SITE_URL=$(DEMO_URL) SURVEY_PUBLIC_URL=$(DEMO_URL)/ $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

test: test-local test-stack

# CI sets CI=true: then a missing browser or service is an error, not a skipped test.
test-local: install-dev
	deploy/install-packages $(if $(CI),,--optional) tests
	$(BIN)/pytest $(PYTEST_ARGS)

# The same suite plus the tests marked `stack`, against the live stack (started if needed).
test-stack: install-dev
	@if [ -z "$(CI)" ] && ! deploy/install-packages --check stack; then \
	  echo "Skipping the run against the live stack: install $$(deploy/install-packages --list stack) (or run as root)."; \
	else \
	  deploy/stack up >/dev/null && \
	  set -a && eval "$$(deploy/stack env)" && set +a && \
	  DJANGO_SETTINGS_MODULE=config.settings.stack_test $(BIN)/pytest --reuse-db -p no:cacheprovider $(PYTEST_ARGS); \
	fi

DURATION ?= 60
THREADS ?= 50
ROWS ?= 1000000
THINK ?= 0
PAGES ?= 20

# The survey, then the same survey with skip logic (same run), then /ping/.
bench: install
	jmeter/bench --duration $(DURATION) --threads $(THREADS) --think $(THINK) --pages $(PAGES) --conditions

smoke: install
	jmeter/bench --smoke --conditions

REQUESTS ?= 10000

fuzz: install
	jmeter/fuzz --requests $(REQUESTS)

fuzz-uploads: install
	$(BIN)/python manage.py bench upload_bombs

DRILL_ARGS ?=

drill: install
	deploy/drill $(DRILL_ARGS)

RESTORE_ARGS ?=

# Backups under load, the answers destroyed, a restore to a moment, a recount (bench/restore_drill.py).
restore-drill: install
	jmeter/install
	PYTHONUNBUFFERED=1 $(BIN)/python manage.py bench restore_drill $(RESTORE_ARGS)

LAB_DRILL_ARGS ?=

# Machines and networks lost under load through lb1, in both replication modes (bench/lab_drill.py).
lab-drill: install-lab
	jmeter/install
	PYTHONUNBUFFERED=1 $(BIN)/python manage.py bench lab_drill $(LAB_DRILL_ARGS)

lab-restore-drill: install-lab
	jmeter/install
	PYTHONUNBUFFERED=1 $(BIN)/python manage.py bench restore_drill --lab $(RESTORE_ARGS)

bench-roster: install
	$(BIN)/python manage.py bench roster_bench --rows $(ROWS)

# No stack needed: a new SQLite database, or the stack's PostgreSQL when run in its environment (bench/staff_import_bench.py).
bench-staff-import: install
	$(BIN)/python manage.py bench staff_import_bench --accounts $(or $(ACCOUNTS),5000)

SCHOOLS ?= 2000

bench-monitoring: install
	$(BIN)/python manage.py bench monitoring_bench --respondents $(or $(RESPONDENTS),2000000) --schools $(SCHOOLS)

# The seeded survey stays for the next run; SEARCH_ARGS=--drop deletes it.
bench-search: install
	$(BIN)/python manage.py bench search_bench --respondents $(or $(RESPONDENTS),2000000) --schools $(or $(SEARCH_SCHOOLS),3000) $(SEARCH_ARGS)

# The seeded survey stays for the next run; RESULTS_ARGS=--drop deletes it. 3,000 schools unless SCHOOLS is given.
bench-results: install
	$(BIN)/python manage.py bench results_bench --respondents $(or $(RESPONDENTS),2000000) --schools $(if $(filter file,$(origin SCHOOLS)),3000,$(SCHOOLS)) $(RESULTS_ARGS)

# The seeded survey stays for the next run; EXPORT_ARGS=--drop deletes it.
bench-export: install
	$(BIN)/python manage.py bench export_bench --respondents $(or $(RESPONDENTS),1000000) --schools $(SCHOOLS) $(EXPORT_ARGS)

bench-micro: install
	$(BIN)/python manage.py bench microbench

SIZING_ARGS ?=

sizing: install
	jmeter/install
	$(BIN)/python manage.py bench sizing $(SIZING_ARGS)

PLAN_ARGS ?=

# The capacity plan (deploy/capacity.py): needs no database, only a bench's measurements.
plan:
	deploy/plan $(PLAN_ARGS)

PLAN_CHECK_REPEAT ?= 3
PLAN_CHECK_BENCH ?= 1

# The model against this machine: a fresh bench (PLAN_CHECK_BENCH=0 keeps jmeter/results/bench.json), then each
# of make sizing's settings PLAN_CHECK_REPEAT times, then deploy/plan check compares the medians.
plan-check: install
	jmeter/install
	@if [ "$(PLAN_CHECK_BENCH)" = 1 ] || [ ! -f jmeter/results/bench.json ]; then \
	  $(MAKE) --no-print-directory bench; fi
	PYTHONUNBUFFERED=1 $(BIN)/python manage.py bench sizing --repeat $(PLAN_CHECK_REPEAT) --reference $(SIZING_ARGS)
	deploy/plan check --measurements jmeter/results/bench.json --sizing jmeter/results/sizing.json

PROFILE_ARGS ?=

profile: install-dev
	jmeter/install
	$(BIN)/python manage.py bench cpu_profile $(PROFILE_ARGS)

bench-login-flood: install
	jmeter/login-flood

page-weight: stack-up
	$(BIN)/python manage.py bench page_weight --json jmeter/results/page-weight.json

# The lab: every server role on network-namespace hosts of this machine, through Ansible (deploy/lab).
lab-up: install install-lab
	deploy/lab up

lab-down:
	deploy/lab down

# The tests marked `lab`, against the running lab (deploy/lab up first).
lab-test: install-dev install-lab
	LAB_TESTS=1 $(BIN)/pytest -m lab $(PYTEST_ARGS)

stack-up: install
	deploy/stack up

stack-down:
	deploy/stack down

stack-status:
	deploy/stack status

demo-stack: stack-up
	deploy/stack manage seed_demo
	@echo
	@deploy/stack status | sed -n 's|^app: \(.*\)|Open \1 in a browser and type one of the codes above.|p'

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/mypy

# The playbook and every role parse, against both inventories (no host is reached).
lint-ansible: install-lab
	cd deploy/ansible && for inventory in lab example; do \
	  ANSIBLE_CONFIG=ansible.cfg ../../$(BIN)/ansible-playbook -i inventories/$$inventory site.yml --syntax-check >/dev/null \
	    || exit 1; done; echo "site.yml: syntax ok (inventories lab, example)"

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache
