"""`pip install .` into a fresh virtual environment, used from a directory outside the
clone: the `pagesight` command (its help, `extract`, a Scrapy command of the project) and
the Python API, with the project's packages under `pagesight/_project/`, none of them at
the top of site-packages.

The new environment borrows this one's installed dependencies (a `.pth` file, as
`--system-site-packages` lends the system's) and pip runs with `--no-index`: nothing is
downloaded, and the install fails when a pin declared in pyproject.toml (read from
requirements.txt) does not match what `make setup` installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

from crawler.items import FEED_FIELDS, FEED_SCHEMA
from pipelines.version import PAGESIGHT_VERSION
from tests.support.paths import ROOT

#: What `pip install .` needs of the checkout (built from a copy: the build writes build/
#: and pagesight.egg-info beside setup.py, not into the checkout).
INSTALL_PARTS = (
    "pagesight",
    "crawler",
    "models",
    "pipelines",
    "settings",
    "setup.py",
    "pyproject.toml",
    "requirements.txt",
)
ARTICLE = ROOT / "tests" / "fixtures" / "extraction" / "article.html"


@dataclass(frozen=True)
class Installed:
    venv: Path
    site_packages: Path
    outside: Path  # an empty working directory, outside the clone

    def env(self) -> dict[str, str]:
        """An environment that does not name the checkout, the new bin/ first on PATH."""
        env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        return env

    def run(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
        """``args[0]`` from the environment's bin/, run in the outside directory."""
        return subprocess.run(
            [str(self.venv / "bin" / args[0]), *args[1:]],
            cwd=self.outside,
            env=self.env(),
            input=input,
            capture_output=True,
            text=True,
            timeout=300,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("install")
    source = root / "source"
    for part in INSTALL_PARTS:
        path = ROOT / part
        if path.is_dir():
            shutil.copytree(path, source / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(path, source / part)
    # An egg built first in the same tree, as `scrapyd-deploy` does: its top-level
    # packages must not leak into the wheel.
    egg = subprocess.run(
        [sys.executable, "setup.py", "bdist_egg", "-d", str(root / "egg")],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert egg.returncode == 0, egg.stderr[-3000:]
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site_packages = Path(
        sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}, scheme="venv")
    )
    lent = sysconfig.get_path("purelib")  # this environment's packages (pip, setuptools, the pins)
    (site_packages / "lent_dependencies.pth").write_text(f"import site; site.addsitedir({lent!r})\n")
    outside = root / "outside"
    outside.mkdir()
    found = Installed(venv, site_packages, outside)
    pip = found.run("python", "-m", "pip", "install", "--no-index", "--no-build-isolation", str(source))
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    return found


def test_the_wheel_keeps_the_project_packages_under_pagesight(installed: Installed) -> None:
    assert (installed.site_packages / "pagesight" / "_project" / "models" / "checkpoints").is_dir()
    for name in ("crawler", "models", "pipelines", "settings"):
        assert not (installed.site_packages / name).exists()
    record = next(installed.site_packages.glob("pagesight-*.dist-info")) / "RECORD"
    assert not [
        line for line in record.read_text().splitlines() if line.startswith(("tests/", "benchmarks/"))
    ]


def test_pagesight_help_and_version_from_outside_the_clone(installed: Installed) -> None:
    overview = installed.run("pagesight", "--help")
    assert overview.returncode == 0, overview.stderr
    assert "pagesight <command> [options] [args]" in overview.stdout
    for command in ("crawl", "evaluate", "extract", "label"):
        assert f"\n  {command} " in overview.stdout
    assert "scrapy" not in overview.stdout.replace("Scrapy ", "")
    help_ = installed.run("pagesight", "extract", "-h")
    assert help_.returncode == 0 and "  pagesight extract PATH_OR_URL" in help_.stdout, help_.stderr
    version = installed.run("pagesight", "--version")
    assert version.stdout.startswith(f"PageSight {PAGESIGHT_VERSION} (Scrapy ")
    unknown = installed.run("pagesight", "nope")
    assert unknown.returncode == 2 and "Unknown command: nope" in unknown.stderr


def test_pagesight_extract_from_outside_the_clone(installed: Installed) -> None:
    page = installed.outside / "page.html"
    shutil.copy(ARTICLE, page)
    run = installed.run("pagesight", "extract", "page.html", "--page-type", "article")
    assert run.returncode == 0, run.stderr
    line = json.loads(run.stdout)
    assert list(line) == FEED_FIELDS and line["schema"] == FEED_SCHEMA
    assert line["url"] == page.as_uri() and line["text"].startswith("River cleanup draws hundreds")
    assert line["provenance"]["checkpoints"]  # the shipped checkpoints, found from the package
    piped = installed.run("pagesight", "extract", "-", "--format", "text", input=ARTICLE.read_text())
    assert piped.returncode == 0 and piped.stdout.startswith("River cleanup draws hundreds"), piped.stderr


def test_a_reader_that_is_gone_ends_the_output_quietly(installed: Installed) -> None:
    shutil.copy(ARTICLE, installed.outside / "page.html")
    for args in (["--help"], ["extract", "page.html"]):
        process = subprocess.Popen(
            [str(installed.venv / "bin" / "pagesight"), *args],
            cwd=installed.outside,
            env=installed.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # gone before the command writes, as `| head` can be
        stderr = process.stderr.read()
        assert process.wait(timeout=300) == 0, stderr
        assert "Traceback" not in stderr and "Exception ignored" not in stderr


def test_every_scrapy_command_of_the_project_runs_as_pagesight(installed: Installed) -> None:
    spiders = installed.run("pagesight", "list")
    assert spiders.returncode == 0 and spiders.stdout.split() == ["news"], spiders.stderr
    extractor = installed.run("pagesight", "settings", "--get", "PAGESIGHT_EXTRACTOR")
    assert extractor.stdout.strip() == "ensemble", extractor.stderr


#: The API from outside the clone: where its modules came from, and one page's record.
API_PROBE = """
import json, sys
from pagesight import extract
import crawler, pagesight
record = extract(sys.stdin.read(), url="https://gazette.example/news/river")
print(json.dumps({"pagesight": pagesight.__file__, "crawler": crawler.__file__, "record": record}))
"""


def test_the_python_api_from_outside_the_clone(installed: Installed) -> None:
    probe = installed.run("python", "-c", API_PROBE, input=ARTICLE.read_text())
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout)
    assert Path(found["pagesight"]).is_relative_to(installed.site_packages)
    assert Path(found["crawler"]).is_relative_to(installed.site_packages / "pagesight" / "_project")
    record = found["record"]
    assert list(record) == FEED_FIELDS and record["status"] == "ok"
    assert (record["url"], record["site"]) == ("https://gazette.example/news/river", "gazette.example")
    assert record["title"] == "River cleanup draws hundreds"
