"""What one Lambda execution environment keeps between invocations: an event loop and a Runtime.

Lambda freezes the process between invocations and thaws it for the next one, so everything
worth reusing — the store's and the queue's clients, the signing keys, the agent — is built once,
at init, and every invocation runs on the same event loop (`Container.run`). The loop is never
closed or replaced: clients bound to it (an httpx pool, a DynamoDB or SQS connection) stay valid
from one invocation to the next. This is also what Mangum does with its loop, and why the HTTP
handler makes this loop the thread's current one before each call.

Nothing runs between invocations: the SQS queue sends each job before the request that made it
returns, so no background task is ever left for a frozen process to finish.

On Python 3.12 an invocation starts as an eager task (`InvocationLoop`): work that never waits
(a tasks/get, or a blocking send, on the memory store with the in-process queue) ends within
that first step, and the loop turns only when it has something to do: the invocation waits, or
a callback, a timer or a file descriptor is waiting for it. A warm call then costs ~5 us less.
"""

from __future__ import annotations

import asyncio
import contextlib
import selectors
import sys
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

from a2a_serverless.agent import Agent
from a2a_serverless.config import Settings
from a2a_serverless.eager import start_task
from a2a_serverless.observability import Observer
from a2a_serverless.runtime import Runtime

from .config import AwsSettings, snapshot_init
from .priming import prime, runs_in_threads
from .secrets import resolve_secrets

T = TypeVar("T")

_SLUG_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


class Container:
    def __init__(
        self,
        agent: Agent,
        settings: Settings,
        aws: AwsSettings,
        *,
        observers: Sequence[Observer] = (),
        **runtime_options: Any,
    ) -> None:
        """`runtime_options` go to `Runtime` (e.g. `store=`, `security=`); the queue is an
        `SqsQueue` on A2A_SQS_QUEUE_URL unless `queue=` is given."""
        self.loop = _new_loop()
        asyncio.set_event_loop(self.loop)
        queue = runtime_options.pop("queue", None)
        if queue is None:
            from .sqs import SqsQueue  # here: a queue given (in-process, say) needs none of it

            queue = SqsQueue(aws.require_queue_url(), webhook_queue_url=aws.sqs_webhook_queue_url)
        self.queue = queue
        # Secrets named by reference (ssm:..., secretsmanager:...) are read once, here.
        settings = resolve_secrets(settings)
        self.runtime = Runtime(agent, settings, queue=queue, observers=observers, **runtime_options)
        self.primed = aws.prime
        if aws.prime:
            # With remote agents, the callback's cold path too: the resumer, the JWT's check
            # and the client (DeferredDurable.prime); nothing for an agent without them.
            durable = self.runtime.durable_calls
            callbacks = [durable] if durable.receives_callbacks else []
            prime(self.loop, self.runtime.store, queue, *callbacks, threads=runs_in_threads(agent))
        if snapshot_init():
            from . import snapstart  # a snapshot's init only

            snapstart.register(self)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run one invocation's work to the end on the container's loop (`run_invocation`)."""
        return run_invocation(self.loop, coroutine)

    def close(self) -> None:
        """Release the runtime and the loop (tests; Lambda simply ends the process)."""
        if self.loop.is_closed():
            return
        self.loop.run_until_complete(self.runtime.aclose())
        self.loop.close()


class InvocationLoop(asyncio.SelectorEventLoop):
    """The container's event loop (Python 3.12+): it starts an invocation as an eager task.

    `asyncio.Task(..., eager_start=True)` runs a coroutine at once only on a running loop, and
    an invocation comes in while the loop is stopped (Lambda calls the handler between turns).
    So `start` makes the loop what a turn makes it while the task's first step runs: the
    running loop, its async generator hooks, `is_running()`; the step is then the one a turn
    would take, with `asyncio.current_task()` set (`asyncio.timeout` needs it). The loop's own
    state this reads (`_ready`, `_scheduled`, `_selector`, the hooks) is `BaseEventLoop`'s,
    the same from Python 3.12 to 3.14.
    """

    # BaseEventLoop's and BaseSelectorEventLoop's, undeclared in typeshed.
    _ready: deque[asyncio.Handle]
    _scheduled: list[asyncio.TimerHandle]
    _selector: selectors.BaseSelector
    _asyncgen_firstiter_hook: Callable[[Any], None]
    _asyncgen_finalizer_hook: Callable[[Any], None]

    def __init__(self) -> None:
        self._starting = False  # before the base's __init__, which asks is_running()
        super().__init__()

    def is_running(self) -> bool:
        return self._starting or super().is_running()

    def start(self, coroutine: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """`coroutine` as a task run at once up to its first real wait; when it waits, the
        task stops the loop as it ends (`run_forever` then runs it to its end)."""
        hooks = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(
            firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook
        )
        asyncio._set_running_loop(self)
        self._starting = True
        try:
            return start_task(self._stopping_when_done(coroutine))
        finally:
            self._starting = False
            asyncio._set_running_loop(None)
            sys.set_asyncgen_hooks(*hooks)

    def has_waiting_work(self) -> bool:
        """Whether a turn would do anything: a callback ready, a timer (due, or cancelled and
        still to be dropped), or a file descriptor watched besides the loop's own wake-up."""
        return bool(self._ready or self._scheduled) or len(self._selector.get_map()) > 1

    async def _stopping_when_done(self, coroutine: Coroutine[Any, Any, T]) -> T:
        try:
            return await coroutine
        finally:
            if not self._starting:  # ended on a turn of the loop, not in its eager start
                self.stop()


