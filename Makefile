# Headroom: `make run` starts everything; `make test` runs the whole suite.
# Both create the virtualenv and install requirements on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench-ingest bench-views bench-api reliability clean-var help agent bench-agent

help:
	@echo "make run    - start web + worker + beat with the demo campaign (embedded PostgreSQL if no DATABASE_URL)"
	@echo "make test   - ruff, mypy and pytest against real PostgreSQL and a real broker"
	@echo "make bench-ingest - ingest benchmark (ratio against raw COPY)"
	@echo "make bench-views - capacity endpoint at 1 M vs 10 M samples"
	@echo "make bench-api - 200 concurrent uploads to gunicorn: p50/p99 and count stored"
	@echo "make reliability - crash/outage/restart/fuzz/limit proofs at full size"
	@echo "make agent  - build dist/headroom-agent.pyz (the agent as one file)"
	@echo "make bench-agent - CPU cost of live sampling at 1 Hz (BENCH_ARGS=--duration 600)"

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m webapp.launcher run

test: $(STAMP)
	$(PY) -m webapp.launcher test $(PYTEST_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check . && $(PY) -m ruff format --check . && $(PY) -m mypy .

bench-ingest: $(STAMP)
	$(PY) -m webapp.launcher bench bench/ingest.py $(BENCH_ARGS)

bench-views: $(STAMP)
	$(PY) -m webapp.launcher bench bench/views.py $(BENCH_ARGS)

bench-api: $(STAMP)
	$(PY) -m webapp.launcher bench bench/api.py $(BENCH_ARGS)

reliability: $(STAMP)
	HEADROOM_RELIABILITY_KILLS=20 HEADROOM_RELIABILITY_UPLOADS=500 HEADROOM_FUZZ_EXAMPLES=100000 \
		$(PY) -m webapp.launcher test tests/reliability $(PYTEST_ARGS)

agent:
	$(PYTHON) agents/build_zipapp.py

bench-agent: $(STAMP)
	$(PY) agents/bench_overhead.py $(BENCH_ARGS)

clean-var:
	rm -rf var
