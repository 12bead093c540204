"""The worker entry point: an SQS-triggered Lambda function that runs the queue's jobs.

    # worker.py, the function's handler "worker.handler"
    from a2a_serverless_aws import make_worker_handler
    from my_agent import agent
    handler = make_worker_handler(agent)

Configure the event source mapping with `ReportBatchItemFailures`: the handler answers
`{"batchItemFailures": [...]}` (powertools' batch processing), so only the records that failed
come back. The records of a batch run concurrently on the container's event loop. Each record is
one Job (`decode_job(body)`) run by the runtime's job router (`Runtime.jobs`) under the core's
queue-delivery policy (`a2a_serverless.queue.disposition`), whose disposition maps onto SQS:

- done: the record succeeded and SQS deletes the message;
- a planned retry (the job raised `RetryJob(reason, delay_s)`: a webhook back-off, or a turn
  another worker holds a lease on): a copy of the job is sent again with that delay and the
  record succeeds. Sending a copy, rather than stretching this message's visibility timeout and
  failing it, keeps ApproximateReceiveCount meaning "deliveries that failed": planned retries
  never push a job towards the dead-letter queue, and a delay is not bounded by the 12-hour
  visibility limit. A turn is bounded all the same: the worker fails it after
  A2A_WORKER_MAX_ATTEMPTS starts;
- a failure: the record fails, SQS redelivers it after the visibility timeout. On the delivery
  where ApproximateReceiveCount reaches A2A_SQS_MAX_RECEIVE_COUNT (the redrive policy's
  maxReceiveCount) the job is abandoned first (`Runtime.jobs.abandon(job, reason)`: the task
  fails with that reason, or the notification is dead-lettered), then the record still fails, so
  SQS moves the message to the dead-letter queue for an operator to see. `abandon` is
  idempotent, and a later redelivery of a job whose task already ended is simply dropped. A
  store that cannot be reached is never abandoned for (that would need the store): its job goes
  to the dead-letter queue, whose consumer abandons it once the store answers.

Duplicate deliveries are safe: the core's worker claims each turn once (a second copy finds it
done, or running under a lease and comes back later). A job with a `notBefore` attribute (a
delay past SQS's 900 s cap) that arrives early is sent on for the rest of its delay.

A job can also reach the dead-letter queue without that last call: a worker that crashes or
times out on every delivery never gets to make it. So the dead-letter queue gets a consumer
too, `make_dead_letter_handler(agent)` (the same code, triggered by the dead-letter queue):
for each message it logs the job at ERROR level and abandons it — the task fails with a
reason instead of staying `working` — and the record succeeds, so SQS deletes the message
(the log line keeps it). Abandoning a job whose task already ended changes nothing.

Timing (see config.py): the agent's time budget defaults to A2A_LAMBDA_TIMEOUT_S minus the margin,
and each invocation checks its real deadline against the budget and A2A_WORKER_LEASE_S. If the
function's timeout does not fit, no job runs: the error is logged and every record fails with a
`ConfigurationError` (so, on their last delivery, their tasks fail with a reason).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.batch import AsyncBatchProcessor, EventType

from a2a_serverless import tracing
from a2a_serverless.agent import Agent
from a2a_serverless.collector import paused_during_init
from a2a_serverless.config import Settings
from a2a_serverless.observability import Observer
from a2a_serverless.queue.base import Job, JobHandler, decode_job
from a2a_serverless.queue.disposition import Abandon, Done, RetryAfter, abandon_reason, deliver

from .config import (
    AwsSettings,
    ConfigurationError,
    invocation_seconds,
    visibility_below_recommendation,
    worker_time_budget,
)
from .container import Container, service_name
from .logs import configure_logging, with_lambda_context
from .metrics import MetricsObserver
from .sqs import MESSAGING_SYSTEM, not_before_ms, queue_name

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
    from starlette.applications import Starlette

log = logging.getLogger("a2a_serverless_aws.worker")


class WorkerHandler:
    """A Lambda handler `(sqs_event, context) -> {"batchItemFailures": [...]}` running jobs."""

    @paused_during_init
    def __init__(
        self,
        agent: Agent,
        settings: Settings | None = None,
        aws: AwsSettings | None = None,
        *,
        observers: Sequence[Observer] = (),
        dead_letters: bool = False,
        **runtime_options: Any,
    ) -> None:
        # True: this handler consumes the dead-letter queue (abandon every job, run none).
        self.dead_letters = dead_letters
        self.aws = aws if aws is not None else AwsSettings.from_env()
        self.settings = settings if settings is not None else Settings.from_env()
        self.time_budget_s = worker_time_budget(self.settings, self.aws, agent.time_budget_s)
        if self.time_budget_s != agent.time_budget_s:
            agent = dataclasses.replace(agent, time_budget_s=self.time_budget_s)
        service = service_name(agent)
        self.logger = configure_logging(service)
        if visibility_below_recommendation(self.aws):
            log.warning(
                "A2A_SQS_VISIBILITY_TIMEOUT_S=%g is under AWS's recommendation of 6x the "
                "function's timeout (%g s)",
                self.aws.sqs_visibility_timeout_s,
                self.aws.lambda_timeout_s,
            )
        self.metrics = MetricsObserver(service)
        self.container = Container(
            agent,
            self.settings,
            self.aws,
            observers=[self.metrics, *observers],
            **runtime_options,
        )
        self.runtime = self.container.runtime
        self.queue = self.container.queue
        entry = with_lambda_context(self.logger, self.lambda_handler)
        if self.aws.tracing:
            from .tracing import traced

            entry = traced(entry, service)
        self._entry = entry
        self._timeout_mismatch_logged = False

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        response: dict[str, Any] = self._entry(event, context)
        return response

    def lambda_handler(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """One invocation, inside the Logger's (and Tracer's) wrapping that `__call__` adds."""
        problem = self.deadline_problem(context)
        if problem is not None:
            log.error("%s", problem)
        try:
            records = event.get("Records") or []
            return self.container.run(self._process(records, context, problem))
        finally:
            self.metrics.flush()
            # Spans are exported before Lambda freezes the process (with spans on).
            tracing.flush()

    async def _process(
        self, records: list[dict[str, Any]], context: Any, problem: str | None
    ) -> dict[str, Any]:
        async def handle(record: SQSRecord) -> None:
            await self.handle_record(record, problem=problem)

        processor = ConcurrentBatchProcessor()
        with processor(records=records, handler=handle, lambda_context=context):
            await processor.process_concurrently()
        return dict(processor.response())

    async def handle_record(self, record: SQSRecord, *, problem: str | None = None) -> None:
        """One SQS record: returns if it is done with (delete it), raises if it failed.

        With a `problem` (the invocation cannot run a job safely, see `deadline_problem`) the
        job is not run: the record fails, and is abandoned on its last delivery like any other
        failing job, so its task ends with a reason instead of waiting forever.
        """
        try:
            job = decode_job(record.body)
        except ValueError:
            # Not a job: nothing to abandon. Failing it sends it to the dead-letter queue.
            log.error(
                "SQS message %s is not a job; it will go to the dead-letter queue",
                record.message_id,
            )
            raise
        attributes = record.raw_event.get("attributes") or {}
        receive_count = int(attributes.get("ApproximateReceiveCount", 1))
        # The turn (or delivery) continues the trace the job was queued in (tracing.py).
        with tracing.consuming(
            job,
            MESSAGING_SYSTEM,
            queue_name(record.raw_event.get("eventSourceARN") or ""),
            message_id=record.message_id,
            delivery_attempt=receive_count,
        ):
            await self._handle_job(job, record, receive_count, problem)

    async def _handle_job(
        self, job: Job, record: SQSRecord, receive_count: int, problem: str | None
    ) -> None:
        if self.dead_letters:
            log.error(
                "job %s (%s) of task %s reached the dead-letter queue: %s",
                job.id,
                job.kind,
                job.task_id,
                record.body,
            )
            await self._abandon(job, abandon_reason(None))
            return
        due = not_before_ms(record.raw_event.get("messageAttributes") or {})
        now = _now_ms()
        if due is not None and due > now:
            # Longer than SQS's 900 s cap: the message arrived early, send it on.
            await self._send_again(job, (due - now) / 1000)
            return
        handler = self.runtime.jobs.handle if problem is None else _refusing(problem)
        last = receive_count >= self.aws.sqs_max_receive_count
        disposition = await deliver(handler, job, delivery=receive_count, last_attempt=last)
        match disposition:
            case Done():
                return
            case RetryAfter(planned=True):
                log.info(
                    "job %s (%s) comes again in %.3g s: %s",
                    job.id,
                    job.kind,
                    disposition.delay_s,
                    disposition.reason,
                )
                await self._send_again(job.next_attempt(), disposition.delay_s)
            case RetryAfter():
                # The record fails: SQS delivers it again after the visibility timeout (and,
                # after the last receive, moves it to the dead-letter queue, whose consumer
                # abandons it once the store is back).
                assert disposition.error is not None
                raise disposition.error
            case Abandon():
                await self._abandon(job, disposition.reason)
                # Still failed, so SQS moves the message to the dead-letter queue.
                raise disposition.error

    async def _send_again(self, job: Job, delay_s: float) -> None:
        try:
            await self.queue.enqueue(job, delay_s=delay_s)
        except Exception:
            # The record then fails and SQS redelivers this message: nothing is lost.
            log.exception("could not send job %s (%s) again", job.id, job.kind)
            raise

    async def _abandon(self, job: Job, reason: str) -> None:
        try:
            await self.runtime.jobs.abandon(job, reason)
        except Exception:
            log.exception("could not abandon job %s of task %s", job.id, job.task_id)

    def deadline_problem(self, context: Any) -> str | None:
        """Why this invocation's deadline does not fit the turn's clocks, if it does not."""
        seconds = invocation_seconds(context.get_remaining_time_in_millis())
        lease = self.settings.worker_lease_s
        margin = self.aws.lambda_timeout_margin_s
        if seconds >= lease:
            return (
                f"this invocation may run {seconds:g} s, at least A2A_WORKER_LEASE_S={lease:g}: "
                "lower the function's timeout or raise the lease, or a second delivery of a job "
                "could take over a turn that is still running; no job is run"
            )
        if self.time_budget_s is not None and self.time_budget_s + margin > seconds:
            return (
                f"this invocation may run {seconds:g} s, less than the agent's time budget "
                f"{self.time_budget_s:g} s plus the margin of {margin:g} s: raise the function's "
                "timeout (and A2A_LAMBDA_TIMEOUT_S) or lower the budget; no job is run"
            )
        configured = self.aws.lambda_timeout_s
        if (
            configured is not None
            and seconds > configured + 1
            and not self._timeout_mismatch_logged
        ):
            self._timeout_mismatch_logged = True
            log.warning(
                "A2A_LAMBDA_TIMEOUT_S=%g but this invocation may run %g s: keep them equal",
                configured,
                seconds,
            )
        return None

    def close(self) -> None:
        """Close the runtime and the loop (tests; in Lambda the process just ends)."""
        self.container.close()


class ConcurrentBatchProcessor(AsyncBatchProcessor):
    """powertools' AsyncBatchProcessor for SQS, run on the container's loop.

    Its own `async_process()` picks a loop by itself (`asyncio.run` outside Lambda, which closes
    the loop), so the records are awaited here instead, on the loop the runtime's clients live
    on. A batch where every record failed is reported like any other (every record listed)
    rather than raised: for SQS the outcome is the same, without an invocation error.
    """

    def __init__(self) -> None:
        super().__init__(EventType.SQS, raise_on_entire_batch_failure=False)

    async def process_concurrently(self) -> None:
        await asyncio.gather(*(self._async_process_record(r) for r in self.records))


def make_worker_handler(
    agent: Agent,
    settings: Settings | None = None,
    aws: AwsSettings | None = None,
    *,
    app: Starlette | str | None = None,
    **runtime_options: Any,
) -> WorkerHandler:
    """The SQS-triggered Lambda handler running `agent`'s turns and the webhook deliveries.

    Settings default to the `A2A_*` environment variables; `runtime_options` go to `Runtime`
    (e.g. `store=`, `observers=`). `app`: the FastAPI (or Starlette) app the HTTP function
    serves the agent in, or its "package.module:attribute" (imported when the first durable
    call names its callback): the worker sends the calls, whose callbacks are under the
    mount's prefix (mountprefix.py).
    """
    if app is not None:
        from a2a_serverless.mountprefix import mount_prefix

        runtime_options["public_prefix"] = mount_prefix(app, agent)
    return WorkerHandler(agent, settings, aws, **runtime_options)


def make_dead_letter_handler(
    agent: Agent,
    settings: Settings | None = None,
    aws: AwsSettings | None = None,
    **runtime_options: Any,
) -> WorkerHandler:
    """The handler of a Lambda triggered by the dead-letter queue: abandons every job in it
    (its task fails with a reason), so a job whose worker died on every delivery does not leave
    its task `working` forever. Same settings as the worker."""
    return WorkerHandler(agent, settings, aws, dead_letters=True, **runtime_options)


def _refusing(problem: str) -> JobHandler:
    """The handler of an invocation that must run no job: each fails with `problem`."""

    async def refuse(job: Job) -> None:
        raise ConfigurationError(problem)

    return refuse


def _now_ms() -> int:
    return int(time.time() * 1000)