def _new_loop() -> asyncio.AbstractEventLoop:
    """An `InvocationLoop` where eager tasks exist (3.12+) and the event loop policy makes
    asyncio's own loop; else the policy's loop (e.g. uvloop's), run as before. Before Python
    3.14 the policy says so itself; from 3.14, whose policy API is deprecated, by making a loop
    (~0.07 ms of init)."""
    if sys.version_info < (3, 12):
        return asyncio.new_event_loop()
    if sys.version_info < (3, 14) and sys.platform != "win32":  # (Windows': the Proactor loop)
        if type(asyncio.get_event_loop_policy()) is asyncio.DefaultEventLoopPolicy:
            return InvocationLoop()
        return asyncio.new_event_loop()
    loop = asyncio.new_event_loop()
    if type(loop) is not asyncio.SelectorEventLoop:
        return loop
    loop.close()
    return InvocationLoop()


def run_invocation(loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]) -> T:
    """Run one invocation's work to the end on `loop`.

    Started eagerly where the loop can (`InvocationLoop`): work that never waits is over
    before the loop turns, and the loop then turns once only if something waits for it (as
    the one turn such an invocation took before). Otherwise what `loop.run_until_complete`
    does, in half the time (~6 us less per invocation): the task stops the loop itself as it
    ends, instead of through a done callback that takes one more turn of the loop. Other tasks
    (e.g. in-process jobs) run while it runs, and carry on at the next invocation.
    """
    asyncio.set_event_loop(loop)
    if isinstance(loop, InvocationLoop):
        task = loop.start(coroutine)
        if task.done():
            if loop.has_waiting_work():
                loop.call_soon(loop.stop)
                loop.run_forever()
            return task.result()
    else:
        task = loop.create_task(_stopping_loop_when_done(loop, coroutine))
    try:
        loop.run_forever()
    finally:
        if not task.done():
            # run_forever left early (e.g. KeyboardInterrupt): do not leave the work behind.
            task.cancel()
            with contextlib.suppress(BaseException):
                loop.run_until_complete(task)
    return task.result()


def service_name(agent: Agent) -> str:
    """A default service name for logs and metrics: the agent's name as a slug, each run of
    characters other than a-z and 0-9 one "-", none at the ends (without a regular expression:
    compiling one is ~0.1 ms of init)."""
    dashed = "".join(c if c in _SLUG_CHARACTERS else "-" for c in agent.name.lower())
    return "-".join(part for part in dashed.split("-") if part) or "a2a-agent"


async def _stopping_loop_when_done(
    loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]
) -> T:
    try:
        return await coroutine
    finally:
        loop.stop()
