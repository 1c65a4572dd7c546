"""Errors at the door: a crawl refused at start-up prints one line and exits 2."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.crawling import PROJECT_ROOT


def scrapy_crawl(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-O", str(tmp_path / "feed.jsonl"), *args]
    return subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300)


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
            "Error: classifier checkpoint {corrupt} is unreadable",
        ),
        (
            ["-a", "start_urls=http://127.0.0.1:9/", "-s", "PAGESIGHT_EXTRACTOR=nope"],
            "Error: unknown extractor 'nope'; known extractors:",
        ),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(tmp_path, args, message):
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a checkpoint")
    args = [arg.format(corrupt=corrupt) for arg in args]
    run = scrapy_crawl(tmp_path, *args)
    assert run.returncode == 2, run.stderr[-3000:]
    errors = [line for line in run.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and errors[0].startswith(message.format(corrupt=corrupt)), run.stderr[-3000:]
    assert "Traceback" not in run.stderr and "Task exception was never retrieved" not in run.stderr
    assert not (tmp_path / "feed.jsonl").exists() or not (tmp_path / "feed.jsonl").read_text()


def imported_after(code: str, modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a fresh interpreter has imported after running ``code``."""
    probe = f"import sys\n{code}\nprint(sorted(m for m in {modules!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120
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
