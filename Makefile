# slotscope: `make run` and `make test` are all the set-up a newcomer needs.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8050
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# PyFlink lives in a venv of its own (see pyproject's `flink` extra for why).
FLINK_VENV  := .venv-flink
FLINK_STAMP := $(FLINK_VENV)/.installed
FLINK_REQ   := apache-flink>=1.19

.PHONY: run test bench lint screenshot setup system-deps browser-deps flink-venv flink-fixtures clean

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

setup: $(STAMP) system-deps

# Java 17+ for Spark; installed from Debian when missing.
system-deps:
	@command -v java >/dev/null 2>&1 || bash .ci/apt-install openjdk-17-jre-headless

# Chromium and its driver for the browser tests.
browser-deps:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 \
	  || bash .ci/apt-install chromium chromium-driver

# .venv-flink: the importer tests build real Flink job plans with it (else they use the
# committed ones); `make flink-fixtures` rewrites tests/importers/fixtures/flink_*.json.
$(FLINK_STAMP):
	python3 -m venv $(FLINK_VENV)
	$(FLINK_VENV)/bin/python -m pip install -q --upgrade pip
	$(FLINK_VENV)/bin/python -m pip install -q '$(FLINK_REQ)'
	touch $(FLINK_STAMP)

flink-venv: $(FLINK_STAMP)

flink-fixtures: $(FLINK_STAMP)
	$(FLINK_VENV)/bin/python tests/importers/flink_jobs.py

run: setup
	$(VENV)/bin/slotscope dashboard --host $(HOST) --port $(PORT)

# Two workers on a 2-core machine (pytest-xdist); TEST_WORKERS=0 runs in one process.
TEST_WORKERS ?= 2
test: setup browser-deps flink-venv
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=25

# Refresh docs/screenshot.png (the README's picture); `make test` never writes it.
screenshot: setup browser-deps
	SLOTSCOPE_SCREENSHOT=1 $(PY) -m pytest -q tests/browser/test_simulate.py -k wordcount_link

bench: setup
	$(PY) -m bench

lint: $(STAMP)
	$(VENV)/bin/ruff check core dashboard tests bench
	$(VENV)/bin/ruff format --check core dashboard tests bench

clean:
	rm -rf $(VENV) $(FLINK_VENV) build *.egg-info
