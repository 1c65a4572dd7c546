"""Scrapyd deployment: `scrapyd-deploy` packs the project into an egg that carries every
shipped file the crawl reads, the egg works from another directory (files found
relative to the package), and a local Scrapyd serves it: a scheduled `news` crawl of the
demo web writes its feed lines."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from models.common.shipped import project_file, shipped_cache, shipped_file
from pipelines.version import PAGESIGHT_VERSION
from tests.support.crawling import processes_with_marker
from tests.support.paths import ROOT
from tests.support.redis_server import free_port

#: What `scrapyd-deploy` reads: the packages (``pagesight``, the installed command, stays
#: out of the egg), the packaging with its pins and the Scrapy project file.
PROJECT_PARTS = (
    "crawler",
    "models",
    "pipelines",
    "settings",
    "pagesight",
    "setup.py",
    "pyproject.toml",
    "requirements.txt",
    "scrapy.cfg",
)
DEPLOY_URL = "http://localhost:6800/"  # scrapy.cfg's [deploy] url


def copy_project(target: Path) -> Path:
    """The project's packaged parts copied to ``target`` (the build writes build/ and
    *.egg-info beside setup.py: not into the checkout)."""
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, target / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / part)
    return target


def outside_env(**extra: str) -> dict[str, str]:
    """The environment of a process that must not see the checkout (no PYTHONPATH)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    env.update(extra)
    return env


def shipped_data() -> list[str]:
    """Every shipped non-Python file the crawl (or a command) reads, as egg paths."""
    files = [*(ROOT / "models").glob("checkpoints/*"), *(ROOT / "models").glob("*/*.json")]
    files.append(ROOT / "crawler" / "labeling" / "app.html")
    return sorted(path.relative_to(ROOT).as_posix() for path in files)


def test_a_relative_path_names_the_shipped_file_unless_the_working_directory_has_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shipped = project_file("models/checkpoints/lenet5-article-list.pt")
    assert shipped == ROOT / "models" / "checkpoints" / "lenet5-article-list.pt"
    assert shipped == shipped_file("models", "checkpoints/lenet5-article-list.pt")
    assert project_file("output/store") == Path("output/store")  # not a package: as given
    own = tmp_path / "models" / "checkpoints" / "lenet5-article-list.pt"
    own.parent.mkdir(parents=True)
    own.write_bytes(b"mine")
    assert project_file("models/checkpoints/lenet5-article-list.pt").resolve() == own


#: In a fresh process with only ``sys.argv[1]`` (a zip) on sys.path: where its file is.
ZIPPED_FILE_PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
from models.common.shipped import shipped_file
print(shipped_file("zipped_weights", "checkpoints/head.bin"))
"""


def test_a_zipped_file_is_extracted_once_per_content_and_kept_for_the_next_process(tmp_path):
    archive = tmp_path / "weights.egg"
    with zipfile.ZipFile(archive, "w") as egg:
        egg.writestr("zipped_weights/__init__.py", "")
        egg.writestr("zipped_weights/checkpoints/head.bin", b"weights v1")
    env = outside_env(XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))

    def extracted() -> Path:
        probe = subprocess.run(
            [sys.executable, "-c", ZIPPED_FILE_PROBE, str(archive)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return Path(probe.stdout.strip())

    first = extracted()
    assert first.read_bytes() == b"weights v1" and first.is_relative_to(tmp_path / "cache")
    first.write_bytes(b"tampered")  # a copy that no longer holds the shipped bytes is rewritten
    assert extracted() == first and first.read_bytes() == b"weights v1"
    copies = [path for path in (tmp_path / "cache").rglob("*") if path.is_file()]
    assert copies == [first]  # one copy, kept after the processes ended: none per process


def test_without_a_usable_cache_folder_zipped_files_go_to_the_temporary_folder(tmp_path, monkeypatch):
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("a file where the cache folder should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(not_a_folder))
    assert shipped_cache() == Path(tempfile.gettempdir()) / f"pagesight-shipped-{os.getuid()}"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fresh"))
    assert shipped_cache() == tmp_path / "fresh" / "pagesight" / "shipped"


#: Run from an empty directory with only the egg on sys.path: what the crawl loads.
PROBE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from scrapy.utils.project import get_project_settings
import crawler
from models.pagetype.classifier import PageTypeClassifier
from models.pagetype.labels import shipped_label_mappings
from models.common.splits import load_split
from pipelines.extraction.boilernet import BoilerNetExtractor
from pipelines.extraction.element_classifier import ElementClassifierExtractor
from pipelines.extraction.vision_element import VisionElementExtractor
from pipelines.version import PAGESIGHT_VERSION
from crawler.labeling.server import APP_HTML
settings = get_project_settings()
for extractor in (BoilerNetExtractor, ElementClassifierExtractor, VisionElementExtractor):
    extractor.from_settings(settings)
print(json.dumps({
    "package": crawler.__file__,
    "version": PAGESIGHT_VERSION,
    "labels": PageTypeClassifier.from_settings(settings).labels,
    "mappings": shipped_label_mappings(),
    "split_roles": sorted(set(load_split().roles.values())),
    "app_html": len(APP_HTML.read_bytes()),
}))
"""


