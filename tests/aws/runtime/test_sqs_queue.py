"""`SqsQueue` against a real (moto) SQS server: bodies, attributes, delays, routing."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from a2a_serverless.queue.base import (
    RUN_AGENT,
    WEBHOOK_JOB,
    Notification,
    Queue,
    RunAgentJob,
    RunTurn,
    WebhookJob,
    decode_job,
)
from a2a_serverless_aws.sqs import (
    MAX_DELAY_S,
    QueueConfigurationError,
    SqsQueue,
    message_body,
    not_before_ms,
    region_of,
    send_message_request,
    sqs_client,
)
from tests.aws.runtime.conftest import Queues

pytestmark = pytest.mark.aws


class RecordingClient:
    """The real client, remembering each SendMessage request it makes."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.sent: list[dict[str, Any]] = []

    def send_message(self, **request: Any) -> Any:
        self.sent.append(request)
        return self.client.send_message(**request)


def receive_all(sqs: Any, url: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = sqs.receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=10,
        MessageAttributeNames=["All"],
        AttributeNames=["All"],
        WaitTimeSeconds=1,
    ).get("Messages", [])
    return messages


def delayed_count(sqs: Any, url: str) -> int:
    attributes = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessagesDelayed"]
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessagesDelayed"])


async def test_a_body_sqs_refuses_characters_of_is_sent_escaped(
    sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    """The JSON is UTF-8 (the previous version's was ASCII): the two characters SQS refuses
    that UTF-8 JSON may hold raw go as escapes, and the job arrives whole."""
    queues = make_queues()
    task = {"kind": "task", "id": "t", "text": "é \ufffe \uffff 😀"}
    job = WebhookJob(task_id="t", payload=Notification("n", "c", 1, task))
    body = message_body(job)
    assert "\ufffe" not in body and "\uffff" not in body and "é" in body
    await SqsQueue(queues.url, client=sqs).enqueue(job)
    (message,) = receive_all(sqs, queues.url)
    assert decode_job(message["Body"]) == job


async def test_a_job_is_one_message_with_its_kind_task_and_id(
    sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    queue = SqsQueue(queues.url, client=sqs)
    assert isinstance(queue, Queue)
    job = RunAgentJob(task_id="task-1", payload=RunTurn("m-1"), attempt=2)
    await queue.enqueue(job)

    (message,) = receive_all(sqs, queues.url)
    assert decode_job(message["Body"]) == job
    attributes = {k: v["StringValue"] for k, v in message["MessageAttributes"].items()}
    assert attributes == {"kind": RUN_AGENT, "taskId": "task-1", "jobId": job.id}


async def test_a_delay_becomes_whole_delay_seconds(
    sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    client = RecordingClient(sqs)
    queue = SqsQueue(queues.url, client=client)
    await queue.enqueue(RunAgentJob(task_id="t", payload=RunTurn("s")), delay_s=60.2)
    assert client.sent[0]["DelaySeconds"] == 61, "rounded up: never early"
    assert "notBefore" not in client.sent[0]["MessageAttributes"]
    assert receive_all(sqs, queues.url) == []
    assert delayed_count(sqs, queues.url) == 1


async def test_a_delay_past_900_s_is_capped_and_carries_not_before(
    sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    queues = make_queues()
    client = RecordingClient(sqs)
    queue = SqsQueue(queues.url, client=client)
    before = int(time.time() * 1000)
    await queue.enqueue(
        WebhookJob(task_id="t", payload=Notification("n", "c", 1, None)), delay_s=3600
    )
    after = int(time.time() * 1000)

    (request,) = client.sent
    assert request["DelaySeconds"] == MAX_DELAY_S
    not_before = not_before_ms(request["MessageAttributes"])
    assert not_before is not None
    assert before + 3_600_000 <= not_before <= after + 3_600_000
    assert request["MessageAttributes"]["notBefore"]["DataType"] == "Number"
    # SQS took it (delayed, so nothing can be received yet).
    assert delayed_count(sqs, queues.url) == 1


async def test_webhook_jobs_can_have_a_queue_of_their_own(
    sqs: Any, make_queues: Callable[..., Queues]
) -> None:
    jobs, hooks = make_queues(), make_queues()
    queue = SqsQueue(jobs.url, webhook_queue_url=hooks.url, client=sqs)
    await queue.enqueue(RunAgentJob(task_id="t", payload=RunTurn("s")))
    await queue.enqueue(WebhookJob(task_id="t", payload=Notification("n", "c", 3, None)))
    (turn,) = receive_all(sqs, jobs.url)
    (hook,) = receive_all(sqs, hooks.url)
    assert json.loads(turn["Body"])["kind"] == RUN_AGENT
    assert json.loads(hook["Body"])["kind"] == WEBHOOK_JOB


def test_fifo_queues_are_refused() -> None:
    with pytest.raises(QueueConfigurationError, match="FIFO"):
        SqsQueue("https://sqs.us-east-1.amazonaws.com/123456789012/jobs.fifo")


def test_the_region_comes_from_the_queue_url() -> None:
    assert region_of("https://sqs.eu-west-1.amazonaws.com/123456789012/jobs") == "eu-west-1"
    assert region_of("https://ap-south-1.queue.amazonaws.com/123456789012/jobs") == "ap-south-1"
    assert region_of("http://127.0.0.1:5000/123456789012/jobs") is None


def test_one_client_per_process_and_region() -> None:
    assert sqs_client("eu-west-3") is sqs_client("eu-west-3")
    assert sqs_client("eu-west-3") is not sqs_client("eu-north-1")


def test_the_request_has_no_delay_when_none_is_asked() -> None:
    job = RunAgentJob(task_id="t", payload=RunTurn("s"))
    request = send_message_request("https://q", job, 0.0, now_ms=1_000)
    assert "DelaySeconds" not in request
    assert send_message_request("https://q", job, 0.01, now_ms=1_000)["DelaySeconds"] == 1
    assert not_before_ms({}) is None
