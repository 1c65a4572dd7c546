"""benchmarks/soak.py's pure parts: which role a process of the crawl's tree plays, the
samples made of readings, and the flatness verdict (offline, no crawl)."""

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import soak  # noqa: E402

CHROMIUM = "/usr/lib/chromium/chromium"
NODE = "/work/main/.venv/lib/python3.11/site-packages/playwright/driver/node"


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


def reading(total_kib: int, renderers: int) -> dict[str, Any]:
    """A reading with the crawl at 1 GiB and ``renderers`` renderers of 100 MiB each."""
    roles = dict.fromkeys(soak.ROLES, 0) | {"crawl": 1024 * 1024, "renderers": renderers * 100 * 1024}
    return {"roles": roles, "total": total_kib, "renderers": renderers}


def test_a_sample_is_the_median_of_its_readings_and_the_renderers_range() -> None:
    readings = [reading(2000 * 1024, 1), reading(2600 * 1024, 6), reading(2100 * 1024, 2)]
    sample = soak.memory_sample(150, readings)
    assert sample["pages"] == 150 and sample["readings"] == 3
    assert sample["total_mib"] == 2100.0  # one reading with 6 renderers does not move it
    assert sample["roles_mib"]["renderers"] == 200.0
    assert sample["roles_mib"]["crawl"] == 1024.0
    assert sample["renderers"] == [1, 6]


def sample(pages: int, total: float, renderers: float) -> dict[str, Any]:
    roles = dict.fromkeys(soak.ROLES, 0.0) | {"crawl": total - renderers, "renderers": renderers}
    return {"pages": pages, "readings": 12, "total_mib": total, "roles_mib": roles, "renderers": [1, 4]}


def test_the_verdict_is_the_largest_deviation_from_the_baseline_page_after_it() -> None:
    samples = [
        sample(450, 4000.0, 100.0),  # before the baseline: not judged
        sample(500, 2000.0, 100.0),
        sample(550, 2150.0, 250.0),
        sample(600, 1880.0, 50.0),
        sample(650, 2100.0, 50.0),
    ]
    verdict = soak.flatness(samples, 500)
    assert verdict is not None
    assert (verdict["baseline_page"], verdict["last_page"], verdict["samples_after"]) == (500, 650, 3)
    assert verdict["max_deviation"]["total"] == 0.075  # signed: +150 MiB, not -120 or +100
    assert verdict["max_deviation"]["renderers"] == 1.5
    assert verdict["max_deviation"]["crawl"] == pytest.approx(0.0789, abs=1e-4)  # 2,050 against 1,900
    assert verdict["max_deviation"]["driver"] is None  # no memory at the baseline: no ratio
    assert verdict["flat"]


def test_a_total_beyond_ten_percent_either_way_is_not_flat() -> None:
    for total in (2201.0, 1799.0):
        verdict = soak.flatness([sample(500, 2000.0, 100.0), sample(550, total, 100.0)], 500)
        assert verdict is not None and not verdict["flat"], total
    verdict = soak.flatness([sample(500, 2000.0, 100.0), sample(550, 2200.0, 100.0)], 500)
    assert verdict is not None and verdict["flat"]


def test_no_verdict_without_the_baseline_sample_or_a_later_one() -> None:
    assert soak.flatness([sample(450, 2000.0, 100.0)], 500) is None
    assert soak.flatness([sample(500, 2000.0, 100.0)], 500) is None
    assert "no verdict" in soak.memory_table([], None)


def test_the_table_shows_each_role_at_the_baseline_and_the_end() -> None:
    samples = [sample(500, 2000.0, 100.0), sample(550, 2300.0, 400.0)]
    table = soak.memory_table(samples, soak.flatness(samples, 500))
    assert "| renderers | 100.0 | 400.0 | +300.0% |" in table
    assert "| total | 2000.0 | 2300.0 | +15.0% |" in table
    assert "NOT flat" in table


def test_the_feed_is_counted_from_where_the_last_count_stopped(tmp_path: Path) -> None:
    feed = tmp_path / "feed.jsonl"
    lines = soak.FeedLines(feed)
    assert lines.count() == 0  # not written yet
    feed.write_text('{"url": "a"}\n{"url": "b"}\n{"url"')
    assert lines.count() == 2  # a line still being written is not counted
    with feed.open("a") as more:
        more.write(': "c"}\n')
    assert lines.count() == 3
