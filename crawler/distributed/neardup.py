"""The near-duplicate tables in the crawl's Redis, shared by every worker of a distributed
crawl: a page is flagged against the pages any worker has seen."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import redis

#: Key prefix of the tables, per spider (like scrapy-redis' ``%(spider)s:dupefilter``).
NEARDUP_KEY = "%(spider)s:neardup"


class RedisFingerprintStore:
    """The permutation tables as Redis lists ``PREFIX:TABLE:KEY``, each entry the 8-byte
    big-endian fingerprint followed by the URL in UTF-8. A lookup reads its buckets in one
    round trip, a filing writes them in one. Two workers filing near-duplicates at the
    same moment may both miss the other (a lookup and its filing are two round trips)."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.client = client
        self.prefix = prefix

    def _bucket(self, table: int, key: int) -> str:
        return f"{self.prefix}:{table}:{key:x}"

    def add(self, keys: list[int], fingerprint: int, url: str) -> None:
        self.add_many([(keys, fingerprint, url)])

    def add_many(self, entries: Iterable[tuple[list[int], int, str]]) -> None:
        """File many fingerprints in one round trip (``(keys, fingerprint, url)`` each)."""
        with self.client.pipeline(transaction=False) as pipe:
            for keys, fingerprint, url in entries:
                entry = fingerprint.to_bytes(8, "big") + url.encode("utf-8")
                for table, key in enumerate(keys):
                    pipe.rpush(self._bucket(table, key), entry)
            pipe.execute()

    def buckets(self, keys: list[int]) -> list[list[tuple[int, str]]]:
        with self.client.pipeline(transaction=False) as pipe:
            for table, key in enumerate(keys):
                pipe.lrange(self._bucket(table, key), 0, -1)
            found = pipe.execute()
        return [
            [(int.from_bytes(entry[:8], "big"), entry[8:].decode("utf-8")) for entry in bucket]
            for bucket in found
        ]
