# One command installs and runs the main job (`make fit`); one installs and runs the tests (`make test`).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TORCH := torch==2.13.0
STAMP := $(VENV)/.installed

.PHONY: install fit test lint clean

install: $(STAMP)
	@echo "zoo is installed in $(VENV): run 'source $(BIN)/activate' for python -m zoo (make fit and make test need no activation)"

# torch is pinned first so that pip never resolves an unpinned torch to a multi-GB CUDA build
# on a CPU machine; a GPU machine gets CUDA from the same pin.
$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -e '.[dev]' $(TORCH)
	touch $(STAMP)

fit: install
	$(BIN)/python -m zoo fit --config configs/quickstart.yaml

# one worker per core (pytest-xdist), each with its share of the threads (tests/conftest.py); work stealing
# keeps both busy beside the few long real-data tests; the 25 slowest tests are listed at the end
test: install
	$(BIN)/python -m pytest -q -n auto --dist worksteal --durations=25

lint: install
	$(BIN)/ruff check zoo tests

clean:
	rm -rf $(VENV) build *.egg-info
