"""benchmarks/soak.py's pure parts: which role a process of the crawl's tree plays, the
samples made of readings, and the flatness verdict (offline, no crawl)."""

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import soak

CHROMIUM = "/usr/lib/chromium/chromium"
NODE = "/srv/pagesight/.venv/lib/python3.11/site-packages/playwright/driver/node"


@pytest.mark.parametrize(
    ("cmdline", "role"),
    [
        ([NODE, NODE.replace("/node", "/package/cli.js"), "run-driver"], "driver"),
        ([CHROMIUM, "--show-component-extension-options", "--headless", "--no-sandbox"], "browser"),
        (
            [
                "/root/.cache/ms-playwright/chromium_headless_shell-1187/chrome-linux/headless_shell",
                "--headless",
            ],
            "browser",
        ),
        # zygote-forked children rewrite their argv into one string
        ([f"{CHROMIUM} --type=renderer --crashpad-handler-pid=0 --enable-crash-reporter"], "renderers"),
        ([f"{CHROMIUM} --type=renderer --top-chrome-webui"], "renderers"),
        ([CHROMIUM, "--type=renderer", "--lang=en-US"], "renderers"),
        ([f"{CHROMIUM} --type=gpu-process --gpu-recent-crash-count=0"], "chromium_other"),
        ([f"{CHROMIUM} --type=utility --utility-sub-type=network.mojom.NetworkService"], "chromium_other"),
        ([f"{CHROMIUM} --type=zygote --no-zygote-sandbox"], "chromium_other"),
        (["/usr/lib/chromium/chrome_crashpad_handler", "--monitor-self"], "chromium_other"),
        (["/usr/bin/python3", "-c", "pass"], "other"),
        ([], "other"),
    ],
)
def test_each_process_of_the_tree_gets_its_role_from_its_command_line(cmdline: list[str], role: str) -> None:
    assert soak.process_role(cmdline) == role


