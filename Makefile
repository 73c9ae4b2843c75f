# `make demo` and `make test` do all the set-up on a fresh machine: they create .venv and install into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-other-cpu core lint bench clean

# Kernels other than those this machine picks, to show that the suite does not depend on one machine's rounding:
# torch's scalar code (not its AVX2/AVX-512 kernels), NumPy's baseline loops (not its AVX2/AVX-512 ones; these are
# NumPy 2.4's names), OpenBLAS's SSE3 kernels, MKL's reproducible SSE2 path, and one thread where there were several.
OTHER_CPU := ATEN_CPU_CAPABILITY=default NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX512_ICL AVX512_SPR" \
	OPENBLAS_CORETYPE=Prescott MKL_CBWR=COMPATIBLE OMP_NUM_THREADS=1

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[demo]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-demo

demo: $(VENV)/.installed-demo
	$(BIN)/python -m ndgrad demo

# The compiled core (see setup.py), rebuilt where its sources changed; without a C compiler ndgrad stays pure Python
core: $(VENV)/.installed-test
	$(BIN)/python setup.py --quiet build_ext --inplace
	$(BIN)/python -c 'import ndgrad; print(ndgrad.__config__.show(), end="")'

# The suite on the compiled core, then on the pure-Python one
test: core
	$(BIN)/python -m ruff check src tests bench setup.py
	$(BIN)/python -m pytest
	NDGRAD_PURE_PYTHON=1 $(BIN)/python -m pytest

test-other-cpu: core
	$(OTHER_CPU) $(BIN)/python -m pytest

bench: $(VENV)/.installed-test
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache build src/ndgrad/_core_sources.json
	find src -name '*.so' -delete
