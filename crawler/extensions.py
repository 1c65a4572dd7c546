"""Extensions on engine signals: the demo web's lifetime, the evaluation report, the C heap
handed back to the system as the crawl goes, and the objects alive at start kept out of
Python's garbage collector."""

from __future__ import annotations

import ctypes
import gc
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from crawler import signals as pagesight_signals
from crawler.demo import DemoWeb, Faults
from pipelines.evaluation.report import write_report
from pipelines.evaluation.scorebook import Evaluation
from pipelines.extraction.peers import release_string_caches

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DemoWebConfig:
    """The demo web's settings, read once."""

    enabled: bool
    seed: int
    articles_per_site: int
    faults: Faults
    gold_path: Path

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> DemoWebConfig:
        return cls(
            enabled=settings.getbool("PAGESIGHT_DEMO_WEB"),
            seed=settings.getint("PAGESIGHT_DEMO_SEED"),
            articles_per_site=settings.getint("PAGESIGHT_DEMO_ARTICLES_PER_SITE"),
            faults=Faults.parse(settings.get("PAGESIGHT_DEMO_FAULTS")),
            gold_path=Path(settings.get("PAGESIGHT_DEMO_GOLD")),
        )


class DemoWebExtension:
    """Serves the bundled demo web while the engine runs (as Scrapy's telnet console
    listens): started on ``engine_started``, before the spider asks for its first
    pages, stopped on ``engine_stopped``. On for a crawl given no URLs
    (``PAGESIGHT_DEMO_WEB``, set by the spider); it writes the demo gold to
    ``PAGESIGHT_DEMO_GOLD`` and sends ``demo_web_started`` with the home pages and gold."""

    def __init__(self, crawler: Crawler, config: DemoWebConfig):
        self.crawler = crawler
        self.config = config
        self.demo: DemoWeb | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DemoWebExtension:
        config = DemoWebConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("the crawl has its own URLs")
        extension = cls(crawler, config)
        crawler.signals.connect(extension.start, signal=signals.engine_started)
        crawler.signals.connect(extension.stop, signal=signals.engine_stopped)
        return extension

    def start(self) -> None:
        config = self.config
        self.demo = DemoWeb(
            seed=config.seed, articles_per_site=config.articles_per_site, faults=config.faults
        )
        self.demo.start()
        config.gold_path.parent.mkdir(parents=True, exist_ok=True)
        self.demo.write_gold(config.gold_path)
        seeds = list(self.demo.seed_urls)
        logger.info("Serving the demo web: %s (gold: %s)", ", ".join(seeds), config.gold_path)
        self.crawler.signals.send_catch_log(
            pagesight_signals.demo_web_started, seed_urls=seeds, gold_path=str(config.gold_path)
        )

    def stop(self) -> None:
        if self.demo is not None:
            self.demo.stop()
            self.demo = None


@dataclass(frozen=True)
class ReportConfig:
    """Where the evaluation report goes (empty: no report)."""

    report_dir: str

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ReportConfig:
        return cls(report_dir=settings.get("PAGESIGHT_REPORT_DIR"))


class ReportExtension:
    """Writes report.json, report.md and report.html of the crawl's evaluation (the
    scoring pipeline's, sent with ``evaluation_started``) when the spider closes."""

    def __init__(self, report_dir: Path):
        self.report_dir = report_dir
        self.evaluation: Evaluation | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ReportExtension:
        config = ReportConfig.from_settings(crawler.settings)
        if not config.report_dir:
            raise NotConfigured("PAGESIGHT_REPORT_DIR is empty")
        extension = cls(Path(config.report_dir))
        crawler.signals.connect(extension.evaluation_started, signal=pagesight_signals.evaluation_started)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def evaluation_started(self, evaluation: Evaluation) -> None:
        self.evaluation = evaluation

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.evaluation is None:
            return
        report = self.evaluation.report()
        paths = write_report(report, self.report_dir)
        summary = report["summary"]
        logger.info(
            "Evaluation of %s pages: word F1 %.3f, paper P %.3f R %.3f; report: %s",
            summary["pages"],
            summary["word_f1"] or 0.0,
            summary["hamming_precision"] or 0.0,
            summary["hamming_recall"] or 0.0,
            paths.html,
        )


@dataclass(frozen=True)
class GlibcHeapConfig:
    """How often the C heap is trimmed (0: never), and glibc's arena cap and mmap
    threshold (0: glibc's own)."""

    every_pages: int
    arena_max: int
    mmap_threshold: int

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> GlibcHeapConfig:
        return cls(
            every_pages=settings.getint("PAGESIGHT_MALLOC_TRIM_PAGES"),
            arena_max=settings.getint("PAGESIGHT_MALLOC_ARENA_MAX"),
            mmap_threshold=settings.getint("PAGESIGHT_MALLOC_MMAP_THRESHOLD"),
        )