def test_a_reading_adds_up_each_role_under_each_measure(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = {
        10: {"pss": 1000, "private": 900, "anonymous": 890},  # the crawl process itself
        11: {"pss": 200, "private": 150, "anonymous": 140},
        12: {"pss": 300, "private": 100, "anonymous": 90},
        13: {"pss": 50, "private": 20, "anonymous": 10},
        14: {"pss": 70, "private": 30, "anonymous": 20},
    }
    commands = {
        11: [NODE, "cli.js", "run-driver"],
        12: [CHROMIUM, "--headless"],
        13: [f"{CHROMIUM} --type=renderer"],
        14: [f"{CHROMIUM} --type=renderer"],
    }
    monkeypatch.setattr(soak, "tree_memory_kib", lambda root: tree)
    monkeypatch.setattr(soak, "command_line", commands.__getitem__)
    reading = soak.read_memory(10)
    assert reading is not None
    assert reading["renderers"] == 2
    assert reading["pss"] == {
        "crawl": 1000,
        "driver": 200,
        "browser": 300,
        "renderers": 120,
        "chromium_other": 0,
        "other": 0,
        "total": 1620,
    }
    assert (reading["private"]["renderers"], reading["private"]["total"]) == (50, 1200)
    assert (reading["anonymous"]["crawl"], reading["anonymous"]["total"]) == (890, 1150)
    assert soak.read_memory(99) is None  # the crawl process has ended


def reading(total_mib: int, renderers: int) -> dict[str, Any]:
    """A reading (KiB) with the crawl at 1 GiB and ``renderers`` renderers of 100 MiB each,
    half of it private and anonymous."""
    pss = dict.fromkeys(soak.ROLES, 0) | {"crawl": 1024 * 1024, "renderers": renderers * 100 * 1024}
    private = {role: kib // 2 for role, kib in pss.items()}
    return {
        "pss": pss | {"total": total_mib * 1024},
        "private": private | {"total": total_mib * 512},
        "anonymous": private | {"total": total_mib * 512},
        "renderers": renderers,
    }


def test_a_sample_is_the_median_of_its_readings_and_the_renderers_range() -> None:
    readings = [reading(2000, 1), reading(2600, 6), reading(2100, 2)]
    sample = soak.memory_sample(150, readings)
    assert sample["pages"] == 150 and sample["readings"] == 3
    assert sample["pss_mib"]["total"] == 2100.0  # one reading with 6 renderers does not move it
    assert sample["pss_mib"]["renderers"] == 200.0
    assert sample["pss_mib"]["crawl"] == 1024.0
    assert (sample["private_mib"]["total"], sample["private_mib"]["renderers"]) == (1050.0, 100.0)
    assert sample["renderers"] == [1, 6]


def sample(
    pages: int, total: float, renderers: float, private_total: float = 1000.0, anonymous_total: float = 900.0
) -> dict[str, Any]:
    """A sample (MiB): the crawl and the renderers make the total PSS; the crawl alone the
    private and the anonymous memory."""
    pss = dict.fromkeys(soak.ROLES, 0.0) | {"crawl": total - renderers, "renderers": renderers}
    private = dict.fromkeys(soak.ROLES, 0.0) | {"crawl": private_total}
    anonymous = dict.fromkeys(soak.ROLES, 0.0) | {"crawl": anonymous_total}
    return {
        "pages": pages,
        "readings": 12,
        "pss_mib": pss | {"total": total},
        "private_mib": private | {"total": private_total},
        "anonymous_mib": anonymous | {"total": anonymous_total},
        "renderers": [1, 4],
    }


def test_the_verdict_is_the_largest_deviation_from_the_baseline_page_after_it() -> None:
    samples = [
        sample(450, 4000.0, 100.0),  # before the baseline: not judged
        sample(500, 2000.0, 100.0),
        sample(550, 2150.0, 250.0),
        sample(600, 1880.0, 50.0, private_total=900.0, anonymous_total=990.0),
        sample(650, 2100.0, 50.0),
    ]
    verdict = soak.flatness(samples, 500)
    assert verdict is not None
    assert (verdict["baseline_page"], verdict["last_page"], verdict["samples_after"]) == (500, 650, 3)
    pss = verdict["max_deviation"]["pss"]
    assert pss["total"] == 0.075  # signed: +150 MiB, not -120 or +100
    assert pss["renderers"] == 1.5
    assert pss["crawl"] == pytest.approx(0.0789, abs=1e-4)  # 2,050 against 1,900
    assert pss["driver"] is None  # no memory at the baseline: no ratio
    assert verdict["max_deviation"]["private"]["total"] == -0.1
    assert verdict["max_deviation"]["anonymous"]["total"] == 0.1
    assert verdict["measure"] == "anonymous" and verdict["flat"]


def test_only_the_total_anonymous_memory_beyond_ten_percent_either_way_is_not_flat() -> None:
    for total in (990.1, 809.9):
        verdict = soak.flatness([sample(500, 2000.0, 100.0), sample(550, 2000.0, 100.0, 1000.0, total)], 500)
        assert verdict is not None and not verdict["flat"], total
    verdict = soak.flatness([sample(500, 2000.0, 100.0), sample(550, 3000.0, 100.0, 1500.0, 990.0)], 500)
    assert verdict is not None and verdict["flat"]
    assert verdict["max_deviation"]["pss"]["total"] == 0.5  # reported, not judged
    assert verdict["max_deviation"]["private"]["total"] == 0.5


def test_no_verdict_without_the_baseline_sample_or_a_later_one() -> None:
    assert soak.flatness([sample(450, 2000.0, 100.0)], 500) is None
    assert soak.flatness([sample(500, 2000.0, 100.0)], 500) is None
    assert "no verdict" in soak.memory_table([], None)


def test_the_table_shows_each_role_at_the_baseline_and_the_end() -> None:
    samples = [sample(500, 2000.0, 100.0), sample(550, 2300.0, 400.0, 1100.0, 1000.0)]
    table = soak.memory_table(samples, soak.flatness(samples, 500))
    assert "| renderers | 100.0 | 400.0 | +300.0% | 0.0 | 0.0 | n/a | 0.0 | 0.0 | n/a |" in table
    assert (
        "| total | 2000.0 | 2300.0 | +15.0% | 1000.0 | 1100.0 | +10.0% | 900.0 | 1000.0 | +11.1% |" in table
    )
    assert "NOT flat: the total anonymous memory's largest deviation from page 500" in table


def test_the_feed_is_counted_from_where_the_last_count_stopped(tmp_path: Path) -> None:
    feed = tmp_path / "feed.jsonl"
    lines = soak.FeedLines(feed)
    assert lines.count() == 0  # not written yet
    feed.write_text('{"url": "a"}\n{"url": "b"}\n{"url"')
    assert lines.count() == 2  # a line still being written is not counted
    with feed.open("a") as more:
        more.write(': "c"}\n')
    assert lines.count() == 3


def test_a_soak_bigger_than_one_web_crawls_webs_of_successive_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(soak, "scaled_web", lambda pages, faults, seed: asked.append((pages, seed)))
    soak.scaled_webs(1000, soak.Faults(), 2026)
    assert asked == [(1000, 2026)]  # the one web smaller soaks always crawled
    asked.clear()
    soak.scaled_webs(5000, soak.Faults(), 2026)
    assert asked == [(2500, 2026), (2500, 2027)]


def test_the_summary_reads_back_with_one_memory_sample_a_line() -> None:
    result = {"lines": 2, "flatness": None, "memory": [sample(500, 2000.0, 100.0), sample(550, 2010.0, 90.0)]}
    text = soak.summary_text(result)
    assert json.loads(text) == result
    assert len(text.splitlines()) == 8  # {, two keys, "memory": [, two samples, ], }
    assert json.loads(soak.summary_text({"lines": 0, "memory": []})) == {"lines": 0, "memory": []}
