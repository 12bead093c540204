"""Durable calls that cost nothing until an agent makes one: what the Runtime wires in.

Most agents never call `ctx.call`, `ctx.sleep` or `ctx.step`, and a Lambda cold start pays for
every module it imports (the session, the resumer and the remote agents are about 8 ms on a
warm disk). `DeferredDurable` stands where the Runtime needs durable calls — the worker's
`TurnSessions`, the `durable-check` job route, the callback route — and builds the real
`Resumer` (durable/resume.py, durable/session.py) on the first use that needs it: a turn that
makes a durable operation or replays recorded ones, a check job or a callback. A turn that makes
none never imports them. An entry point primes them at init (`prime`) for an agent with remote
agents configured, which may receive callbacks. (The journal's commit hook, which cancels remote
tasks when our task ends, is ending.py's: it is made before the journal, this after.)
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..journal import now_ms
from ..store.bookkeeping import durable_of

if TYPE_CHECKING:
    from ..config import Settings
    from ..executor import TaskUpdater
    from ..http import Request, Response
    from ..journal import Journal
    from ..models import Message
    from ..publicurl import PublicPrefix
    from ..queue.base import Job, Queue
    from ..store.base import TaskRecord
    from ..turn import RemoteAgent
    from .outcomes import CallResult
    from .resume import Resumer
    from .session import DurableSession

log = logging.getLogger("a2a_serverless.durable")

# What the first callback imports: the resumer, the check of the notification's JWT, and the
# client that reads the remote task (httpx: the client imports it on its first request).
CALLBACK_MODULES = (
    "a2a_serverless.durable.resume",
    "a2a_serverless.webhook_receiver",
    "jwt",
    "a2a_serverless.client",
    "httpx",
)


def import_callback_modules() -> None:
    """Import CALLBACK_MODULES now (the adapters' priming at init). Best effort: one missing (no
    `crypto` extra: callbacks then go by their token) is met and reported by the request."""
    for name in CALLBACK_MODULES:
        try:
            importlib.import_module(name)
        except ImportError as error:
            log.debug("could not import %s ahead of the first callback: %s", name, error)


class DeferredDurable:
    def __init__(
        self,
        journal: Journal,
        queue: Queue,
        settings: Settings,
        remotes: Mapping[str, RemoteAgent],
        public_prefix: PublicPrefix = "",
    ) -> None:
        self._args = (journal, queue, settings, remotes)
        self._public_prefix = public_prefix
        self._resumer: Resumer | None = None

    @property
    def resumer(self) -> Resumer:
        if self._resumer is None:
            from .remotes import Remotes
            from .resume import Resumer
            from .session import DurableCalls

            journal, queue, settings, remotes = self._args
            self._resumer = Resumer(
                DurableCalls(
                    journal, queue, settings, Remotes(settings, remotes), self._public_prefix
                )
            )
        return self._resumer

    @property
    def receives_callbacks(self) -> bool:
        """Whether the agent has remote agents configured: its calls name callbacks, which
        may arrive (what `prime` prepares for)."""
        return bool(self._args[3])

    def prime(self) -> None:
        """What the first callback would pay for, paid now (an entry point's init: the AWS
        adapter's priming): for an agent with remote agents configured, whose calls name
        callbacks, the resumer built and CALLBACK_MODULES imported; nothing for another."""
        if not self.receives_callbacks:
            return
        import_callback_modules()
        _ = self.resumer

    # --- the worker's TurnSessions ---------------------------------------------------------------

    def begin(self, record: TaskRecord, step: str) -> DurableSession | DeferredSession:
        kept = durable_of(record.internal)
        if kept is not None and kept.step == step:
            # A turn with recorded operations replays them: the real session, now.
            return self.resumer.calls.begin(record, step)
        return DeferredSession(self, record, step)

    # --- the job route, the callback route -----------------------------------------------------

    async def handle(self, job: Job) -> None:
        await self.resumer.handle(job)

    async def abandon(self, job: Job, reason: str) -> None:
        await self.resumer.abandon(job, reason)

    async def callback(self, request: Request) -> Response:
        return await self.resumer.callback(request)


class DeferredSession:
    """A turn's session until its first durable operation, which makes the real one (as of the
    turn's start, so its deadlines count from there)."""

    # A turn with nothing recorded replays no updater writes.
    replayed_writes = 0

    def __init__(self, durable: DeferredDurable, record: TaskRecord, step: str) -> None:
        self._durable = durable
        self._record = record
        self._step = step
        self._started_at_ms = now_ms()
        self._updater: TaskUpdater | None = None
        self._session: DurableSession | None = None

    def attach(self, updater: TaskUpdater) -> None:
        self._updater = updater

    def _real(self) -> DurableSession:
        if self._session is None:
            calls = self._durable.resumer.calls
            self._session = calls.begin(self._record, self._step, self._started_at_ms)
            if self._updater is not None:
                self._session.attach(self._updater)
        return self._session

    def end_run(self) -> Awaitable[None] | None:
        # None until the turn's first durable operation: the worker then awaits nothing.
        return self._session.end_run() if self._session is not None else None

    async def call(
        self,
        remote: str,
        message: str | Message,
        *,
        deadline_s: float | None = None,
        task_id: str | None = None,
    ) -> CallResult:
        return await self._real().call(remote, message, deadline_s=deadline_s, task_id=task_id)

    async def sleep(self, seconds: float) -> None:
        await self._real().sleep(seconds)

    async def step(self, fn: Callable[[], Any], *, name: str | None = None) -> Any:
        return await self._real().step(fn, name=name)
