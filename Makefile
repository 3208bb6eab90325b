PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Test processes for pytest-xdist: most slow tests wait on subprocesses and sockets, so two
# workers halve the suite's time on a two-core machine. PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= 2
# The chaos tests (database restart, cut connections, full disk) run this many times in a row.
CHAOS_ROUNDS ?= 5

.PHONY: run test chaos lint typecheck bench clean

# .venv holds [dev]: the test tools and every extra (service, slack, discord, postgres), so
# both `make run` and `make test` use it.
$(VENV): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# PYTHONWARNINGS: setuptools prints a 9-line notice on every editable install, --quiet or not
	PYTHONWARNINGS=ignore $(BIN)/pip install --quiet -e '.[dev]'
	touch $(VENV)

run: $(VENV)
	$(BIN)/wire run --config config/demo.toml

test: $(VENV)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -n $(PYTEST_WORKERS)

chaos: $(VENV)
	for round in $$(seq $(CHAOS_ROUNDS)); do \
		echo "chaos round $$round of $(CHAOS_ROUNDS)"; \
		$(BIN)/pytest -q -n $(PYTEST_WORKERS) -p no:cacheprovider --no-skip tests/test_chaos_*.py || exit 1; \
	done

lint: $(VENV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Also part of `make test`; strict on digest/ ([tool.mypy] in pyproject.toml).
typecheck: $(VENV)
	$(BIN)/mypy

bench: $(VENV)
	$(BIN)/python bench/compose.py

clean:
	rm -rf $(VENV) var .pytest_cache
