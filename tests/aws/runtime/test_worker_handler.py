"""The worker handler in-process, on a real (moto) queue and DynamoDB Local: what it does with
each record — retries as new messages, early arrivals sent on, abandonment on the last
delivery, duplicates — and the timing checks it makes."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.config import Settings
from a2a_serverless.models import TaskStatusUpdateEvent
from a2a_serverless.queue.base import (
    RUN_AGENT,
    WEBHOOK_JOB,
    Notification,
    OtherJob,
    WebhookJob,
    decode_job,
    encode_job,
)
from a2a_serverless.store import open_store
from a2a_serverless_aws import (
    AwsSettings,
    ConfigurationError,
    SqsQueue,
    make_dead_letter_handler,
    make_worker_handler,
)
from a2a_serverless_aws.sqs import not_before_ms
from tests.aws.runtime.conftest import Queues
from tests.aws.runtime.events import SqsTrigger, http_api_event, response_json
from tests.aws.runtime.functions import ClaimRefusingStore, subject
from tests.aws.runtime.inprocess import FakeContext, Handlers, handlers_in_thread
from tests.integration.jsonrpc_agents import user_message
from tests.push.webhook_server import Received, Reply, WebhookServer
from tests.unit.test_job_wire import PREVIOUS

pytestmark = pytest.mark.aws


@pytest.fixture(autouse=True)
def _runs(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_RUNS_DIR", str(runs_dir))


def record(
    body: str,
    *,
    receive_count: int = 1,
    attributes: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One SQS record as Lambda delivers it."""
    return {
        "messageId": str(uuid.uuid4()),
        "receiptHandle": uuid.uuid4().hex,
        "body": body,
        "attributes": {
            "ApproximateReceiveCount": str(receive_count),
            "SentTimestamp": str(int(time.time() * 1000)),
        },
        "messageAttributes": attributes or {},
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:jobs",
        "awsRegion": "us-east-1",
    }


async def send(h: Handlers, text: str, **configuration: Any) -> str:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": user_message(text),
            "configuration": {"blocking": False, **configuration},
        },
    }
    response = await asyncio.to_thread(h.call_http, http_api_event("POST", "/", body))
    task_id: str = response_json(response)["result"]["id"]
    return task_id


def run_agent_body(h: Handlers, task_id: str) -> str:
    """The body of the run-agent job the HTTP handler sent for `task_id`."""
    for request in h.client.sent:
        job = decode_job(request["MessageBody"])
        if job.kind == RUN_AGENT and job.task_id == task_id:
            return str(request["MessageBody"])
    raise AssertionError(f"no run-agent job was sent for {task_id}")


async def states(store_url: str, task_id: str) -> list[str]:
    store = open_store(store_url)
    try:
        events = await store.read_events(task_id)
    finally:
        await store.close()
    return [
        e.payload.status.state.value for e in events if isinstance(e.payload, TaskStatusUpdateEvent)
    ]


async def test_a_webhook_back_off_is_sent_again_as_a_new_message(
    store_url: str,
    signing_keys: str,
    sqs: Any,
    make_queues: Callable[..., Queues],
) -> None:
    queues = make_queues()
    replies = iter([Reply(status=503), Reply(status=200)])

    def behaviour(_: Received) -> Reply:
        return next(replies)

    receiver = await WebhookServer(behaviour).start()
    try:
        async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
            task_id = await send(h, "hi", pushNotificationConfig={"url": receiver.url()})
            trigger = SqsTrigger(sqs, queues.url, h.call_worker)
            await asyncio.to_thread(
                trigger.run_until, lambda: len(receiver.notifications()) >= 2, timeout_s=60
            )
            first, second = receiver.notifications()
            assert first.notification_id == second.notification_id
            assert all(not poll.failed and not poll.error for poll in trigger.results)
            webhook_jobs = [
                decode_job(r["MessageBody"])
                for r in h.client.sent
                if r["MessageAttributes"]["kind"]["StringValue"] == WEBHOOK_JOB
            ]
            # The 503 made the worker send the job again (attempt 2) and report success: the
            # retry did not count as a failed delivery of the first message.
            assert [j.attempt for j in webhook_jobs] == [1, 2]
            assert webhook_jobs[0].id == webhook_jobs[1].id
            assert (await states(store_url, task_id))[-1] == "completed"
    finally:
        await receiver.stop()


