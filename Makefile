# Commands for people: `make demo` starts the app, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: demo test lint install install-dev migrate clean help

help:
	@echo "make demo    install into .venv, migrate SQLite, seed the demo survey, serve it on http://127.0.0.1:$(PORT)/"
	@echo "make test    install test tools (and Debian's chromium), run the whole test suite"
	@echo "make lint    ruff: unused names, likely bugs"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(VENV)/.installed $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

migrate: install
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py seed_demo
	@echo
	@echo "Open http://127.0.0.1:$(PORT)/ in a browser and type one of the codes above."
	@echo
	$(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# CI sets CI=true: then a missing browser is an error, not a skipped test.
test: install-dev
	deploy/install-packages $(if $(CI),,--optional) chromium
	$(BIN)/pytest $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .pytest_cache