#: glibc's ``mallopt`` parameters (malloc.h).
M_MMAP_THRESHOLD, M_ARENA_MAX = -3, -8


def glibc_mallopt() -> Callable[[int, int], int] | None:
    """glibc's ``mallopt``, or None where the C library has none (musl, macOS, Windows)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return None
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return mallopt


def glibc_malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS, Windows)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


class GlibcHeapExtension:
    """The crawl process's C heap (glibc). At start, caps its arenas
    (``PAGESIGHT_MALLOC_ARENA_MAX``) and serves blocks from
    ``PAGESIGHT_MALLOC_MMAP_THRESHOLD`` bytes up by their own mappings, which a free hands
    back at once; then every ``PAGESIGHT_MALLOC_TRIM_PAGES`` feed lines, hands the heap's
    free memory back to the system (``malloc_trim``), after emptying the peer extractors'
    string caches (:func:`pipelines.extraction.peers.release_string_caches`). Pages are
    parsed, extracted and scored in worker threads, each with its own glibc arena (up to
    8 a core) unless capped; a big page's freed memory stays in its arena, so without a trim
    the crawl process holds its largest page's peak for good (the soak's grew by 200 MB at
    its 4 MB pages)."""

    def __init__(self, crawler: Crawler, every_pages: int, trim: Callable[[int], int]):
        self.crawler = crawler
        self.every_pages = every_pages
        self.trim = trim
        self.pages = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> GlibcHeapExtension:
        config = GlibcHeapConfig.from_settings(crawler.settings)
        if config.every_pages <= 0 and config.arena_max <= 0 and config.mmap_threshold <= 0:
            raise NotConfigured("PAGESIGHT_MALLOC_TRIM_PAGES, _ARENA_MAX and _MMAP_THRESHOLD are 0")
        trim, mallopt = glibc_malloc_trim(), glibc_mallopt()
        if trim is None or mallopt is None:
            raise NotConfigured("the C library is not glibc")
        # Before the worker threads start (at the first page), so that their arenas are capped.
        for parameter, value in ((M_ARENA_MAX, config.arena_max), (M_MMAP_THRESHOLD, config.mmap_threshold)):
            if value > 0 and not mallopt(parameter, value):
                logger.warning("glibc refused mallopt(%d, %d)", parameter, value)
        extension = cls(crawler, config.every_pages, trim)
        if config.every_pages > 0:
            crawler.signals.connect(extension.page_done, signal=signals.item_scraped)
        return extension

    def page_done(self) -> None:
        self.pages += 1
        if self.pages % self.every_pages == 0:
            release_string_caches()  # what they hold is what the trim can then return
            self.trim(0)
            assert self.crawler.stats is not None
            self.crawler.stats.inc_value("pagesight/memory/malloc_trims")


class CollectorFreezeExtension:
    """Keeps the objects alive when the spider opens (the models, the libraries, the
    settings: ~520,000 tracked objects) out of Python's cyclic garbage collector for the
    crawl's lifetime (``gc.freeze``), and gives them back when it closes, so a process that
    runs crawls one after another collects them again.

    Why: CPython runs a full collection only once the objects that survived the younger
    ones outnumber a quarter of the long-lived, which with the models loaded is rare, and
    each walks them all (190 ms). A full collection is also what empties the interpreter's
    free lists (tuples, floats, dicts, lists), whose last entries, freed by a big page,
    keep the small-object allocator's 1 MiB arenas resident: replaying the demo web's
    captures in one process, a 4 MB page left the process 41 MiB larger until a full
    collection, though it collected nothing. Frozen, a full collection takes 4-5 ms and
    comes on CPython's own schedule, and the same page leaves 2-7 MiB."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CollectorFreezeExtension:
        if not crawler.settings.getbool("PAGESIGHT_GC_FREEZE"):
            raise NotConfigured("PAGESIGHT_GC_FREEZE is off")
        extension = cls(crawler)
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_opened(self, spider: Spider) -> None:
        gc.collect()  # what is garbage already is not frozen
        gc.freeze()
        assert self.crawler.stats is not None
        self.crawler.stats.set_value("pagesight/memory/gc_frozen_objects", gc.get_freeze_count())

    def spider_closed(self, spider: Spider, reason: str) -> None:
        gc.unfreeze()
