# Two commands do all set-up: `make crawl` and `make test` (both idempotent).
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# PyPI's torchvision is a CUDA build; requirements.txt keeps pip off a local CPU-only
# torch wheel it cannot load with (see docs/install.md, "torch").

.PHONY: crawl test lint setup browser redis-server redis clean data-deps styled-captures docs

crawl: setup
	$(VENV)/bin/scrapy crawl news

# Every test, the e2e ones (real Chromium) included.
test: setup
	$(PY) -m pytest -q

# What CI checks before the tests (see .ci/run).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The settings reference, from settings/__init__.py (tests/test_docs.py fails when stale).
docs: $(STAMP)
	$(PY) -m settings.reference > docs/settings.md

setup: $(STAMP) browser redis-server

$(STAMP): requirements.txt requirements-test.txt requirements-deploy.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -r requirements-test.txt -r requirements-deploy.txt
	touch $(STAMP)

# Chromium (and CJK fonts for Chinese/Japanese pages): installed when missing and root.
browser: $(STAMP)
	@$(PY) -c "from crawler.browser import find_chromium; find_chromium()" 2>/dev/null \
	  && (command -v fc-list >/dev/null && fc-list | grep -q "CJK") \
	  || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	         apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; \
	       else echo "PageSight needs Chromium and CJK fonts: sudo apt-get install chromium fonts-noto-cjk (or set PAGESIGHT_BROWSER_PATH)"; exit 1; fi; }

# Redis, for the distributed crawl and its tests: installed when missing and root; else
# a note (those tests then skip, saying why).
redis-server:
	@command -v redis-server >/dev/null \
	  || { if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	         apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	       else echo "The distributed crawl needs Redis: sudo apt-get install redis-server (its tests skip without it)"; fi; }

# A Redis on 127.0.0.1:$(REDIS_PORT), in memory only, for a distributed crawl (Ctrl-C stops it):
#   scrapy crawl news -s PAGESIGHT_REDIS_URL=redis://127.0.0.1:6379/0 -a start_urls=...
REDIS_PORT ?= 6379
redis: redis-server
	redis-server --bind 127.0.0.1 --port $(REDIS_PORT) --save "" --appendonly no

# The data-building packages (static-site generators and themes): the styled sites and
# the multilingual benchmark need them, and so do their tests (CI installs them).
data-deps: setup
	$(PY) -m pip install --quiet -r requirements-data.txt

# Styled generated sites for the page-type model, built and captured (one command):
# make styled-captures WCXB=../shared/datasets/wcxb-dev STYLED=DATA/styled
WCXB   ?= ../shared/datasets/wcxb-dev
STYLED ?= output/styled
styled-captures: data-deps
	$(VENV)/bin/scrapy build-styled-sites --wcxb $(WCXB) --out $(STYLED)-sites
	$(VENV)/bin/scrapy capture-dataset --styled $(STYLED)-sites --out $(STYLED)-captures

clean:
	rm -rf output .pytest_cache
