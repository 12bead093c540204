"""The garbage collector during a function's init: paused, then told to leave init's objects be.

Building a handler (the AWS adapter's, the GCP adapter's functions) allocates tens of thousands
of objects that live as long as the process: botocore's service models and endpoint rules
(parsed from JSON), the clients, the Runtime. Each
700 allocations start a collection that walks the young ones, and every tenth of those walks
more; the full collection a DynamoDB client's creation triggers walks all ~70,000 objects of
the process (~15 ms). None of it finds garbage worth the time: init makes almost no reference
cycles (a collection right after init frees a handful of objects).

So a handler's `__init__` runs with the collector off (`paused_during_init`), and the first one
built in a process then moves every object alive into the permanent generation (`gc.freeze`):
later collections no longer walk them, so the first request and every warm one do not either.
A process that builds more handlers (tests) freezes once, and the collector is switched back on
only if it was on before, so code that turned it off keeps it off.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_frozen = False


def paused_during_init(init: Callable[P, R]) -> Callable[P, R]:
    """Wrap a handler's `__init__`: the collector off while it runs, init's objects frozen."""

    @functools.wraps(init)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        global _frozen
        enabled = gc.isenabled()
        gc.disable()
        try:
            return init(*args, **kwargs)
        finally:
            with _lock:
                if not _frozen:
                    _frozen = True
                    gc.freeze()
            if enabled:
                gc.enable()

    return wrapper