async def test_a_job_arriving_before_not_before_is_sent_on_for_the_rest(
    store_url: str, signing_keys: str, sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        due = int(time.time() * 1000) + 3_600_000
        # A job that would fail if it ran now: it must not run.
        job = OtherJob(kind="no-such-kind", task_id="t-1")
        attributes = {"notBefore": {"stringValue": str(due), "dataType": "Number"}}
        event = {"Records": [record(encode_job(job).decode(), attributes=attributes)]}
        response = await asyncio.to_thread(h.call_worker, event)
        assert response == {"batchItemFailures": []}
        (sent,) = h.client.sent
        assert sent["DelaySeconds"] == 900
        assert not_before_ms(sent["MessageAttributes"]) == due
        assert decode_job(sent["MessageBody"]) == job


async def test_a_failing_job_is_abandoned_on_its_last_delivery_and_still_fails(
    store_url: str, signing_keys: str, sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    poison = {"store": ClaimRefusingStore(open_store(store_url))}
    async with handlers_in_thread(
        subject, store_url, signing_keys, queues.url, sqs, worker_options=poison
    ) as h:
        task_id = await send(h, "poison")
        body = run_agent_body(h, task_id)

        first = await asyncio.to_thread(h.call_worker, {"Records": [record(body)]})
        assert len(first["batchItemFailures"]) == 1
        assert await states(store_url, task_id) == ["submitted"], "not abandoned yet"

        last = record(body, receive_count=3)
        response = await asyncio.to_thread(h.call_worker, {"Records": [last]})
        # Still reported failed, so SQS moves the message to the dead-letter queue.
        assert response == {"batchItemFailures": [{"itemIdentifier": last["messageId"]}]}
        assert await states(store_url, task_id) == ["submitted", "failed"]

        # A later delivery (a redrive policy allowing more) finds the task ended: dropped.
        later = await asyncio.to_thread(h.call_worker, {"Records": [record(body, receive_count=4)]})
        assert later == {"batchItemFailures": []}
        assert await states(store_url, task_id) == ["submitted", "failed"], "abandoned once"


async def test_the_dead_letter_consumer_fails_tasks_whose_worker_died_every_time(
    store_url: str, signing_keys: str, sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    """A worker killed on every delivery never abandons its job; the DLQ's consumer does."""
    queues = make_queues()
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        task_id = await send(h, "hello")
        body = run_agent_body(h, task_id)

        def consume() -> dict[str, Any]:
            dead = make_dead_letter_handler(
                subject,
                h.worker.settings,
                AwsSettings(
                    sqs_queue_url=queues.url, lambda_timeout_s=4, lambda_timeout_margin_s=1
                ),
            )
            try:
                dead_letter = record(body, receive_count=3)
                first = dead({"Records": [dead_letter]}, FakeContext(remaining_ms=4_000))
                again = dead({"Records": [dead_letter]}, FakeContext(remaining_ms=4_000))
                return {"first": first, "again": again}
            finally:
                dead.close()

        responses = await asyncio.to_thread(consume)
        assert responses["first"] == {"batchItemFailures": []}, "consumed: SQS deletes it"
        assert responses["again"] == {"batchItemFailures": []}
        assert await states(store_url, task_id) == ["submitted", "failed"], "abandoned once"
        store = open_store(store_url)
        try:
            stored = await store.get_task(task_id)
        finally:
            await store.close()
        assert stored is not None and stored.task.status.message is not None
        reason = stored.task.status.message.parts[0].text  # type: ignore[union-attr]
        assert "moved to the dead-letter queue" in reason


async def test_a_body_that_is_not_a_job_fails_its_record(
    store_url: str, signing_keys: str, sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        bad, good = (
            record("not json"),
            record(
                encode_job(
                    WebhookJob(task_id="gone", payload=Notification("n", "c", 1, None))
                ).decode()
            ),
        )
        good["body"] = json.dumps(
            {
                "id": "j",
                "kind": RUN_AGENT,
                "taskId": "no-such-task",
                "payload": {"step": "s"},
            }
        )
        response = await asyncio.to_thread(h.call_worker, {"Records": [bad, good]})
        assert response == {"batchItemFailures": [{"itemIdentifier": bad["messageId"]}]}


async def test_the_jobs_the_previous_version_queued_are_run(
    store_url: str, signing_keys: str, sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    """A deploy swaps the code while SQS holds jobs of the previous version: each is read and
    handled (its task is gone here, so each is done with), none fails as not a job."""
    queues = make_queues()
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        records = [record(text) for text in PREVIOUS.values()]
        response = await asyncio.to_thread(h.call_worker, {"Records": records})
        assert response == {"batchItemFailures": []}


async def test_two_copies_of_a_job_in_one_batch_run_the_turn_once(
    store_url: str,
    signing_keys: str,
    sqs: Any,
    make_queues: Callable[..., Queues],
    runs_dir: Path,
) -> None:
    queues = make_queues()
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        task_id = await send(h, "copies")
        body = run_agent_body(h, task_id)
        response = await asyncio.to_thread(h.call_worker, {"Records": [record(body), record(body)]})
        assert response == {"batchItemFailures": []}
        # The copy that lost the claim was either dropped (turn done) or sent again for when
        # the lease ends; delivering that one finds the turn done.
        for request in h.client.sent:
            if request["MessageBody"] != body and RUN_AGENT in request["MessageBody"]:
                again = {"Records": [record(request["MessageBody"])]}
                assert await asyncio.to_thread(h.call_worker, again) == {"batchItemFailures": []}
        assert (runs_dir / task_id).read_text().count("run") == 1
        assert await states(store_url, task_id) == ["submitted", "working", "working", "completed"]


async def test_an_invocation_whose_timeout_does_not_fit_runs_no_job(
    store_url: str,
    signing_keys: str,
    sqs: Any,
    make_queues: Callable[..., Queues],
    runs_dir: Path,
) -> None:
    queues = make_queues()
    async with handlers_in_thread(subject, store_url, signing_keys, queues.url, sqs) as h:
        task_id = await send(h, "fits?")
        body = run_agent_body(h, task_id)
        # The worker's clocks: budget 3 s + margin 1 s <= timeout 4 s < lease 5 s.
        for remaining_ms in (6_000, 3_000):  # past the lease; short of budget + margin
            event = {"Records": [record(body)]}
            response = await asyncio.to_thread(h.call_worker, event, remaining_ms=remaining_ms)
            assert len(response["batchItemFailures"]) == 1
        assert not (runs_dir / task_id).exists(), "the agent never ran"
        # On the last delivery the task is abandoned like any failing job's.
        last = {"Records": [record(body, receive_count=3)]}
        await asyncio.to_thread(h.call_worker, last, remaining_ms=6_000)
        assert await states(store_url, task_id) == ["submitted", "failed"]
        # A fitting invocation works.
        assert await asyncio.to_thread(h.call_worker, {"Records": []}) == {"batchItemFailures": []}


def test_a_worker_needs_the_function_timeout_or_an_agent_budget(sqs: Any) -> None:
    queue = SqsQueue("http://127.0.0.1:1/123456789012/jobs", client=sqs)
    with pytest.raises(ConfigurationError, match="A2A_LAMBDA_TIMEOUT_S"):
        make_worker_handler(
            subject, Settings(store_url="memory://"), AwsSettings(sqs_queue_url="q"), queue=queue
        )


def test_a_context_is_what_powertools_reads() -> None:
    # FakeContext stands in for Lambda's context object in these tests: keep it honest.
    context = FakeContext()
    assert context.get_remaining_time_in_millis() == 10_000
    assert context.function_name and context.aws_request_id
