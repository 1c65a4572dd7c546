"""The near-duplicate index: bit-permutation tables over 64-bit simhash fingerprints."""

from __future__ import annotations

import random

import pytest

from pipelines.evaluation.fingerprint import FINGERPRINT_BITS, hamming_distance, simhash_fingerprint
from pipelines.neardup import MemoryFingerprintStore, NearDuplicateIndex, block_bounds


def flip(fingerprint: int, bits: list[int]) -> int:
    for bit in bits:
        fingerprint ^= 1 << bit
    return fingerprint


@pytest.mark.parametrize("max_distance", [0, 3, 6, 9])
def test_blocks_cut_all_64_bits(max_distance):
    bounds = block_bounds(max_distance)
    assert len(bounds) == max_distance + 1
    assert sum(width for _, width in bounds) == FINGERPRINT_BITS
    assert [shift for shift, _ in bounds] == [sum(w for _, w in bounds[:i]) for i in range(len(bounds))]


def test_max_distance_out_of_range_is_refused():
    with pytest.raises(ValueError, match="max_distance"):
        NearDuplicateIndex(64)


@pytest.mark.parametrize("max_distance", [1, 3, 5])
def test_finds_every_fingerprint_within_the_distance_and_none_beyond(max_distance):
    """Against brute force, on random fingerprints and on flips of them."""
    rng = random.Random(7)
    index = NearDuplicateIndex(max_distance)
    filed: list[tuple[int, str]] = []
    for number in range(400):
        if filed and rng.random() < 0.5:
            base = rng.choice(filed)[0]
            fingerprint = flip(base, rng.sample(range(64), rng.randint(0, max_distance + 2)))
        else:
            fingerprint = rng.getrandbits(64)
        url = f"https://example.com/{number}"
        near = [u for f, u in filed if hamming_distance(f, fingerprint) <= max_distance]
        found = index.add(fingerprint, url)
        assert (found is None) == (not near)
        assert found is None or found in near
        filed.append((fingerprint, url))


def test_a_shared_store_is_used():
    store = MemoryFingerprintStore()
    NearDuplicateIndex(3, store).add(0xDEADBEEF, "https://a.example/")
    assert NearDuplicateIndex(3, store).add(flip(0xDEADBEEF, [0, 40, 63]), "https://b.example/") == (
        "https://a.example/"
    )


def test_texts_that_differ_by_a_credit_line_are_near_duplicates():
    body = " ".join(f"Sentence {n} of the wire story about the harbour and its ferries." for n in range(60))
    original = simhash_fingerprint(body)
    copy = simhash_fingerprint("This story first appeared on the Daily Meridian. " + body)
    index = NearDuplicateIndex(3)
    index.add(original, "https://a.example/story")
    assert index.add(copy, "https://b.example/wire/story") == "https://a.example/story"
    assert index.add(simhash_fingerprint("A different story, about markets. " * 30), "https://c/") is None