def test_the_egg_carries_every_shipped_file_and_works_from_elsewhere(tmp_path):
    project = copy_project(tmp_path / "project")
    egg = tmp_path / "pagesight.egg"
    build = subprocess.run(
        [sys.executable, "-m", "scrapyd_client.deploy", "--build-egg", str(egg)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    with zipfile.ZipFile(egg) as archive:
        names = set(archive.namelist())
        entry_points = archive.read("EGG-INFO/entry_points.txt").decode()
    assert set(shipped_data()) <= names
    assert "crawler/commands/capture-dataset.py" in names
    assert not any(name.startswith(("tests/", "benchmarks/", "pagesight/")) for name in names)
    # How Scrapyd finds the settings module; the wheel's command is not the egg's.
    assert "settings = settings" in entry_points and "console_scripts" not in entry_points

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, str(egg)],
        cwd=elsewhere,
        env=outside_env(SCRAPY_SETTINGS_MODULE="settings"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert probe.returncode == 0, probe.stderr
    loaded = json.loads(probe.stdout.splitlines()[-1])
    assert loaded["package"].startswith(str(egg))  # the egg's code, not the checkout's
    assert loaded["version"] == PAGESIGHT_VERSION
    assert loaded["labels"] == ["article", "list"]
    assert loaded["mappings"] == sorted(p.stem for p in (ROOT / "models" / "label_maps").glob("*.json"))
    assert loaded["split_roles"] == ["heldout", "train", "validation"]
    assert loaded["app_html"] == (ROOT / "crawler" / "labeling" / "app.html").stat().st_size
    assert not (elsewhere / "models").exists()


def scrapyd_api(port: int, endpoint: str, data: list[tuple[str, str]] | None = None) -> Any:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    # addversion.json and listspiders.json run `scrapy list` (torch imports): slow on a busy machine
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/{endpoint}", data=body, timeout=180) as answer:
        return json.loads(answer.read())


def stop_process_group(process: subprocess.Popen[bytes], marker: str) -> None:
    """Stop Scrapyd with its crawls, then anything else the run started (Chromium)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
    for pid in processes_with_marker(marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.e2e
def test_scrapyd_serves_the_deployed_egg_and_a_scheduled_crawl_writes_its_feed(tmp_path):
    pytest.importorskip("scrapyd", reason="pip install -r requirements-deploy.txt")
    pytest.importorskip("scrapyd_client", reason="pip install -r requirements-deploy.txt")
    port = free_port()
    home = tmp_path / "scrapyd"  # Scrapyd's directory: its config, eggs, logs, feeds; the crawls' cwd
    home.mkdir()
    (home / "scrapyd.conf").write_text(
        f"[scrapyd]\nbind_address = 127.0.0.1\nhttp_port = {port}\npoll_interval = 0.5\n"
        "max_proc = 1\neggs_dir = eggs\nlogs_dir = logs\nitems_dir = items\ndbs_dir = dbs\n"
    )
    marker = uuid.uuid4().hex
    with (tmp_path / "scrapyd.log").open("wb") as log:
        scrapyd = subprocess.Popen(
            [sys.executable, "-m", "scrapyd"],
            cwd=home,
            env=outside_env(PAGESIGHT_TEST_RUN=marker),
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                assert scrapyd_api(port, "daemonstatus.json")["status"] == "ok"
                break
            except (urllib.error.URLError, ConnectionError):
                assert scrapyd.poll() is None and time.monotonic() < deadline, (
                    tmp_path / "scrapyd.log"
                ).read_text()
                time.sleep(0.3)

        project = copy_project(tmp_path / "project")
        config = (project / "scrapy.cfg").read_text()
        assert DEPLOY_URL in config
        (project / "scrapy.cfg").write_text(config.replace(DEPLOY_URL, f"http://127.0.0.1:{port}/"))
        deploy = subprocess.run(
            [sys.executable, "-m", "scrapyd_client.deploy", "--version", "1"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert deploy.returncode == 0, deploy.stdout + deploy.stderr
        assert json.loads(deploy.stdout)["spiders"] >= 1  # Scrapyd listed the egg's spiders
        assert scrapyd_api(port, "listspiders.json?project=pagesight")["spiders"] == ["news"]

        store = tmp_path / "store"
        job = scrapyd_api(
            port,
            "schedule.json",
            [
                ("project", "pagesight"),
                ("spider", "news"),  # no URLs: the bundled demo web
                ("setting", "PAGESIGHT_DEMO_ARTICLES_PER_SITE=2"),
                ("setting", f"PAGESIGHT_STORE_URI={store}"),
                ("setting", "PAGESIGHT_REPORT_DIR="),
            ],
        )["jobid"]
        deadline = time.monotonic() + 480
        while job not in {j["id"] for j in scrapyd_api(port, "listjobs.json?project=pagesight")["finished"]}:
            assert scrapyd.poll() is None and time.monotonic() < deadline, (
                "the scheduled crawl did not finish"
            )
            time.sleep(1)

        crawl_log = (home / "logs" / "pagesight" / "news" / f"{job}.log").read_text()
        feed = home / "items" / "pagesight" / "news" / f"{job}.jl"  # items_dir/PROJECT/SPIDER/JOB.jl
        assert feed.exists(), crawl_log[-3000:]
        lines = [json.loads(line) for line in feed.read_text("utf-8").splitlines() if line.strip()]
        gold = [json.loads(line) for line in (home / "output" / "demo-gold.jsonl").read_text().splitlines()]
        by_url = {line["url"]: line for line in lines}
        assert Counter(line["url"] for line in lines).most_common(1)[0][1] == 1
        assert {record["url"] for record in gold} <= set(by_url), crawl_log[-3000:]
        for record in gold:
            line = by_url[record["url"]]
            assert line["status"] == "ok" and line["page_type"] in ("article", "list")
            assert line["text"] or line["items"]
            assert line["provenance"]["pagesight"] == PAGESIGHT_VERSION
        assert any(store.rglob("*.png"))  # screenshots where the job was told to store them
    finally:
        stop_process_group(scrapyd, marker)
