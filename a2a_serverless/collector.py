"""The garbage collector during a function's imports and init: paused, then told to leave their
objects be.

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

The kit's imports are the same story, in a function's process (AWS Lambda, Cloud Run and
Cloud Functions: `FUNCTION_VARIABLES` say so): loading the server's modules through a package
face (`lazyface.py`: `from a2a_serverless import Agent`, the adapters' `make_http_handler`)
makes tens of thousands of objects (classes, functions, Structs' metadata) that live as long as
the process, and the ~40 young collections they start walked them for about 6 ms of a cold
start, finding nothing. `imported_long_lived` runs such an import with the collector paused and
then freezes what is alive, as the handler's init would moments later. Elsewhere (a dev server,
an application that mounts an agent, tests) and once a handler has frozen the process, it is a
plain import.
"""

from __future__ import annotations

import functools
import gc
import os
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

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


# Set by the platforms whose processes serve a function: AWS Lambda, Cloud Run (Cloud Functions
# gen2), functions-framework.
FUNCTION_VARIABLES = ("AWS_LAMBDA_FUNCTION_NAME", "K_SERVICE", "FUNCTION_TARGET")


def imported_long_lived(load: Callable[[], T]) -> T:
    """`load()` (an import of the kit's modules); in a function's process, with the collector
    paused and what is alive then frozen (see the module docstring)."""
    if _frozen or not any(os.environ.get(name) for name in FUNCTION_VARIABLES):
        return load()
    enabled = gc.isenabled()
    gc.disable()
    try:
        return load()
    finally:
        if enabled:  # the outermost import (a nested one finds the collector off)
            gc.freeze()
            gc.enable()
