"""Wake-ups for readers of a task's event log within one process.

The Store is the only source of truth; this bus merely tells a waiting reader (an SSE stream, a
blocking `message/send`) that a task it follows was written *by this process*, so it re-reads at
once instead of at its next poll. Writers in other processes are seen by polling.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from types import TracebackType


class TaskBus:
    def __init__(self) -> None:
        self._events: defaultdict[str, set[asyncio.Event]] = defaultdict(set)

    def notify(self, task_id: str) -> None:
        for event in self._events.get(task_id, ()):
            event.set()

    def subscribe(self, task_id: str) -> Subscription:
        """Subscribe *before* reading the store, so no write between read and wait is missed."""
        return Subscription(self, task_id)

    def _add(self, task_id: str, event: asyncio.Event) -> None:
        self._events[task_id].add(event)

    def _remove(self, task_id: str, event: asyncio.Event) -> None:
        events = self._events.get(task_id)
        if events is not None:
            events.discard(event)
            if not events:
                del self._events[task_id]


class Subscription:
    def __init__(self, bus: TaskBus, task_id: str) -> None:
        self._bus = bus
        self._task_id = task_id
        self._event = asyncio.Event()
        bus._add(task_id, self._event)

    async def wait(self, timeout: float) -> bool:
        """Wait for a write in this process or `timeout` seconds; True if woken by a write."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        finally:
            self._event.clear()
        return True

    def close(self) -> None:
        self._bus._remove(self._task_id, self._event)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
