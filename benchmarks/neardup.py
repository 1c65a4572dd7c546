"""Near-duplicate index benchmark: lookup time of :class:`pipelines.neardup.NearDuplicateIndex`
holding a million random 64-bit fingerprints, at the crawl's default distance
(PAGESIGHT_NEARDUP_DISTANCE): its tables in memory, and with ``--redis-url`` also in a
Redis (a distributed crawl's store; the benchmark's keys are deleted afterwards). Half
the lookups are near-duplicates of a filed fingerprint (a few bits flipped), half are
new. Goal: under 1 ms per lookup.

``--wcxb ROOT`` instead prints how close WCXB dev's gold texts come to each other (the
pairs within 8 bits, and how many pairs at each distance): the evidence for the default.

    .venv/bin/python benchmarks/neardup.py [--fingerprints 1000000] [--lookups 20000] \\
        [--redis-url redis://127.0.0.1:6379/0]
    .venv/bin/python benchmarks/neardup.py --wcxb ../shared/datasets/wcxb-dev
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crawler.distributed.neardup import RedisFingerprintStore
from pipelines.evaluation.fingerprint import hamming_distance
from pipelines.evaluation.scoring import text_fingerprint
from pipelines.evaluation.wcxb import read_wcxb
from pipelines.neardup import NearDuplicateIndex
from settings import PAGESIGHT_NEARDUP_DISTANCE


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--fingerprints", type=int, default=1_000_000)
    parser.add_argument("--lookups", type=int, default=20_000)
    parser.add_argument("--distance", type=int, default=PAGESIGHT_NEARDUP_DISTANCE)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "neardup.json")
    parser.add_argument("--redis-url", help="also time the tables in this Redis (e.g. `make redis`)")
    parser.add_argument("--wcxb", type=Path, help="print WCXB dev's closest gold-text pairs instead")
    args = parser.parse_args()
    if args.wcxb:
        wcxb_distances(args.wcxb)
        return

    rng = random.Random(2026)
    fingerprints = [rng.getrandbits(64) for _ in range(args.fingerprints)]
    queries = []
    for number in range(args.lookups):
        fingerprint = rng.choice(fingerprints) if number % 2 else rng.getrandbits(64)
        if number % 2:
            for bit in rng.sample(range(64), rng.randint(0, args.distance)):
                fingerprint ^= 1 << bit
        queries.append(fingerprint)
    results = {"memory": measure(NearDuplicateIndex(args.distance), fingerprints, queries)}
    if args.redis_url:
        client = redis.Redis.from_url(args.redis_url)
        prefix = f"benchmark:neardup:{args.distance}"
        store = RedisFingerprintStore(client, prefix)
        try:
            results["redis"] = measure(NearDuplicateIndex(args.distance, store), fingerprints, queries)
        finally:
            for keys in batched(client.scan_iter(match=f"{prefix}:*", count=10_000), 10_000):
                client.delete(*keys)
    print("| store | fingerprints | tables | lookup mean ms | p99 ms | max ms | fill s |")
    print("|---|---|---|---|---|---|---|")
    for name, result in results.items():
        print(
            f"| {name} | {result['fingerprints']} | {result['tables']} | {result['lookup_mean_ms']} "
            f"| {result['lookup_p99_ms']} | {result['lookup_max_ms']} | {result['fill_s']} |"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """``items`` in lists of ``size`` (the last one shorter)."""
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def measure(index: NearDuplicateIndex, fingerprints: list[int], queries: list[int]) -> dict[str, Any]:
    """File ``fingerprints`` (in batches where the store takes them), then time each lookup."""
    started = time.perf_counter()
    entries = (
        (index.keys(fingerprint), fingerprint, f"u{number}")
        for number, fingerprint in enumerate(fingerprints)
    )
    if isinstance(index.store, RedisFingerprintStore):
        for batch in batched(entries, 10_000):
            index.store.add_many(batch)
    else:
        for keys, fingerprint, url in entries:
            index.store.add(keys, fingerprint, url)
    fill_s = time.perf_counter() - started
    times, found = [], 0
    for fingerprint in queries:
        started = time.perf_counter()
        found += index.find(fingerprint) is not None
        times.append(time.perf_counter() - started)
    times.sort()
    return {
        "fingerprints": len(fingerprints),
        "distance": index.max_distance,
        "tables": len(index.blocks),
        "lookups": len(queries),
        "found": found,
        "fill_s": round(fill_s, 1),
        "lookup_mean_ms": round(statistics.fmean(times) * 1000, 4),
        "lookup_p99_ms": round(times[int(0.99 * len(times))] * 1000, 4),
        "lookup_max_ms": round(times[-1] * 1000, 4),
    }


def wcxb_distances(root: Path, closest: int = 8) -> None:
    """Pairwise simhash distances of WCXB dev's non-empty gold texts."""
    pages = [
        (record.url, text_fingerprint(record.gold_text))
        for record in read_wcxb(root)
        if record.gold_text.strip()
    ]
    counts = [0] * 65
    for first in range(len(pages)):
        for second in range(first + 1, len(pages)):
            distance = hamming_distance(pages[first][1], pages[second][1])
            counts[distance] += 1
            if distance <= closest:
                print(f"{distance:2d}  {pages[first][0]}  {pages[second][0]}")
    print(f"{len(pages)} pages with gold text; pairs by distance 0..{closest + 2}: {counts[: closest + 3]}")


if __name__ == "__main__":
    main()
