"""Priming: what a container's first request would pay for, paid during init instead.

A botocore client builds an operation's model on the operation's first call, resolves its
endpoint and credentials on the first request, and opens its HTTPS connection then (DNS, TCP,
TLS: tens of milliseconds against AWS); `asyncio.to_thread` starts the loop's worker threads
on first use. Lambda runs init at full CPU and, with SnapStart, before the snapshot, so the
Container asks the store and the queue to do all that while it is built: each part with a
`prime()` method (`DynamoDBStore.prime`, `SqsQueue.prime`) is called in the loop's default
executor, which starts its first thread too. So are the durable calls' (`DeferredDurable.prime`)
when the agent has remote agents configured: it may receive their callbacks, whose first one
would import the resumer, PyJWT and httpx (~85 ms on Lambda: bench/durable_aws.py); an agent
without them loads nothing of that. An agent that runs its code in threads (`runs_in_threads`:
an `@agent` function that is not async, a sync direct hook, a wrapped Lambda handler; an
executor class may say so with a `runs_in_threads = True` attribute) has that thread started
even when no part has anything to prime; for one that does not (an async executor on the
memory store), nothing is done: starting a thread no request uses cost about 1 ms of init.

Priming is best effort: a failure is logged and init carries on, as the first request meets
the same error and reports it where it belongs. It is also bounded: a part that takes longer
than PRIME_TIMEOUT_S (an endpoint that does not answer, where botocore would wait out its
connect timeout and retries) is left to finish in its thread while init goes on, so Lambda's
10 s init limit is never spent on it. `A2A_PRIME=false` turns it off.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from a2a_serverless.agent import Agent

log = logging.getLogger("a2a_serverless_aws.priming")

# How long init waits for one part's priming (a request to DynamoDB takes milliseconds).
PRIME_TIMEOUT_S = 2.0


def prime(loop: asyncio.AbstractEventLoop, *parts: object, threads: bool = False) -> None:
    """Run each part's `prime()` (when it has one) to the end, on `loop`'s default executor,
    which starts its first thread; with `threads` (the agent runs code in threads: see
    `runs_in_threads`) that thread is started even when no part has anything to prime."""
    primed = [(part, method) for part in parts if (method := getattr(part, "prime", None))]
    if primed or threads:
        loop.run_until_complete(_prime(primed))


def runs_in_threads(agent: Agent) -> bool:
    """Whether the agent's turns or direct answers run its code in the loop's default executor:
    its executor says so (`runs_in_threads`), or its direct hook is not a coroutine function."""
    if getattr(agent.executor, "runs_in_threads", False):
        return True
    return agent.direct is not None and not inspect.iscoroutinefunction(agent.direct)


def _thread_started() -> None:
    """Nothing: run in the default executor to start its first thread."""


async def _prime(parts: list[tuple[object, Callable[[], object]]]) -> None:
    if not parts:
        await asyncio.to_thread(_thread_started)
    for part, method in parts:
        try:
            await asyncio.wait_for(asyncio.to_thread(method), PRIME_TIMEOUT_S)
        except TimeoutError:
            log.warning(
                "priming %r took over %g s: init goes on without waiting for it",
                part,
                PRIME_TIMEOUT_S,
            )
        except Exception as error:  # best effort: the first request meets it and reports it
            log.warning("could not prime %r (its first request will pay for it): %s", part, error)
