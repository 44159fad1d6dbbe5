# Two commands do all the set-up on a fresh machine (see README.md):
#   make book   - build the website into _build/html (opens from _build/html/index.html)
#   make book-student - the website without solutions (_config_student.yml) into
#                 _build/student/_build/html, for a class
#   make test   - run every test: library, notebooks (nbval, also under other CPU kernels),
#                 student copies, strict book build, browser and JupyterLab tests
#   make reader - write the reader editions (reader/: no MyST, for Binder, Colab, download)
#   make test-fast - the same without the slow second executions and the browser tests
#   make test-unit, make test-notebooks, make test-site - one part of the suite
#                 (tests/unit: the library; tests/notebooks with nbval over notebooks/
#                 and guide/; tests/site: build, browser, JupyterLab)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book book-student test test-fast test-unit test-notebooks test-site lab notebooks reader clean

# The installer of the pinned requirements: pip, or uv (https://docs.astral.sh/uv)
# when it is on PATH or named by UV=; both install the same pins, uv several
# times faster (.ci/run uses it). UV= (empty) forces pip. uv is told to compile
# the bytecode, as pip does by default: without it every process (each notebook
# kernel, each Sphinx build) compiles the modules it imports again when
# PYTHONDONTWRITEBYTECODE is set, as it is on the CI machine.
UV ?= $(shell command -v uv 2>/dev/null)

$(STAMP): requirements.txt requirements-reader.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
ifeq ($(UV),)
	$(BIN)/python -m pip install -r requirements.txt
else
	$(UV) pip install --compile-bytecode --python $(BIN)/python -r requirements.txt
endif
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/jupyter-book build . -W -n --keep-going
	@echo "Open the book: file://$(CURDIR)/_build/html/index.html"

book-student: $(STAMP)
	$(BIN)/jupyter-book build . --config _config_student.yml --path-output _build/student -W -n --keep-going
	@echo "Open the student site: file://$(CURDIR)/_build/student/_build/html/index.html"

test: $(STAMP)
	$(BIN)/python -m pytest

test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" --ignore=tests/site/test_browser.py --ignore=tests/site/test_accessibility.py --ignore=tests/site/test_jupyterlab.py

test-unit: $(STAMP)
	$(BIN)/python -m pytest tests/unit

test-notebooks: $(STAMP)
	$(BIN)/python -m pytest tests/notebooks notebooks guide

test-site: $(STAMP)
	$(BIN)/python -m pytest tests/site

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks

notebooks: $(STAMP)
	$(BIN)/python scripts/execute_notebooks.py --all

reader: $(STAMP)
	$(BIN)/python -m book.classroom reader reader

clean:
	rm -rf _build
