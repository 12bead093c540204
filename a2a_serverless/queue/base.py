"""The Queue protocol: how work leaves a request before its response returns.

A serverless function is frozen (or killed) once it has answered, so anything still to do after
the response — running the agent, delivering a webhook — is put on a Queue as a Job and done by a
worker invocation (an SQS- or Pub/Sub-triggered function, or the in-process worker of the dev
server). Queues deliver at least once; job handlers are written to be safe when a job arrives
twice.

A Job is typed by its kind (msgspec Structs, tagged by `kind`): `RunAgentJob` carries the turn
to run (`RunTurn`), `WebhookJob` the notification to deliver (`Notification`), `DurableCheckJob`
a suspended turn's check (`DurableCheck`: poll its calls, wake its sleeps). `encode_job` and
`decode_job` are the one JSON form of a job on every queue (the in-process queue's SQLite table,
SQS, Pub/Sub, Cloud Tasks). That form is the one earlier versions wrote and read, member for
member, so a deploy may swap the code while a queue still holds jobs of the other version, in
either direction: the wire names stay (`taskId`, a turn's `step`, W3C `traceparent` /
`tracestate`), as does reading a job of a kind this code does not run (`OtherJob`, which the job
router then refuses like any failing job, so a newer version's job is retried, not dropped).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, Self, runtime_checkable

import msgspec
from msgspec import Struct, field

from ..codec import ENCODER
from ..exceptions import FormatError
from ..ids import random_hex
from ..tracecontext import TraceContext, parse_traceparent

# The job kinds the kit queues: a task's turn for the worker, a push notification to deliver.
RUN_AGENT = "run-agent"
WEBHOOK_JOB = "deliver-webhook"
DURABLE_CHECK = "durable-check"


class Job(Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What every job carries; its kind's subclass adds the typed `payload`."""

    task_id: str = field(name="taskId")
    # Stable across redeliveries, so handlers and receivers can de-duplicate.
    id: str = field(default_factory=random_hex)
    # 1 on the first delivery; each planned retry sends a copy with the next (`next_attempt`).
    attempt: int = 1
    # The trace the job belongs to (the request's, or the span that queued it), as W3C strings:
    # its consumer continues it (tracing.py). Read through `trace`, which ignores an invalid
    # one: typed loosely so that a job carrying one (not a string, even) still decodes.
    traceparent: Any = None
    tracestate: Any = None

    @property
    def kind(self) -> str:
        """The job's kind (its `kind` member on the wire, the subclass's tag)."""
        tag = self.__struct_config__.tag
        assert isinstance(tag, str), f"{type(self).__name__} is not a job kind"
        return tag

    @property
    def trace(self) -> TraceContext | None:
        """The trace context carried; None without one, or for one that is not valid."""
        if not isinstance(self.traceparent, str):
            return None
        state = self.tracestate if isinstance(self.tracestate, str) else None
        return parse_traceparent(self.traceparent, state)

    def with_trace(self, trace: TraceContext | None) -> Self:
        """This job carrying `trace` (as queued in another span)."""
        if trace is None:
            return msgspec.structs.replace(self, traceparent=None, tracestate=None)
        return msgspec.structs.replace(
            self, traceparent=trace.traceparent(), tracestate=trace.tracestate or None
        )

    def next_attempt(self) -> Self:
        """The copy a queue sends for a planned retry: the same job, its next attempt."""
        return msgspec.structs.replace(self, attempt=self.attempt + 1)


class RunTurn(Struct, frozen=True):
    """What a `run-agent` job runs: the turn of its task that the message `turn` started (the
    messageId the task record's `step` names; `step` on the wire, as earlier versions wrote)."""

    turn: str = field(name="step")


class RunAgentJob(Job, frozen=True, tag=RUN_AGENT, tag_field="kind"):
    """Run a turn of the task (worker.py)."""

    payload: RunTurn


class Notification(Struct, frozen=True, rename="camel"):
    """What a `deliver-webhook` job delivers: the notification of event `seq` to one push
    config (push/outbox.py queues it, push/notifier.py delivers it)."""

    # Stable for (task, config, seq) (push/payload.py `notification_id`).
    notification_id: str
    config_id: str
    seq: int
    # The Task as the write that queued it left it (its JSON), or None when it was too large
    # to queue: the task is then read when the notification is sent.
    task: dict[str, Any] | None
    # When the notification was first queued (epoch ms): its delivery deadline counts from it.
    # Absent (None) in jobs of versions that did not carry it: counted from the delivery.
    first_attempt_at: int | None = None


class WebhookJob(Job, frozen=True, tag=WEBHOOK_JOB, tag_field="kind"):
    """Deliver one push notification (push/notifier.py)."""

    payload: Notification


class RemoteTaskRef(Struct, frozen=True, rename="camel"):
    """A remote task a durable call made: the call's position in its turn, the remote agent's
    URL and its task id."""

    position: int
    remote: str
    task_id: str


class DurableCheck(Struct, frozen=True, rename="camel", omit_defaults=True):
    """What a `durable-check` job checks: the suspended turn `turn` (as suspended the
    `generation`-th time; a check of an earlier suspension is stale), not before `due_at_ms`
    (a longer delay than a queue holds is chained), polling its calls; the next poll waits
    twice `poll_s` (durable/resume.py). With `cancel`: the turn is over, and these are the
    remote tasks it left behind, to cancel (named here, as the turn's end found them: a next
    turn may replace the record before the check runs)."""

    turn: str
    generation: int
    due_at_ms: int
    poll_s: float
    cancel: tuple[RemoteTaskRef, ...] = ()


