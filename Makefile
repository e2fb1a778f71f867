# Headroom: `make run` starts everything; `make test` runs the whole suite.
# Both create the virtualenv and install requirements on first use.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
# Two stamps: `make run` installs only what running needs (requirements.txt);
# tests, lint and benchmarks install the dev tools too (requirements-dev.txt).
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed

.PHONY: run test test-timescale test-both lint bench-ingest bench-storage bench-views bench-views-100m bench-api bench-abuse reliability clean-var help agent bench-agent token manage

help:
	@echo "make run    - start web + worker + beat with the demo campaign (embedded PostgreSQL if no DATABASE_URL)"
	@echo "make test   - ruff, mypy, lint-imports and pytest against real PostgreSQL and a real broker"
	@echo "make test-timescale - the same suite on TimescaleDB (../shared/timescaledb); make test-both runs both"
	@echo "make token PROJECT=<slug> - create an agent token (beside make run: uses var/run.env)"
	@echo "make manage ARGS=\"...\" - any manage.py command in the environment make run made"
	@echo "make bench-ingest - ingest benchmark (ratio against raw COPY)"
	@echo "make bench-storage - bytes per stored sample, plain/TimescaleDB/compressed vs the gzip'd CSV"
	@echo "make bench-views - capacity endpoint at 1 M vs 10 M samples"
	@echo "make bench-views-100m - every counter view at 1 M, 10 M and 100 M samples (or bench-views BENCH_ARGS=--at=100m)"
	@echo "make bench-api - 200 concurrent uploads to gunicorn: p50/p99 and count stored"
	@echo "make bench-abuse - seconds per hostile request of issue 26 against gunicorn, vs GET /healthz"
	@echo "make reliability - crash/outage/restart/fuzz/limit proofs at full size"
	@echo "make agent  - build dist/headroom-agent.pyz (the agent as one file)"
	@echo "make bench-agent - CPU cost of live sampling at 1 Hz (BENCH_ARGS=--duration 600)"

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): requirements.txt | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(RUN_STAMP)

# requirements-dev.txt includes requirements.txt: the run stamp is satisfied too.
$(STAMP): requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(STAMP) $(RUN_STAMP)

run: $(RUN_STAMP)
	$(PY) -m webapp.launcher run

test: $(STAMP)
	$(PY) -m webapp.launcher test $(PYTEST_ARGS)

# The same suite on TimescaleDB (the production database): a private cluster from
# ../shared/timescaledb (TimescaleDB 2.28.3 on PostgreSQL 15) on port 55432.
TSDB_START ?= ../shared/timescaledb/start
test-timescale: $(STAMP)
	@test -x "$(TSDB_START)" || { echo "no TimescaleDB build at $(TSDB_START) (set TSDB_START=...)"; exit 1; }
	url=$$("$(TSDB_START)" | tail -1 | sed 's/^DATABASE_URL=//') && \
		DATABASE_URL="$$url" HEADROOM_TIMESCALE=on $(PY) -m webapp.launcher test $(PYTEST_ARGS)

# Both modes, as CI runs them.
test-both: test test-timescale

token: $(RUN_STAMP)
	@test -n "$(PROJECT)" || { echo "usage: make token PROJECT=<slug>"; exit 2; }
	$(PY) manage.py create_agent_token --project $(PROJECT)

manage: $(RUN_STAMP)
	$(PY) manage.py $(ARGS)

lint: $(STAMP)
	$(PY) -m ruff check . && $(PY) -m ruff format --check . && $(PY) -m mypy . && $(VENV)/bin/lint-imports

bench-ingest: $(STAMP)
	$(PY) -m webapp.launcher bench bench/ingest.py $(BENCH_ARGS)

bench-storage: $(STAMP)
	$(PY) -m webapp.launcher bench bench/storage.py $(BENCH_ARGS)

bench-views: $(STAMP)
	$(PY) -m webapp.launcher bench bench/views.py $(BENCH_ARGS)

bench-views-100m: $(STAMP)
	$(PY) -m webapp.launcher bench bench/views_scale.py $(BENCH_ARGS)

bench-api: $(STAMP)
	$(PY) -m webapp.launcher bench bench/api.py $(BENCH_ARGS)

bench-abuse: $(STAMP)
	$(PY) -m webapp.launcher bench bench/abuse.py $(BENCH_ARGS)

reliability: $(STAMP)
	HEADROOM_RELIABILITY_KILLS=20 HEADROOM_RELIABILITY_UPLOADS=500 HEADROOM_FUZZ_EXAMPLES=100000 \
		HEADROOM_RELIABILITY_TIMING_ROWS=2000000 \
		$(PY) -m webapp.launcher test tests/reliability $(PYTEST_ARGS)

agent:
	$(PYTHON) agents/build_zipapp.py

bench-agent: $(STAMP)
	$(PY) agents/bench_overhead.py $(BENCH_ARGS)

clean-var:
	rm -rf var
