# nandlab: two commands on a fresh machine (Debian, Python 3.11, root, no hardware)
#   make demo   sets itself up and runs a characterization campaign on a virtual chip
#   make test   sets itself up and runs every test suite
# Other targets: lint, bench, regen (regenerate files derived from one source), clean.
# Every target is idempotent: setup steps are guarded by stamp files.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP_PY  := $(VENV)/.stamp-python
STAMP_SYS := $(VENV)/.stamp-system
DEMO_OUT ?= runs

.PHONY: setup demo test test-host test-e2e test-generated lint bench regen clean

setup: $(STAMP_PY) $(STAMP_SYS)

$(STAMP_PY): host/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --upgrade pip==26.3
	$(BIN)/pip install --quiet --disable-pip-version-check -e 'host[dev]'
	touch $@

# System tools the suites use: gcc (C header check), iverilog + verilator (SV package lint).
$(STAMP_SYS):
	@mkdir -p $(VENV)
	@need=""; \
	command -v gcc >/dev/null || need="$$need gcc"; \
	command -v iverilog >/dev/null || need="$$need iverilog"; \
	command -v verilator >/dev/null || need="$$need verilator"; \
	if [ -n "$$need" ]; then \
	  echo "installing system packages:$$need"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null; \
	fi
	touch $@

demo: setup
	$(BIN)/nandlab demo --out $(DEMO_OUT)

test: setup lint test-generated test-host test-e2e

test-generated: setup
	$(PY) -m nandlab.ops.codegen --check

test-host: setup
	cd host && ../$(BIN)/pytest -q -p no:cacheprovider tests

test-e2e: setup
	$(BIN)/pytest -q -p no:cacheprovider tests

lint: setup
	$(BIN)/ruff check host tests bench
	cd host && ../$(BIN)/mypy nandlab

bench: setup
	@echo "# make bench: each figure on its own line as 'name: value'"
	$(PY) bench/page_sense.py
	$(PY) bench/demo_speed.py
	$(PY) bench/campaign_speed.py

regen: setup
	$(PY) -m nandlab.ops.codegen

clean:
	rm -rf $(VENV) runs .pytest_cache

# ---- FPGA design (hw/): generated files and RTL tool checks ----
# peakrdl* regenerate the CSR block / C header / Python map; yosys, iverilog and
# verilator run the RTL checks in host/tests/test_hw_*.py.
STAMP_HW := $(VENV)/.stamp-hw

.PHONY: setup-hw test-hw regen-hw

$(STAMP_HW): $(STAMP_PY)
	$(BIN)/pip install --quiet --disable-pip-version-check peakrdl==1.5.0 peakrdl-regblock==1.3.1 peakrdl-cheader==1.1.0 systemrdl-compiler==1.33.0
	@need=""; \
	for t in yosys iverilog verilator; do command -v $$t >/dev/null || need="$$need $$t"; done; \
	if [ -n "$$need" ]; then \
	  echo "installing system packages:$$need"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null; \
	fi
	touch $@

setup-hw: $(STAMP_HW)

test-hw: setup setup-hw
	$(PY) -m nandlab.hwgen --check
	cd host && ../$(BIN)/pytest -q -p no:cacheprovider tests/test_hw_generated.py tests/test_hw_rtl_tools.py tests/test_hw_rtl_smoke.py

regen-hw: setup setup-hw
	$(PY) -m nandlab.hwgen
