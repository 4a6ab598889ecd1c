# Two commands a newcomer needs: `make run` and `make test`. Both create .venv when missing.
# `make run` installs what serving needs (the runtime and the similarity extra, quietly);
# `make test` installs the test extra as well (pytest, Playwright, ...).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
RUN_STAMP := $(VENV)/.run-installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
CASES ?= cases/booking_agent.json
PORT ?= 5006
CHROMIUM ?= /usr/bin/chromium

.PHONY: run test bench chromium install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-* $(VENV)/.run-installed-*
	touch $(STAMP)

install: $(STAMP)

# the runtime and the similarity extra only (the test extra's install, when present, has both)
$(RUN_STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@if [ ! -f $(STAMP) ]; then \
	  echo "Installing the explorer into $(VENV) (first time only, about a minute)..."; \
	  $(BIN)/python -m pip install -q -q --disable-pip-version-check -e '.[similarity]' || exit 1; \
	fi
	@rm -f $(VENV)/.run-installed-*
	@touch $(RUN_STAMP)

run: $(RUN_STAMP)
	@echo "Serving $(CASES) on http://127.0.0.1:$(PORT)/ (open it in a browser; stop with Ctrl-C)"
	@BOKEH_RESOURCES=server $(BIN)/metric-explorer serve --cases $(CASES) --port $(PORT)

# Browser tests need Debian's Chromium: installed here when missing and running as root.
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null; \
	  else \
	    echo "Browser tests need Chromium at $(CHROMIUM): run 'sudo apt-get install chromium' (or set CHROMIUM=/path/to/chromium)"; exit 1; \
	  fi; \
	fi

test: $(STAMP) chromium
	BOKEH_RESOURCES=server CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) .pytest_cache test-results
