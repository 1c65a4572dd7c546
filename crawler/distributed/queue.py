"""A scrapy-redis priority queue whose pops are leases: a request taken from the shared
frontier stays in Redis, under its lease, until the worker acknowledges it; a lease
that is not renewed in time (its worker died) puts the request back, marked recrawled."""

from __future__ import annotations

import time
import uuid
from typing import Any

from scrapy import Request, Spider
from scrapy_redis.queue import PriorityQueue

from crawler.distributed.meta import LEASE_META_KEY, RECRAWLED_META_KEY

# Atomic moves between the queue (sorted set), the leased requests (hash: lease → request)
# and the lease deadlines (sorted set: lease → expiry time).
_TAKE = """
local top = redis.call('ZRANGE', KEYS[1], 0, 0)
if #top == 0 then return false end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, 0)
redis.call('HSET', KEYS[2], ARGV[1], top[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return top[1]
"""
_PUT_BACK = """
if redis.call('ZREM', KEYS[3], ARGV[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
return 1
"""


class LeaseQueue(PriorityQueue):  # type: ignore[misc]
    """scrapy-redis' ``PriorityQueue`` (same key, same encoding) with leased pops.

    Keys: ``KEY`` (the queue), ``KEY:leases`` and ``KEY:deadlines``. ``lease_seconds``
    is set by the scheduler after construction (scrapy-redis builds the queue)."""

    lease_seconds: float = 60.0

    def __init__(self, server: Any, spider: Spider, key: str, serializer: Any = None):
        super().__init__(server, spider, key, serializer)
        self.leases_key = f"{self.key}:leases"
        self.deadlines_key = f"{self.key}:deadlines"
        self.worker = uuid.uuid4().hex[:12]
        self.taken = 0
        self.held: set[str] = set()  # this worker's leases not yet acknowledged
        self._take = server.register_script(_TAKE)
        self._put_back = server.register_script(_PUT_BACK)

    def pop(self, timeout: float = 0) -> Request | None:
        """The next request, taken under a new lease (its id in the request's meta)."""
        self.taken += 1
        lease = f"{self.worker}:{self.taken}"
        data = self._take(
            keys=[self.key, self.leases_key, self.deadlines_key],
            args=[lease, time.time() + self.lease_seconds],
        )
        if data is None:
            return None
        request: Request = self._decode_request(data)
        request.meta[LEASE_META_KEY] = lease
        self.held.add(lease)
        return request

    def ack(self, lease: str) -> None:
        """The request taken under ``lease`` is done (its feed line is written)."""
        self.held.discard(lease)
        pipe = self.server.pipeline()
        pipe.hdel(self.leases_key, lease).zrem(self.deadlines_key, lease)
        pipe.execute()

    def renew(self) -> None:
        """Push this worker's unacknowledged leases' deadlines forward (only leases still
        held: one already put back is not revived)."""
        if not self.held:
            return
        deadline = time.time() + self.lease_seconds
        self.server.zadd(self.deadlines_key, dict.fromkeys(self.held, deadline), xx=True)

    def put_back_expired(self) -> int:
        """Put every request whose lease has expired back in the queue, marked recrawled
        and exempt from the duplicate filter; how many."""
        put_back = 0
        for raw in self.server.zrangebyscore(self.deadlines_key, "-inf", time.time()):
            lease = raw.decode() if isinstance(raw, bytes) else raw
            data = self.server.hget(self.leases_key, lease)
            if data is None:
                continue
            request = self._decode_request(data)
            request.meta.pop(LEASE_META_KEY, None)
            request.meta[RECRAWLED_META_KEY] = True
            request.dont_filter = True
            put_back += self._put_back(
                keys=[self.key, self.leases_key, self.deadlines_key],
                args=[lease, self._encode_request(request), -request.priority],
            )
        return put_back

    def outstanding(self) -> int:
        """Leases outstanding across all workers."""
        count: int = self.server.zcard(self.deadlines_key)
        return count

    def clear(self) -> None:
        self.server.delete(self.key, self.leases_key, self.deadlines_key)
