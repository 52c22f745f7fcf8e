# nandlab: two commands on a fresh machine (Debian, Python 3.11, root, no hardware)
#   make demo   sets itself up and runs a characterization campaign on a virtual chip
#   make test   sets itself up and runs every test suite
# Other targets: lint, bench, regen (regenerate files derived from one source), clean.
# Every target is idempotent: setup steps are guarded by stamp files.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP_BASE := $(VENV)/.stamp-base
STAMP_PY   := $(VENV)/.stamp-python
STAMP_SYS  := $(VENV)/.stamp-system
DEMO_OUT ?= runs

.PHONY: setup demo test test-host test-e2e test-rtl test-rtl-full test-generated test-firmware test-firmware-loop lint bench ldpc-fer esp-zero-full hls-lib regen clean fuzz screenshots

setup: $(STAMP_PY) $(STAMP_SYS)

# Runtime dependencies are ranges in host/pyproject.toml; constraints.txt pins the exact
# versions these commands install. The demo needs the base set only; the suites add the
# extras for real benches (hw), the RTL bench (rtl), Ray (scale) and the tools (dev).
$(STAMP_BASE): host/pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check --upgrade pip==26.3
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e host
	touch $@

$(STAMP_PY): $(STAMP_BASE)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e 'host[dev,hw,rtl,serve,scale]'
	touch $@

# System tools the suites use: gcc / g++ (C header, HLS C-simulation), iverilog,
# verilator and yosys (RTL lint, simulation and synthesis checks), chromium (the
# dashboard's browser test drives Debian's browser; Playwright downloads none).
# gcc-riscv64-unknown-elf, picolibc and cmocka: the firmware cross-build and its native tests.
# A tool is a command on PATH, or (starting with /) a file the package installs.
SYSTEM_TOOLS := gcc:gcc g++:g++ iverilog:iverilog verilator:verilator yosys:yosys chromium:chromium \
	riscv64-unknown-elf-gcc:gcc-riscv64-unknown-elf \
	/usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs:picolibc-riscv64-unknown-elf \
	/usr/include/cmocka.h:libcmocka-dev

