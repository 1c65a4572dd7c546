"""64-bit simhash fingerprints and their Hamming distance.

The fingerprint is bit-for-bit the one of ``simhash.Simhash(text).value`` (features:
the lowercased text's word characters joined, sliced into overlapping 4-character
grams, weighted by count; each feature hashed with MD5, last 8 bytes). The package
multiplies a ``uint8`` bit array by the feature's count, which raises ``OverflowError``
under NumPy 2 as soon as one gram occurs more than 255 times; here the weighted bit
sums are accumulated in ``int64`` instead, so any text length works.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import numpy as np

FINGERPRINT_BITS = 64
#: The package's ``[\w\u4e00-\u9fcc]+``: those CJK characters are ``\w`` already.
_FEATURE_CHARS = re.compile(r"\w+")
_GRAM = 4
_CHUNK = 8192


def simhash_features(text: str) -> Counter[str]:
    """The ``simhash`` package's features of ``text`` with their counts."""
    content = "".join(_FEATURE_CHARS.findall(text.lower()))
    return Counter(content[i : i + _GRAM] for i in range(max(len(content) - _GRAM + 1, 1)))


def simhash_fingerprint(text: str) -> int:
    """64-bit simhash of ``text``, identical to ``simhash.Simhash(text).value``."""
    features = simhash_features(text)
    weights = np.fromiter(features.values(), dtype=np.int64, count=len(features))
    names = list(features)
    sums = np.zeros(FINGERPRINT_BITS, dtype=np.int64)
    for start in range(0, len(names), _CHUNK):
        digests = b"".join(
            hashlib.md5(name.encode("utf-8")).digest()[-FINGERPRINT_BITS // 8 :]
            for name in names[start : start + _CHUNK]
        )
        bits = np.unpackbits(np.frombuffer(digests, dtype=np.uint8)).reshape(-1, FINGERPRINT_BITS)
        sums += weights[start : start + _CHUNK] @ bits.astype(np.int64)
    majority = sums > int(weights.sum()) / 2
    return int.from_bytes(np.packbits(majority).tobytes(), "big")


def hamming_distance(a: int, b: int) -> int:
    """Number of differing bits between two fingerprints."""
    return (a ^ b).bit_count()
