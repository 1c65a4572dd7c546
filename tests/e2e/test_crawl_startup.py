"""Errors at the door: a crawl refused at start-up prints one line and exits 2."""

from __future__ import annotations

import ast
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import torch

from crawler.spiders.news import SPIDER_ARGUMENTS
from tests.support.paths import ROOT


def scrapy_crawl(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-O", str(tmp_path / "feed.jsonl"), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-a", "start_urls=notaurl"], "Error: start URL 'notaurl' is not an http(s) or file URL"),
        (
            ["-a", "urls_file=/missing"],
            "Error: urls_file /missing: cannot read it: No such file or directory",
        ),
        (
            ["-a", "start_urls=http://127.0.0.1:9/", "-s", "PAGESIGHT_CLASSIFIER_CHECKPOINT={corrupt}"],
            "Error: page-type classifier checkpoint {corrupt} is unreadable",
        ),
        (
            ["-a", "start_urls=http://127.0.0.1:9/", "-s", "PAGESIGHT_CLASSIFIER_CHECKPOINT={empty}"],
            "Error: page-type classifier checkpoint {empty} is unreadable: the file is empty; train one with",
        ),
        (
            ["-a", "start_urls=http://127.0.0.1:9/", "-s", "PAGESIGHT_CLASSIFIER_CHECKPOINT={pickled}"],
            "Error: page-type classifier checkpoint {pickled} is unreadable: it holds Python objects besides tensors",
        ),
        (
            ["-a", "start_urls=http://127.0.0.1:9/", "-s", "PAGESIGHT_EXTRACTOR=nope"],
            "Error: unknown extractor 'nope'; known extractors:",
        ),
        (
            ["-a", "start_url=http://127.0.0.1:9/"],
            "Error: unknown spider argument -a start_url: the news spider takes start_urls, urls_file, follow,",
        ),
        (
            ["-a", "start_urls=http://127.0.0.1:9/", "-a", "follow=maybe"],
            "Error: -a follow=maybe: not a boolean (true or false)",
        ),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(tmp_path, args, message):
    files = {
        "corrupt": tmp_path / "corrupt.pt",
        "empty": tmp_path / "empty.pt",
        "pickled": tmp_path / "pickled.pt",
    }
    files["corrupt"].write_bytes(b"not a checkpoint")
    files["empty"].write_bytes(b"")
    # A pickle of a Python object: torch's own message would advise weights_only=False.
    torch.save({"state_dict": Fraction(1, 3)}, files["pickled"])
    args = [arg.format(**files) for arg in args]
    run = scrapy_crawl(tmp_path, *args)
    assert run.returncode == 2, run.stderr[-3000:]
    # The one line is all the user sees: Scrapy's start-up log is held back.
    (error,) = run.stderr.splitlines()
    assert error.startswith(message.format(**files)), run.stderr[-3000:]
    assert not error.endswith(":") and "weights_only" not in error and "allow_pickle" not in error
    assert not (tmp_path / "feed.jsonl").exists() or not (tmp_path / "feed.jsonl").read_text()


def test_crawl_help_lists_the_spider_arguments():
    run = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "-h"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    for name in SPIDER_ARGUMENTS:
        assert f"-a {name}=" in run.stdout


def test_a_started_crawl_logs_its_start_up_lines(tmp_path):
    """Held back until the engine starts, Scrapy's banner and settings are then written."""
    run = scrapy_crawl(
        tmp_path, "-a", "start_urls=http://127.0.0.1:9/", "-a", "follow=false", "-a", "_job=j1"
    )
    assert run.returncode == 0, run.stderr[-3000:]
    log = run.stderr
    assert log.index("Scrapy 2.") < log.index("Overridden settings") < log.index("Spider opened")


def imported_after(code: str, modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a fresh interpreter has imported after running ``code``."""
    probe = f"import sys\n{code}\nprint(sorted(m for m in {modules!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout.strip())


def test_command_modules_import_no_command_only_dependency() -> None:
    # Scrapy imports every command module at the start of any command, a crawl included:
    # what only one command needs (the evaluation's plots, the dataset and demo servers,
    # torch) is imported inside it.
    code = "from scrapy.utils.misc import walk_modules_iter\nlist(walk_modules_iter('crawler.commands'))"
    assert (
        imported_after(code, ("matplotlib", "torch", "crawler.dataset", "crawler.demo", "crawler.styled"))
        == []
    )


def test_a_one_process_crawl_imports_neither_scipy_nor_redis() -> None:
    # The spider and every component the project's settings name: scipy (DOM PageRank's
    # solver) and redis / scrapy-redis (the shared frontier) cost about 0.6 s at each start
    # and are loaded only by the extractor and the components that use them.
    code = """
from scrapy.utils.misc import load_object
from scrapy.utils.project import get_project_settings
import crawler.spiders.news
settings = get_project_settings()
for name in ("ADDONS", "EXTENSIONS", "DOWNLOADER_MIDDLEWARES", "SPIDER_MIDDLEWARES", "ITEM_PIPELINES"):
    for path, order in settings.getdict(name).items():
        if isinstance(path, str) and order is not None:
            load_object(path)
for path in settings.getdict("DOWNLOAD_HANDLERS").values():
    if isinstance(path, str):
        load_object(path)
"""
    assert imported_after(code, ("scipy", "redis", "scrapy_redis")) == []
