# `make demo` and `make test` do all the set-up on a fresh machine: they create .venv and install into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[demo]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-demo

demo: $(VENV)/.installed-demo
	$(BIN)/python -m ndgrad demo

test: $(VENV)/.installed-test
	$(BIN)/python -m ruff check src tests bench
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache
