"""Firestore that cannot be reached, as the core's `StoreUnavailable`.

The Firestore client retries an unavailable backend for minutes (its default retry deadline),
so an outage would hold a request, and its function, far past any client's patience and then
surface as an unexpected error (HTTP 500). Every Store method runs under a time bound instead,
and an outage, a deadline or an exhausted retry becomes `StoreUnavailable`: HTTP 503 with
`Retry-After` to clients, a failed job (delivered again by the queue) in the worker.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from google.api_core.exceptions import (
    DeadlineExceeded,
    InternalServerError,
    RetryError,
    ServiceUnavailable,
)

from a2a_serverless.store.base import StoreUnavailable

DEFAULT_CALL_TIMEOUT_S = 20.0

_OUTAGES = (ServiceUnavailable, DeadlineExceeded, InternalServerError, RetryError)

P = ParamSpec("P")
R = TypeVar("R")


class _Bounded(Protocol):
    call_timeout_s: float


S = TypeVar("S", bound=_Bounded)


def unavailable_on_outage(
    method: Callable[Concatenate[S, P], Awaitable[R]],
) -> Callable[Concatenate[S, P], Awaitable[R]]:
    """Bound a Store method by the store's `call_timeout_s` and type its outages."""

    @functools.wraps(method)
    async def bounded(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            async with asyncio.timeout(self.call_timeout_s):
                return await method(self, *args, **kwargs)
        except TimeoutError as exc:
            raise StoreUnavailable(
                f"Firestore did not answer within {self.call_timeout_s:g} s"
            ) from exc
        except _OUTAGES as exc:
            raise StoreUnavailable(f"Firestore is unavailable: {_brief(exc)}") from exc

    return bounded


def _brief(exc: Any) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:300]