$(STAMP_SYS): Makefile
	@mkdir -p $(VENV)
	@need=""; \
	for pair in $(SYSTEM_TOOLS); do \
	  t=$${pair%%:*}; \
	  case $$t in /*) [ -e $$t ];; *) command -v $$t >/dev/null;; esac || need="$$need $${pair#*:}"; \
	done; \
	if [ -n "$$need" ]; then \
	  echo "installing system packages:$$need"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null; \
	fi
	touch $@

demo: $(STAMP_BASE)
	$(BIN)/nandlab demo --out $(DEMO_OUT)

test: setup lint test-generated test-firmware test-host test-e2e test-rtl

test-generated: setup
	$(PY) -m nandlab.ops.codegen --check
	$(PY) -m nandlab.hwgen --check
	$(PY) -m nandlab.firmware.cpu_regs --check

# Board CPU firmware: the rv32imc cross-build with its size report (fails past
# 64 KiB), the native cmocka tests, the host build the Python mailbox tests load.
test-firmware: setup
	$(MAKE) -C firmware all test host-lib

# Firmware in the loop: the cross-built ELF on PicoRV32 beside nandlab_core and a
# virtual die (firmware/sim: Icarus and Verilator, the rtl://...?firmware= bench with
# the mailbox loader, and the I2C / PWM peripherals against datasheet models and a
# thermal plant; about 6 minutes once built: not part of make test).
test-firmware-loop: setup
	$(BIN)/pytest -q -p no:cacheprovider firmware/sim

# Suites run on every core (pytest-xdist); a test file stays on one worker, so
# module fixtures and an RTL bench's build folders are never shared between workers.
PYTEST := $(BIN)/pytest -q -p no:cacheprovider -n auto --dist loadfile

# The CoX-PM HLS kernel (hw/hls/coxpm) compiled with g++ into hw/hls/build/libcoxpm.so: the
# read-stream matcher of rtl:// benches (docs/cox-pm.md). Rebuilt only when a source changed;
# the bench and the tests also build it on first use.
hls-lib: setup
	$(PY) -c "from nandlab.transport.fpga_coxpm import build_library; print(build_library())"

test-host: setup hls-lib
	cd host && ../$(PYTEST) tests

test-e2e: setup
	$(PYTEST) tests

# cocotb testbenches of the RTL (hw/tb/<module>/), each over its quick grid;
# test-rtl-full runs every SDR mode on both simulators and every NV-DDR2 / NV-DDR3
# mode on Icarus (about 30 minutes more).
test-rtl: setup
	$(PYTEST) hw/tb

test-rtl-full: setup
	$(PYTEST) hw/tb --rtl-full

# The dashboard's screenshots in docs/img (docs/dashboard.md): its browser test, saving them
screenshots: setup
	NANDLAB_SCREENSHOTS=$(CURDIR)/docs/img $(BIN)/pytest -q -p no:cacheprovider tests/test_dashboard_browser.py

# ruff, mypy, and the house plan's import contracts (host/pyproject.toml [tool.importlinter])
lint: setup
	$(BIN)/ruff check host tests bench hw/tb characterization fuzz firmware/sim
	cd host && ../$(BIN)/mypy nandlab
	cd host && ../$(BIN)/lint-imports

# Coverage-guided fuzzing of the parsers (fuzz/targets.py) with atheris, FUZZ_SECONDS per
# target. New inputs go to $(FUZZ_WORK)/<target>; an input that raises, hangs or exhausts
# memory to $(FUZZ_WORK)/<target>-{crash,timeout,oom}-*: fix the parser and keep the input in
# fuzz/corpus/<target>/ (make test replays that corpus, without atheris).
FUZZ_SECONDS ?= 60
FUZZ_WORK ?= $(VENV)/fuzz
FUZZ_TARGETS := campaign expression url parameter_page op_program
STAMP_FUZZ := $(VENV)/.stamp-fuzz

$(STAMP_FUZZ): $(STAMP_PY)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e 'host[fuzz]'
	touch $@

fuzz: setup $(STAMP_FUZZ)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_WORK)/$$t; rm -f $(FUZZ_WORK)/$$t-*-*; \
	  echo "fuzz $$t: $(FUZZ_SECONDS) s"; \
	  $(PY) fuzz/run.py $$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_WORK)/$$t- $(FUZZ_WORK)/$$t fuzz/corpus/$$t 2>&1 \
	    | grep -E '^(Done|stat::number_of_executed_units|==.*ERROR|SUMMARY|artifact_prefix)' \
	    || true; \
	  if ls $(FUZZ_WORK)/$$t-*-* >/dev/null 2>&1; then echo "fuzz $$t: FAILED"; exit 1; fi; \
	done

bench: setup
	@echo "# make bench: each figure on its own line as 'name: value'"
	$(PY) bench/page_sense.py
	$(PY) bench/op_speed.py
	$(PY) bench/bake_equivalence.py
	$(PY) bench/import_time.py
	$(PY) bench/demo_speed.py
	$(PY) bench/campaign_speed.py
	$(PY) bench/ray_scale.py
	$(PY) bench/moonshot.py
	$(PY) bench/compact_dies.py
	$(PY) bench/rtl_throughput.py
	$(PY) bench/ftdi_page_read.py
	$(PY) bench/firmware_overhead.py
	$(PY) bench/ldpc_decode.py
	$(PY) bench/cox_pm.py

# The QC-LDPC decoders' frame-error-rate curves (docs/codes.md): about 30 minutes on one core.
ldpc-fer: setup
	$(PY) bench/ldpc_fer.py

# Flash-Cosmos' ESP (Fig. 11) and MWS-over-ESP (Sec. 5.2) zero-error claims over the paper's
# 4.83e11 bits, every cell through the virtual die's physics: about 4-7 CPU hours
# (bench/esp_zero.py prints the rate and the 95 % upper bound; docs/virtual-chip.md).
esp-zero-full: setup
	mkdir -p runs && $(PY) bench/esp_zero.py --workers 2 --json runs/esp-zero-full.json

regen: setup
	$(PY) -m nandlab.ops.codegen
	$(PY) -m nandlab.hwgen
	$(PY) -m nandlab.firmware.cpu_regs

clean:
	rm -rf $(VENV) runs .pytest_cache