class DurableCheckJob(Job, frozen=True, tag=DURABLE_CHECK, tag_field="kind"):
    """Check a suspended turn: resume it if what it waits for has happened (durable/)."""

    payload: DurableCheck


class OtherJob(Job, frozen=True):
    """A job of a kind this code does not run (queued by a newer version, or by a test): kept
    as it came, its payload not read, so its queue treats it as a failing job (the job router
    refuses it) and it is retried, then abandoned, rather than dropped as unreadable."""

    kind: str  # a member here; the tag (a class's) of the known kinds
    payload: dict[str, Any] = {}


KnownJob = RunAgentJob | WebhookJob | DurableCheckJob
_KNOWN_KINDS = frozenset({RUN_AGENT, WEBHOOK_JOB, DURABLE_CHECK})


@functools.cache
def _known_jobs() -> msgspec.json.Decoder[KnownJob]:
    # Built on first use: an in-process queue decodes no job, so a cold start does not pay.
    return msgspec.json.Decoder(KnownJob)


@functools.cache
def _other_jobs() -> msgspec.json.Decoder[OtherJob]:
    return msgspec.json.Decoder(OtherJob)


class JobFormatError(FormatError):
    """A queue's message is not a job (not JSON, no id, task or kind, or a known kind whose
    payload does not fit it). Retrying cannot make it one."""


def encode_job(job: Job) -> bytes:
    """The JSON of `job` as every queue carries it (compact UTF-8)."""
    try:
        return ENCODER.encode(job)
    except UnicodeEncodeError:
        # A string UTF-8 cannot hold (a lone surrogate an agent put in a task a notification
        # carries): the standard library's encoder escapes it, as earlier versions did.
        return json.dumps(msgspec.to_builtins(job), separators=(",", ":")).encode()


def decode_job(data: bytes | str) -> Job:
    """The job in a queue's message (`encode_job`'s JSON, or an earlier version's: the same
    members). JobFormatError if it is none."""
    try:
        return _known_jobs().decode(data)
    except msgspec.ValidationError as exc:
        problem = str(exc)
    except msgspec.DecodeError:
        return _decode_escaped(data)
    try:
        return _other(_other_jobs().decode(data), problem)
    except msgspec.ValidationError:
        raise JobFormatError(f"the message is not a job: {problem}") from None
    except msgspec.DecodeError:
        return _decode_escaped(data)


def _decode_escaped(data: bytes | str) -> Job:
    """Not JSON as msgspec reads it; JSON all the same if its only flaw is an escaped lone
    surrogate (`encode_job`'s fallback, or an earlier version's job): read as the standard
    library reads it. Rare, and slower."""
    try:
        value = json.loads(data)
    except ValueError:
        raise JobFormatError("the message is not JSON") from None
    try:
        job: Job = msgspec.convert(value, KnownJob)
        return job
    except msgspec.ValidationError as exc:
        problem = str(exc)
    try:
        return _other(msgspec.convert(value, OtherJob), problem)
    except msgspec.ValidationError:
        raise JobFormatError(f"the message is not a job: {problem}") from None


def _other(job: OtherJob, problem: str) -> OtherJob:
    if job.kind in _KNOWN_KINDS:
        raise JobFormatError(f"the {job.kind} job does not fit its kind: {problem}")
    return job


JobHandler = Callable[[Job], Awaitable[None]]


class RetryJob(Exception):
    """Raised by a handler: deliver this job again after `delay_s` (e.g. a webhook back-off)."""

    def __init__(self, reason: str, delay_s: float = 0.0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.delay_s = delay_s


class JobConsumer(Protocol):
    """What a queue consumed in this process hands its jobs to: the Runtime's job router
    (queue/router.py)."""

    async def handle(self, job: Job) -> None: ...

    async def abandon(self, job: Job, reason: str) -> None: ...


@runtime_checkable
class Queue(Protocol):
    @property
    def supports_delay(self) -> bool:
        """Whether a job enqueued with `delay_s` really waits that long before a worker gets it.
        A queue that cannot delay (Pub/Sub) only approximates it: its consumer nacks an early
        delivery and its back-off brings the job back, a delivery attempt spent each time. The
        job-delivery policy (queue/disposition.py) re-enqueues a planned retry only where
        this is True."""
        ...

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        """Hand `job` to a worker; it runs at least once, not before `delay_s` seconds."""
        ...

    def start(self, jobs: JobConsumer) -> None:
        """Consume here: the jobs this queue delivers in this process run through `jobs` (the
        Runtime's job router), and background work it has begins (the SQLite queue's takeover of
        jobs left by a stopped process). The Runtime calls it when it is built, and again from
        its `start()` (entry points with a lifespan, in the running loop); it is idempotent, and
        a queue made with its consumer keeps that one. A queue whose consumer is a function of
        its own (SQS, Pub/Sub, Cloud Tasks: the worker entry points call `Runtime.jobs`) has
        nothing to do."""
        ...

    async def aclose(self) -> None: ...


@runtime_checkable
class RunsJobsWhereQueued(Protocol):
    """What a queue may offer besides `Queue`: whether each job it delivers runs in the process
    that queued it, its first delivery at once (the in-process queue; not the SQLite queue,
    whose jobs another process on the file may run). The Runtime then hands each turn's worker
    the record its turn began with (handoff.py), which saves the claim a read."""

    @property
    def runs_jobs_where_queued(self) -> bool: ...
