PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

$(VENV): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(VENV)

run: $(VENV)
	$(BIN)/wire run --config config/demo.toml

test: $(VENV)
	$(BIN)/ruff check .
	$(BIN)/pytest

lint: $(VENV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench: $(VENV)
	$(BIN)/python bench/compose.py

clean:
	rm -rf $(VENV) var .pytest_cache
