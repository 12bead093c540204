"""Wires one deployment together: settings -> store, queue, push's outbox, journal, notifier,
worker, the job router, service. Each object gets what it uses when it is made (the journal its
commit and catch-up hooks: signals, push's outbox, durable calls' remote cancels; the notifier
its outbox and signals): nothing is hooked onto an object after it is made. The one loop (a
queue consumed in this process runs its jobs through the router, whose webhook route is the
notifier that queues on it) is closed by starting the queue with the router last
(`Queue.start`).

Every entry point (the dev server, a Lambda handler, a Cloud Function) builds one `Runtime` per
process (per container) and reuses it across invocations, so connections are made once.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from . import tracing
from .agent import Agent
from .bus import TaskBus
from .config import Settings
from .durable.deferred import DeferredDurable
from .durable.ending import RemoteCancels
from .handoff import TurnHandoff
from .holders import local_holder_id
from .journal import CommitHook, Journal
from .observability import Observer, Signals
from .publicurl import PublicPrefix, agent_url, clean_prefix
from .queue.base import DURABLE_CHECK, RUN_AGENT, WEBHOOK_JOB, Queue, RunsJobsWhereQueued
from .queue.router import JobRoute, JobRouter
from .service import TaskService
from .skills import SkillGate
from .store import open_store
from .store.base import LocalFileStore, Store
from .turn import RemoteAgent
from .worker import Worker

if TYPE_CHECKING:
    from .auth import Security
    from .direct import DirectHook
    from .push.keys import KeyRing
    from .push.notifier import PushNotifier

log = logging.getLogger("a2a_serverless.runtime")


class Runtime:
    def __init__(
        self,
        agent: Agent,
        settings: Settings | None = None,
        *,
        store: Store | None = None,
        queue: Queue | None = None,
        push_notifications: bool = True,
        security: Security | None = None,
        observers: Sequence[Observer] = (),
        public_prefix: PublicPrefix = "",
    ) -> None:
        """`public_prefix`: the path under A2A_PUBLIC_URL where the agent is served, a FastAPI
        mount's prefix (mountprefix.py), under which its durable calls' callbacks are named; a
        callable finds it on first use (a worker's app named by reference)."""
        self.agent = agent
        self.public_prefix = (
            clean_prefix(public_prefix) if isinstance(public_prefix, str) else public_prefix
        )
        self.settings = settings or Settings.from_env()
        # Who may call: from `security`, else the A2A_AUTH_* settings, else anonymous. The
        # anonymous Security is made when first read (the card, the inspector): a request to
        # an agent without authentication asks `authenticates` alone, and loads no auth/.
        if security is None and self.settings.sets_authentication:
            from .auth import security_from_settings

            security = security_from_settings(self.settings)
        self._security = security
        self.authenticates = security is not None and security.enabled
        if security is not None:
            security.check_skills([*agent.skills, *agent.extended_skills])
        self.store = store if store is not None else open_store(self.settings.store_url)
        if self.settings.otel:
            # Spans for the whole process (OpenTelemetry's provider is global too); without
            # the setting nothing of OpenTelemetry is imported (tracing.py).
            tracing.enable()
        # Metrics and traces: what happened, for the observers an entry point brings.
        self.signals = Signals(observers)
        # On a store in a file on this machine (SQLite) the embedded queue keeps its jobs in that
        # file (they survive a restart), and every worker on it is on this machine: a dead one
        # is recognised at once.
        local_file = self.store.local_file if isinstance(self.store, LocalFileStore) else None
        durable = queue is None and local_file is not None
        if queue is None:
            if local_file is not None:
                from .queue.sqlite import SqliteQueue

                # Its jobs are this agent's: another agent on the file leaves them alone.
                queue = SqliteQueue(local_file, agent=agent.name)
            else:
                from .queue.inprocess import InProcessQueue

                queue = InProcessQueue()
        self.queue = queue
        traced = tracing.traced_store(self.store)
        # Signed URLs for large file parts, when the settings ask (refused on a store that
        # cannot sign); imported only then.
        links = None
        if self.settings.content_signed_urls:
            from .filelinks import file_links

            links = file_links(self.store, self.settings)
        # Push is offered only where it can be delivered and signed: the card, the service's
        # answers (-32003 otherwise) and the JWKS endpoint all follow `notifier`. Decided first:
        # the journal's hooks include push's outbox.
        keys = None
        if push_notifications and self.settings.push_notifications:
            keys = _push_keys(self.settings)
        outbox = None
        if keys is not None:
            from .push import PushNotifier

            outbox = PushNotifier.make_outbox(traced, queue, self.settings)
        # Our task ending cancels the remote tasks its durable calls wait on.
        remote_cancels = RemoteCancels(queue, self.settings)
        self.journal = Journal(
            traced,
            TaskBus(),
            finished_task_ttl_s=self.settings.finished_task_ttl_s,
            max_task_bytes=self.settings.max_task_bytes,
            commit_hooks=[self.signals.on_commit]
            + ([outbox.on_commit] if outbox else [])
            + _dev_hooks(self.settings)
            + [remote_cancels.on_commit],
            # A redelivered turn's job: queue again what its notifications still owe.
            catch_up_hooks=[outbox.reschedule] if outbox else [],
            # A turn queued here runs here at once: its worker claims it from the record the
            # write that began it committed, without reading the task first.
            handoff=TurnHandoff() if _runs_jobs_here(queue) else None,
        )
        remotes: dict[str, RemoteAgent] = {}
        if agent.remote_agents or self.settings.remote_agents:
            # Only then: an agent that calls no other never imports the client (nor needs it).
            from .extras import require_client

            require_client("calling other agents (remote_agents, ctx.call)")
            from .client.remote import remote_agents

            remotes = remote_agents(agent.remote_agents, self.settings.remote_agents)
        # Durable calls (ctx.call, ctx.sleep, ctx.step): what resumes them (callbacks, checks), and
        # through it their sessions; they name the same remote agents as `ctx.remote`.
        self.durable_calls = DeferredDurable(
            self.journal, queue, self.settings, remotes, self.public_prefix
        )
        self.notifier: PushNotifier | None = None
        if keys is not None:
            self.notifier = PushNotifier(
                self.journal,
                queue,
                self.settings,
                issuer=self.agent_url,
                keys=keys,
                outbox=outbox,
                signals=self.signals,
                links=links,
            )
        self.worker = Worker(
            agent,
            self.journal,
            lease_s=self.settings.worker_lease_s,
            max_attempts=self.settings.worker_max_attempts,
            worker_id=local_holder_id() if durable else None,
            local_liveness=durable,
            remote_agents=remotes,
            durable=self.durable_calls,
        )
        # What runs each kind of job the queue delivers, and what ends one it gives up on.
        routes = {
            RUN_AGENT: JobRoute(self.worker.run_job, self.worker.abandon),
            DURABLE_CHECK: JobRoute(self.durable_calls.handle, self.durable_calls.abandon),
        }
        if self.notifier is not None:
            routes[WEBHOOK_JOB] = JobRoute(self.notifier.handle, self.notifier.abandon)
        self.jobs = JobRouter(routes)
        skills = agent.skills
        self.service = TaskService(
            self.journal,
            queue,
            self.settings,
            notifier=self.notifier,
            input_modes=_modes(agent.input_modes, (s.input_modes for s in skills)),
            output_modes=_modes(agent.output_modes, (s.output_modes for s in skills)),
            extensions=agent.extensions,
            skill_gate=SkillGate([*agent.skills, *agent.extended_skills], self._security),
            direct=_direct_hook(agent, self.settings),
            links=links,
        )
        # A queue consumed in this process (in-process, SQLite, one given without a handler)
        # runs its jobs through the router from now on; a cloud queue's consumer is elsewhere.
        self.queue.start(self.jobs)

    @property
    def security(self) -> Security:
        """Who may call: the Security given, or made from the A2A_AUTH_* settings (the
        anonymous one when none is set, made on this first read)."""
        if self._security is None:
            from .auth import Security

            self._security = Security.anonymous()
        return self._security

    def agent_url(self) -> str | None:
        """The agent's own URL: A2A_PUBLIC_URL and the prefix it is served under (None without a
        public URL). Its JWKS is under it, and its push notifications name it as their issuer."""
        return agent_url(self.settings.public_url, self.public_prefix)

    async def start(self) -> None:
        """Begin background work where the queue has some (taking over a durable queue's jobs
        left by a stopped process), now that a loop runs. Entry points with a lifespan call it
        at start-up."""
        self.queue.start(self.jobs)

    async def aclose(self) -> None:
        await self.queue.aclose()
        await self.store.close()


def _runs_jobs_here(queue: Queue) -> bool:
    """Whether `queue` runs each job in this process, which queued it, at once."""
    return isinstance(queue, RunsJobsWhereQueued) and queue.runs_jobs_where_queued


def _dev_hooks(settings: Settings) -> list[CommitHook]:
    """In dev mode, a warning for each task that outgrows what a cloud store keeps inline
    (devlimits.py): its limits are met on a laptop, not first in production."""
    if not settings.dev_mode:
        return []
    from .devlimits import CloudLimitWarnings

    return [CloudLimitWarnings().on_commit]


def _direct_hook(agent: Agent, settings: Settings) -> DirectHook | None:
    if agent.direct is None:
        return None
    from .direct import DirectHook

    return DirectHook(
        agent.direct, timeout_s=settings.direct_timeout_s, required=agent.executor is None
    )


def _modes(default: list[str], per_skill: Iterable[list[str] | None]) -> list[str]:
    """What the agent accepts (or produces): its default modes plus every skill's."""
    modes = list(default)
    for skill_modes in per_skill:
        modes.extend(m for m in skill_modes or () if m not in modes)
    return modes


def _push_keys(settings: Settings) -> KeyRing | None:
    """The signing keys of push notifications, None when push is off (said in a warning). Keys
    configured without the `crypto` extra raise `MissingExtra`: a deployment meant to push must
    not start without."""
    if not settings.push_signing_keys:
        # Decided before importing the push package (JWT, crypto, httpx): a deployment without
        # keys does not pay for them on its cold start.
        if not settings.dev_mode:
            log.warning(
                "push notifications are off: push notifications need signing keys outside dev "
                "mode: set A2A_PUSH_SIGNING_KEYS to the output of `a2a-serverless keys generate`"
            )
            return None
        from .extras import crypto_available  # importlib.util: only in dev mode, here

        if not crypto_available():
            log.warning(
                "push notifications are off: dev mode signs them with an ephemeral key, which "
                "needs the 'crypto' extra: pip install 'a2a-serverless[crypto]'"
            )
            return None
    from .push import PushNotConfigured, PushNotifier

    try:
        return PushNotifier.preflight(settings)
    except PushNotConfigured as exc:
        log.warning("push notifications are off: %s", exc)
        return None
