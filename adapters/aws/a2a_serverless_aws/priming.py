"""Priming: what a container's first request would pay for, paid during init instead.

A botocore client builds an operation's model on the operation's first call, resolves its
endpoint and credentials on the first request, and opens its HTTPS connection then (DNS, TCP,
TLS: tens of milliseconds against AWS); `asyncio.to_thread` starts the loop's worker threads
on first use. Lambda runs init at full CPU and, with SnapStart, before the snapshot, so the
Container asks the store and the queue to do all that while it is built: each part with a
`prime()` method (`DynamoDBStore.prime`, `SqsQueue.prime`) is called in the loop's default
executor, which starts its first thread too.

Priming is best effort: a failure is logged and init carries on, as the first request meets
the same error and reports it where it belongs. `A2A_PRIME=false` turns it off (e.g. for a
handler built where the store cannot be reached).
"""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("a2a_serverless_aws.priming")


def prime(loop: asyncio.AbstractEventLoop, *parts: object) -> None:
    """Run each part's `prime()` (when it has one) to the end, on `loop`'s default executor."""
    loop.run_until_complete(_prime(parts))


async def _prime(parts: tuple[object, ...]) -> None:
    for part in parts:
        method = getattr(part, "prime", None)
        if method is None:
            continue
        try:
            await asyncio.to_thread(method)
        except Exception as error:  # best effort: the first request meets it and reports it
            log.warning("could not prime %r (its first request will pay for it): %s", part, error)
