# Everything the project needs is installed into .venv by these targets.
PY ?= python3
# the test suite's worker processes (pytest-xdist): CI has 2 cores
JOBS ?= 2
# the extras installed by setup: `make setup EXTRAS=test,native` adds Cython (the native path,
# MERCATOR_NATIVE=1, docs/performance.md)
EXTRAS ?= test
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup run test bench clean

$(BIN)/mercator: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[$(EXTRAS)]'
	touch $(BIN)/mercator

setup: $(BIN)/mercator

run: setup
	$(BIN)/mercator check rulebooks/manila.rules
	$(BIN)/mercator play rulebooks/manila.rules --players 4 --seats random,random,random,random --seed 1

test: setup
	$(BIN)/python -m pytest -q -n $(JOBS)

bench: setup
	$(BIN)/python benchmarks/bench_manila.py

clean:
	rm -rf $(VENV)
