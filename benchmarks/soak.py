"""Fault soak: crawl the demo web, scaled to about N pages and served with faults, with
the capture and every pipeline on, and check that nothing is lost, nothing comes twice,
memory stays flat and nothing is left running.

    nice -n 10 .venv/bin/python benchmarks/soak.py --pages 1000 \
        --faults latency_ms=50,error_rate=0.1,hang,huge,non_html --out DIR

Writes DIR/feed.jsonl, DIR/urls.txt (every URL the demo web serves: what the crawl must
reach), DIR/gold.jsonl, DIR/memory.jsonl (each memory sample as it is taken, to follow a
long soak), DIR/soak.json (pages_served, webs, lines, distinct_urls, lost, duplicates,
chromium_left, pages_per_s, settings, flatness, memory), and the crawl's log, store and
report beside them. ``--results FILE`` writes soak.json's summary there too (it names no paths). Over
PAGES_PER_WEB pages, several demo webs (seeds ``--seed``, ``--seed`` + 1, ...) are served
and crawled together.

Memory is the proportional set size (memory shared between processes counted once), the
private memory and the anonymous memory (what the processes allocated) of the crawl's
process tree, read every READ_EVERY_S seconds and split by role: the crawl process,
Playwright's node driver, Chromium's browser process, its renderers, and its other children
(GPU process, network and storage services, zygotes).
Each sample, at every 50 feed lines, holds each role's median, and the whole tree's, over
the readings since the previous sample. A single reading is hostage to how many renderers
are alive at that moment: in the 1,000-page soak 1 to 6 were, 31-229 MiB together (454 MiB
while a 4 MB page rendered), and the tree's total at page 1,100 came out +18 % over page
100 in one run and -1.9 % in another. ``flatness`` is the largest deviation of each role,
and of the total, from the sample at ``--baseline-page`` (500) over every later sample; the
crawl is flat when the total anonymous memory's stays within ±10 % (VERDICT_MEASURE).
Anonymous, not PSS or private memory, because those also count mapped files, which other
processes on the machine move between shared and private: in a 5,000-page soak run beside
the test suite until page 3,350, the crawl process's private memory went from 835 to
1,148 MiB between pages 3,350 and 3,400, as the suite ended, its anonymous memory from 811
to 813.

The 5,000-page soak (benchmarks/results/soak-5000.json: 5,114 pages, 2 webs, with the
collector frozen, the browser restarted every 1,000 pages, very tall pages shot one screen
at a time and a page over the ensemble's max_words read by iawce alone), 0 lost, 0
duplicates, is flat: the total anonymous memory went from 952 MiB at page 500 to 949 at
page 5,100 (+1.8 % the median of the last 10 samples), within -5.7 to +8.2 % at all 92
samples, +8.2 % at the one holding the second 4 MB page. Before the max_words change that
sample read +12.4 % (the driver +27 MiB and the crawl process +35 while it was in flight);
the first run with the glibc and V8 settings had +15.5 % at most, the run before them
+35.9 % (benchmarks/HISTORY.md, "Fault soak").

The crawl runs with REACH_EVERY_PAGE, under which every page the demo web serves is one
the crawl should reach. ``--setting NAME=VALUE`` (repeatable) passes a Scrapy setting to
the crawl, over those: e.g. PAGESIGHT_FRONTIER_ARTICLE_LINKS=body and DEPTH_LIMIT=2 for the
crawl's defaults, or PAGESIGHT_FRONTIER_POLICY=flat to follow every link whatever the page
type.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crawl import tree_memory_kib  # benchmarks/crawl.py, beside this script

from crawler.demo import DemoWeb, Faults

SAMPLE_EVERY = 50  # feed lines between memory samples
READ_EVERY_S = 2.0  # seconds between readings of the tree (about 12 per sample at 2 pages/s)
#: The parts of the crawl's process tree whose memory is reported apart. Renderers come and
#: go with the pages open; the others live as long as the crawl.
ROLES = ("crawl", "driver", "browser", "renderers", "chromium_other", "other")
#: PSS counts a page shared by N processes 1/N in each, so the tree's falls when processes
#: outside it (another crawl's Chromium, a test's torch) map the same libraries. Private
#: memory (pages only one process maps) is blind to those, but leaves out what the tree's
#: own processes share (a renderer's pages shared with the zygote). A leak grows both. Both
#: also count the pages of mapped files (libtorch, Chromium's binary), which move between
#: shared and private as other processes on the machine map them or stop: in a 5,000-page
#: soak beside other crawls the crawl process's private memory went from 708 MiB at page
#: 500 to 1,012-1,030 MiB at pages 1,700-2,050 (819 at 1,900) while its anonymous memory (what it
#: allocated; /proc/PID/smaps_rollup's Anonymous) stayed at 686-698 MiB.
MEASURES = ("pss", "private", "anonymous")
#: The measure the verdict reads: anonymous memory is what the tree's processes allocated,
#: whoever else maps their files, and a leak is an allocation kept. PSS and private are
#: reported beside it.
VERDICT_MEASURE = "anonymous"
TOLERANCE = 0.10  # largest deviation of the total from the baseline sample of a flat crawl
#: Most pages one demo web is asked for. The generator names a site's topics with distinct
#: words of its language (one topic per 2 articles), and the blog's Japanese word list has
#: only 218: from about 437 articles per site (some 4,000 pages) DemoWeb never returns.
#: 3,000 pages is about 325 articles per site; a bigger soak crawls several webs at once.
PAGES_PER_WEB = 3000
#: Settings under which the crawl should reach every page the demo web serves. The default
#: frontier follows an article's links only from its body, and the tag index of a rare
#: topic is linked only from its articles' topic boxes; and the default
#: DEPTH_LIMIT of 2 stops short of those indexes on a big demo web (3 links from home).
REACH_EVERY_PAGE = {"PAGESIGHT_FRONTIER_ARTICLE_LINKS": "all", "DEPTH_LIMIT": "0"}


def served_urls(demo: DemoWeb) -> list[str]:
    """Every page URL the started demo web serves (gold pages and each fault's pages)."""
    urls = {record["url"] for record in demo.gold}
    for attribute in (
        "error_urls",
        "hang_urls",
        "huge_urls",
        "non_html_urls",
        "script_redirect_urls",
        "stalled_urls",
        "robots_blocked_urls",
    ):
        urls.update(getattr(demo, attribute))
    return sorted(urls)


def page_count(web: DemoWeb) -> int:
    """Pages of a (not yet started) demo web."""
    total = 0
    for model in web.models:
        total += len(model.gold_records())
        for paths in ("error_paths", "hang_paths", "huge_paths", "non_html_paths"):
            total += len(getattr(model, paths))
        for paths in ("script_redirect_paths", "stalled_paths", "robots_blocked_paths"):
            total += len(getattr(model, paths))
    return total


def scaled_webs(pages: int, faults: Faults, seed: int) -> list[DemoWeb]:
    """Demo webs (seeds ``seed``, ``seed + 1``, ...) that together serve at least ``pages``,
    each at most PAGES_PER_WEB: one web up to that, so smaller soaks crawl the web they
    always did."""
    count = math.ceil(pages / PAGES_PER_WEB)
    return [scaled_web(math.ceil(pages / count), faults, seed + n) for n in range(count)]


def scaled_web(pages: int, faults: Faults, seed: int) -> DemoWeb:
    """The demo web with about the fewest articles per site that serves at least
    ``pages`` (articles grow in proportion to the shortfall: pages grow a little slower
    than articles, so the steps undershoot)."""
    per_site = max(1, pages // 8)
    while True:
        web = DemoWeb(seed=seed, articles_per_site=per_site, faults=faults)
        count = page_count(web)
        if count >= pages:
            return web
        per_site = max(per_site + 1, math.ceil(per_site * pages / count))


class FeedLines:
    """Counts a growing feed's lines, reading only what was appended since the last count
    (the feed of a 5,000-page soak runs to hundreds of MB; it is counted every
    READ_EVERY_S)."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.lines = path, 0, 0

    def count(self) -> int:
        if self.path.exists():
            with self.path.open("rb") as feed:
                feed.seek(self.offset)
                appended = feed.read()
            self.offset += len(appended)
            self.lines += appended.count(b"\n")
        return self.lines


def process_role(cmdline: list[str]) -> str:
    """The role of a process below the crawl process, from its command line (the argv
    list of /proc/PID/cmdline). Chromium's zygote-forked children rewrite theirs into one
    string (``/usr/lib/chromium/chromium --type=renderer ...``), so the words are split
    again."""
    words = " ".join(cmdline).split()
    if not words:
        return "other"
    program = Path(words[0]).name
    kind = next((word.split("=", 1)[1] for word in words if word.startswith("--type=")), "")
    if kind == "renderer":
        return "renderers"
    if kind or "crashpad" in program:
        return "chromium_other"
    if program == "node" or "run-driver" in words:
        return "driver"
    if "chrom" in program or "headless_shell" in program:
        return "browser"
    return "other"


def read_memory(root_pid: int) -> dict[str, Any] | None:
    """One reading of the crawl's tree: each MEASURES's KiB by role and in total, and the
    renderers alive; None once the crawl process is gone."""
    processes = tree_memory_kib(root_pid)
    if root_pid not in processes:
        return None
    reading: dict[str, Any] = {measure: dict.fromkeys((*ROLES, "total"), 0) for measure in MEASURES}
    reading["renderers"] = 0
    for pid, kib in processes.items():
        role = "crawl" if pid == root_pid else process_role(command_line(pid))
        for measure in MEASURES:
            reading[measure][role] += kib[measure]
            reading[measure]["total"] += kib[measure]
        reading["renderers"] += role == "renderers"
    return reading


def command_line(pid: int) -> list[str]:
    """A process's argv (empty once it has ended)."""
    try:
        return [
            arg.decode(errors="replace")
            for arg in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            if arg
        ]
    except OSError:
        return []


def memory_sample(pages: int, readings: list[dict[str, Any]]) -> dict[str, Any]:
    """The sample at ``pages`` feed lines from the readings since the last one: the median
    of each role and of the total under each of MEASURES, MiB, and the fewest and most
    renderers alive."""
    sample: dict[str, Any] = {"pages": pages, "readings": len(readings)}
    for measure in MEASURES:
        sample[f"{measure}_mib"] = {
            part: round(statistics.median(reading[measure][part] for reading in readings) / 1024, 1)
            for part in (*ROLES, "total")
        }
    sample["renderers"] = [min(r["renderers"] for r in readings), max(r["renderers"] for r in readings)]
    return sample


def largest_deviation(values: list[float], base: float) -> float | None:
    """The value furthest from ``base``, as a signed fraction of it (None for a base of 0)."""
    if not base:
        return None
    deviations: list[float] = [value / base - 1 for value in values]
    worst: float = max(deviations, key=abs)
    return round(worst, 4)


def flatness(samples: list[dict[str, Any]], baseline_page: int) -> dict[str, Any] | None:
    """The largest deviation of each role's memory, and of the total's, under each of
    MEASURES, from the sample at ``baseline_page`` over every later sample; flat when the
    total's VERDICT_MEASURE stays within TOLERANCE. None when there is no such sample or
    none after it."""
    baseline = next((sample for sample in samples if sample["pages"] == baseline_page), None)
    later = [sample for sample in samples if sample["pages"] > baseline_page]
    if baseline is None or not later:
        return None
    deviation = {
        measure: {
            part: largest_deviation(
                [sample[f"{measure}_mib"][part] for sample in later], baseline[f"{measure}_mib"][part]
            )
            for part in (*ROLES, "total")
        }
        for measure in MEASURES
    }
    total = deviation[VERDICT_MEASURE]["total"]
    return {
        "measure": VERDICT_MEASURE,
        "baseline_page": baseline_page,
        "last_page": later[-1]["pages"],
        "samples_after": len(later),
        "max_deviation": deviation,
        "tolerance": TOLERANCE,
        "flat": total is not None and abs(total) <= TOLERANCE,
    }


def memory_table(samples: list[dict[str, Any]], verdict: dict[str, Any] | None) -> str:
    """Each role's memory at the baseline and the last sample and its largest deviation
    under each of MEASURES, as a Markdown table, and the verdict; or why there is none."""
    if verdict is None:
        return "memory: no sample at the baseline page, or none after it; no verdict"
    at = {sample["pages"]: sample for sample in samples}
    first, last = at[verdict["baseline_page"]], at[verdict["last_page"]]
    header = "| role (MiB) |"
    for measure in MEASURES:
        header += f" {measure} page {first['pages']} | page {last['pages']} | max deviation |"
    rows = [header, "|---" * (1 + 3 * len(MEASURES)) + "|"]
    for part in (*ROLES, "total"):
        row = f"| {part} |"
        for measure in MEASURES:
            deviation = verdict["max_deviation"][measure][part]
            shown = "n/a" if deviation is None else f"{deviation:+.1%}"
            row += f" {first[f'{measure}_mib'][part]} | {last[f'{measure}_mib'][part]} | {shown} |"
        rows.append(row)
    word = "flat" if verdict["flat"] else "NOT flat"
    rows.append(
        f"\nrenderers alive: {first['renderers']} at page {first['pages']}, {last['renderers']} at "
        f"page {last['pages']}; {word}: the total {verdict['measure']} memory's largest deviation from page "
        f"{first['pages']} over {verdict['samples_after']} later samples is "
        f"{verdict['max_deviation'][verdict['measure']]['total']:+.1%} "
        f"(tolerance ±{verdict['tolerance']:.0%})"
    )
    return "\n".join(rows)


def summary_text(result: dict[str, Any]) -> str:
    """soak.json's text: indented, but one memory sample a line (a 5,000-page soak has 100
    samples of some 20 numbers each)."""
    head = json.dumps({key: value for key, value in result.items() if key != "memory"}, indent=2)
    samples = ",\n".join(f"    {json.dumps(sample)}" for sample in result["memory"])
    return f'{head[:-2]},\n  "memory": [\n{samples}\n  ]\n}}\n'


def marked_processes(marker: str) -> list[int]:
    """PIDs of live processes whose environment carries ``PAGESIGHT_SOAK_RUN=marker``."""
    needle = f"PAGESIGHT_SOAK_RUN={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def crawl(out: Path, seed_urls: list[str], gold: Path, extra: dict[str, str]) -> dict[str, Any]:
    """Crawl the served demo webs from their home pages (``extra``: more settings); memory of
    the process tree by role at every SAMPLE_EVERY feed lines; Chromium processes still
    alive after the crawl."""
    feed = out / "feed.jsonl"
    settings = {
        "PAGESIGHT_STORE_URI": str(out / "store"),
        "PAGESIGHT_REPORT_DIR": str(out / "report"),
        "PAGESIGHT_DENY_EXTENSIONS": "[]",  # the PDF and the PNG are reached too (skipped lines)
        "PAGESIGHT_PROGRESS_INTERVAL": "60",
        "TELNETCONSOLE_ENABLED": "False",
        **REACH_EVERY_PAGE,
        **extra,
    }
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-O", str(feed)]
    command += ["-a", f"start_urls={','.join(seed_urls)}", "-a", f"gold={gold}"]
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    marker = uuid.uuid4().hex
    started = time.monotonic()
    with (out / "crawl.log").open("w") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=dict(os.environ, PAGESIGHT_SOAK_RUN=marker), stdout=log, stderr=log
        )
        samples: list[dict[str, Any]] = []
        stop = threading.Event()

        def sample() -> None:
            lines, next_at, readings = FeedLines(feed), SAMPLE_EVERY, []
            while not stop.wait(READ_EVERY_S):
                reading = read_memory(process.pid)
                if reading is None:
                    return
                readings.append(reading)
                if lines.count() >= next_at:
                    samples.append(memory_sample(next_at, readings))
                    with (out / "memory.jsonl").open("a") as progress:
                        progress.write(json.dumps(samples[-1]) + "\n")
                    next_at, readings = next_at + SAMPLE_EVERY, []

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        returncode = process.wait()
        seconds = time.monotonic() - started
        stop.set()
        sampler.join()
    time.sleep(2)  # a browser that outlives the crawl would still be there
    left = marked_processes(marker)
    if returncode:
        print(f"the crawl exited {returncode}; see {out / 'crawl.log'}", file=sys.stderr)
    return {"seconds": seconds, "memory": samples, "chromium_left": len(left), "returncode": returncode}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=1000, help="pages the demo web serves (at least)")
    parser.add_argument("--faults", default="latency_ms=50,error_rate=0.1,hang,huge,non_html")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--setting", action="append", default=[], metavar="NAME=VALUE", help="a setting of the crawl"
    )
    parser.add_argument(
        "--baseline-page", type=int, default=500, help="the sample every later one is compared with"
    )
    parser.add_argument(
        "--results", type=Path, help="also write the summary here (no paths: for benchmarks/results/)"
    )
    args = parser.parse_args()
    extra = dict(setting.split("=", 1) for setting in args.setting)

    args.out.mkdir(parents=True, exist_ok=True)
    webs = scaled_webs(args.pages, Faults.parse(args.faults), args.seed)
    with contextlib.ExitStack() as serving:
        demos = [serving.enter_context(web) for web in webs]
        urls = sorted(url for demo in demos for url in served_urls(demo))
        urls_file = args.out / "urls.txt"
        urls_file.write_text("\n".join(urls) + "\n", encoding="utf-8")
        gold = args.out / "gold.jsonl"
        records = [record for demo in demos for record in demo.gold]
        gold.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), "utf-8")
        per_site = " + ".join(str(web.articles_per_site) for web in webs)
        print(f"Soak: {len(urls)} pages ({per_site} articles per site), faults {webs[0].faults}")
        run = crawl(args.out, [url for demo in demos for url in demo.seed_urls], gold, extra)

    lines = [
        json.loads(line) for line in (args.out / "feed.jsonl").read_text("utf-8").splitlines() if line.strip()
    ]
    crawled = {line["url"] for line in lines}
    result = {
        "pages_served": len(urls),
        "webs": len(webs),
        "faults": args.faults,
        "seed": args.seed,
        "lines": len(lines),
        "distinct_urls": len(crawled),
        "lost": len(set(urls) - crawled),
        "duplicates": len(lines) - len(crawled),
        "chromium_left": run["chromium_left"],
        "pages_per_s": round(len(lines) / run["seconds"], 3),
        "settings": {**REACH_EVERY_PAGE, **extra},
        "flatness": flatness(run["memory"], args.baseline_page),
        "memory": run["memory"],
    }
    summary = summary_text(result)
    (args.out / "soak.json").write_text(summary, encoding="utf-8")
    if args.results:
        args.results.write_text(summary, encoding="utf-8")
    print(json.dumps({key: value for key, value in result.items() if key not in ("memory", "flatness")}))
    print(memory_table(run["memory"], result["flatness"]))
    if run["returncode"]:
        raise SystemExit(run["returncode"])


if __name__ == "__main__":
    main()
