"""Near-duplicate lookup over 64-bit simhash fingerprints: the bit-permutation tables of
Manku, Jain and Das Sarma ("Detecting near-duplicates for web crawling", WWW 2007).

With a distance of at most ``k`` bits, the 64 bits are cut into ``k + 1`` blocks; two
fingerprints within ``k`` bits agree exactly on at least one block (pigeonhole). Table
``i`` files every fingerprint under its block ``i``, so a lookup reads ``k + 1`` buckets
and compares only the fingerprints there. The tables live in a :class:`FingerprintStore`:
in memory here, or shared by a distributed crawl's workers in its Redis
(:class:`crawler.distributed.neardup.RedisFingerprintStore`).
"""

from __future__ import annotations

from typing import Protocol

from pipelines.evaluation.fingerprint import FINGERPRINT_BITS, hamming_distance


class FingerprintStore(Protocol):
    """Where the permutation tables live: buckets of (fingerprint, URL) by table and key.
    ``keys[t]`` is the fingerprint's bucket in table ``t``."""

    def add(self, keys: list[int], fingerprint: int, url: str) -> None:
        """File ``(fingerprint, url)`` under its key in every table."""

    def buckets(self, keys: list[int]) -> list[list[tuple[int, str]]]:
        """Per table, every (fingerprint, url) filed under its key there, oldest first."""


class MemoryFingerprintStore:
    """The tables in memory: per bucket, a list of fingerprints and one of URLs (plain
    ints and strings, so a million entries add few objects for the garbage collector)."""

    def __init__(self) -> None:
        self._fingerprints: dict[tuple[int, int], list[int]] = {}
        self._urls: dict[tuple[int, int], list[str]] = {}

    def add(self, keys: list[int], fingerprint: int, url: str) -> None:
        for bucket in enumerate(keys):
            if bucket not in self._fingerprints:
                self._fingerprints[bucket], self._urls[bucket] = [], []
            self._fingerprints[bucket].append(fingerprint)
            self._urls[bucket].append(url)

    def buckets(self, keys: list[int]) -> list[list[tuple[int, str]]]:
        return [
            list(zip(self._fingerprints.get(bucket, []), self._urls.get(bucket, []), strict=True))
            for bucket in enumerate(keys)
        ]


def block_bounds(max_distance: int) -> list[tuple[int, int]]:
    """(shift, width) of the ``max_distance + 1`` blocks that cut the 64 bits."""
    if not 0 <= max_distance < FINGERPRINT_BITS:
        raise ValueError(f"max_distance must be between 0 and {FINGERPRINT_BITS - 1}, got {max_distance}")
    count = max_distance + 1
    bounds, start = [], 0
    for index in range(count):
        width = FINGERPRINT_BITS // count + (index < FINGERPRINT_BITS % count)
        bounds.append((start, width))
        start += width
    return bounds


class NearDuplicateIndex:
    """Fingerprints seen so far; :meth:`add` answers one within ``max_distance`` bits
    (its URL) before filing the new one."""

    def __init__(self, max_distance: int, store: FingerprintStore | None = None) -> None:
        self.max_distance = max_distance
        self.blocks = block_bounds(max_distance)
        self.store: FingerprintStore = store if store is not None else MemoryFingerprintStore()

    def keys(self, fingerprint: int) -> list[int]:
        """The fingerprint's block in each table."""
        return [(fingerprint >> shift) & ((1 << width) - 1) for shift, width in self.blocks]

    def find(self, fingerprint: int) -> str | None:
        """URL of a filed fingerprint within ``max_distance`` bits (the oldest of the first
        table that has one), or None."""
        for bucket in self.store.buckets(self.keys(fingerprint)):
            for other, url in bucket:
                if hamming_distance(fingerprint, other) <= self.max_distance:
                    return url
        return None

    def add(self, fingerprint: int, url: str) -> str | None:
        """File ``fingerprint`` for ``url``; the URL of an earlier near-duplicate, or None."""
        original = self.find(fingerprint)
        self.store.add(self.keys(fingerprint), fingerprint, url)
        return original
