"""Deliveries per target host, bounded: a token bucket per host, in this process.

Many tasks (or many configs of one task) aimed at one receiver would otherwise turn every turn
into a burst of POSTs at it. A delivery over the rate is not an attempt that failed: its job is
queued again for when the host has room (push/notifier.py), so no notification is lost or
dead-lettered for it. Each process keeps its own buckets: N instances deliver at most N times
the rate, still bounded.
"""

from __future__ import annotations

import time
from collections import OrderedDict

# Hosts remembered at once: the least recently used is forgotten past this (its bucket refills).
MAX_HOSTS = 10_000


class HostRateLimiter:
    def __init__(self, per_second: float) -> None:
        self.per_second = per_second
        self.burst = max(1.0, per_second)
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def reset(self) -> None:
        """Forget every bucket (their times are from a monotonic clock a snapshot restore
        cannot be trusted to continue): every host starts with a full burst."""
        self._buckets.clear()

    def reserve(self, host: str) -> float:
        """Take one delivery's token for `host`: 0 if it may go now, else the seconds to wait
        (then nothing was taken)."""
        if self.per_second <= 0:
            return 0.0
        now = time.monotonic()
        tokens, at = self._buckets.pop(host, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.per_second)
        if tokens >= 1.0:
            self._buckets[host] = (tokens - 1.0, now)
            wait = 0.0
        else:
            self._buckets[host] = (tokens, now)
            wait = (1.0 - tokens) / self.per_second
        while len(self._buckets) > MAX_HOSTS:
            self._buckets.popitem(last=False)
        return wait
