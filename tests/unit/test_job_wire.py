"""The JSON of a job on every queue (queue/base.py `encode_job` / `decode_job`), against the
exact shapes the previous version queued: a deploy swaps the code while SQS, Pub/Sub, Cloud
Tasks or the SQLite table still hold jobs of the other version, in either direction.

`PREVIOUS` below are byte for byte what `Job.to_json()` wrote before the jobs were typed (the
standard library's `json.dumps(..., separators=(",", ":"))` of id, kind, taskId, payload,
attempt, then traceparent / tracestate when the job carried a trace); `previous_reader` is that
version's `Job.from_json` and its handlers' reads of the payload, to show what it makes of a job
the new code queues.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from a2a_serverless.queue import (
    RUN_AGENT,
    WEBHOOK_JOB,
    JobFormatError,
    Notification,
    OtherJob,
    RunAgentJob,
    RunTurn,
    WebhookJob,
    decode_job,
    encode_job,
)
from a2a_serverless.tracecontext import TraceContext

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
TASK = {
    "kind": "task",
    "id": "t-1",
    "contextId": "c-1",
    "status": {"state": "completed", "timestamp": "2026-01-01T00:00:00Z"},
    "history": [
        {
            "kind": "message",
            "role": "user",
            "messageId": "m-1",
            "parts": [{"kind": "text", "text": "é"}],
        }
    ],
}

# What the previous version queued, one of each shape it made.
PREVIOUS = {
    "a turn": (
        '{"id":"5e1f0c9d8a7b6c5d4e3f2a1b0c9d8e7f","kind":"run-agent","taskId":"t-1",'
        '"payload":{"step":"m-1"},"attempt":1}'
    ),
    "a turn retried, in a trace": (
        '{"id":"5e1f0c9d8a7b6c5d4e3f2a1b0c9d8e7f","kind":"run-agent","taskId":"t-1",'
        '"payload":{"step":"m-1"},"attempt":3,'
        f'"traceparent":"{TRACEPARENT}","tracestate":"vendor=1"}}'
    ),
    "a notification carrying its task": (
        '{"id":"8b1c6a3e-0b9e-5f43-9a57-2f4a0a5d2c11","kind":"deliver-webhook","taskId":"t-1",'
        '"payload":{"notificationId":"8b1c6a3e-0b9e-5f43-9a57-2f4a0a5d2c11","configId":"cfg",'
        '"seq":4,"task":' + json.dumps(TASK, separators=(",", ":")) + ","
        '"firstAttemptAt":1767225600000},"attempt":2,'
        f'"traceparent":"{TRACEPARENT}"}}'
    ),
    "a notification whose task was too large to queue": (
        '{"id":"8b1c6a3e-0b9e-5f43-9a57-2f4a0a5d2c11","kind":"deliver-webhook","taskId":"t-1",'
        '"payload":{"notificationId":"8b1c6a3e-0b9e-5f43-9a57-2f4a0a5d2c11","configId":"cfg",'
        '"seq":4,"task":null,"firstAttemptAt":1767225600000},"attempt":1}'
    ),
}


def previous_reader(text: str | bytes) -> dict[str, Any]:
    """What the previous version read of a job: `Job.from_json`, then its handlers' reads."""
    data = json.loads(text)
    job = {
        "kind": data["kind"],
        "task_id": data["taskId"],
        "payload": data.get("payload") or {},
        "id": data["id"],
        "attempt": data.get("attempt", 1),
        "traceparent": data.get("traceparent"),
        "tracestate": data.get("tracestate"),
    }
    payload = job["payload"]
    if job["kind"] == RUN_AGENT:
        job["step"] = payload["step"]
    elif job["kind"] == WEBHOOK_JOB:
        job["configId"] = str(payload["configId"])
        job["seq"] = int(payload["seq"])
        job["notificationId"] = str(payload["notificationId"])
        job["firstAttemptAt"] = payload.get("firstAttemptAt")
        job["task"] = payload.get("task")
    return job


def test_a_queued_turn_of_the_previous_version_decodes() -> None:
    job = decode_job(PREVIOUS["a turn"])
    assert job == RunAgentJob(
        task_id="t-1", payload=RunTurn(turn="m-1"), id="5e1f0c9d8a7b6c5d4e3f2a1b0c9d8e7f"
    )
    assert job.kind == RUN_AGENT and job.attempt == 1 and job.trace is None


def test_a_retried_traced_turn_of_the_previous_version_decodes() -> None:
    job = decode_job(PREVIOUS["a turn retried, in a trace"].encode())
    assert isinstance(job, RunAgentJob)
    assert job.payload.turn == "m-1" and job.attempt == 3
    assert job.trace == TraceContext(
        "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1, "vendor=1"
    )


def test_a_queued_notification_of_the_previous_version_decodes() -> None:
    job = decode_job(PREVIOUS["a notification carrying its task"])
    assert isinstance(job, WebhookJob)
    assert job.id == "8b1c6a3e-0b9e-5f43-9a57-2f4a0a5d2c11" and job.attempt == 2
    assert job.payload == Notification(
        notification_id="8b1c6a3e-0b9e-5f43-9a57-2f4a0a5d2c11",
        config_id="cfg",
        seq=4,
        task=TASK,
        first_attempt_at=1767225600000,
    )
    assert job.trace is not None and job.trace.span_id == "b7ad6b7169203331"
    bare = decode_job(PREVIOUS["a notification whose task was too large to queue"])
    assert isinstance(bare, WebhookJob) and bare.payload.task is None


@pytest.mark.parametrize("shape", list(PREVIOUS))
def test_every_previous_shape_reads_the_same_in_both_versions(shape: str) -> None:
    """Decoded and queued again by the new code (a retry's copy), the previous version still
    reads every member it read before (a rollback, or an old instance still consuming)."""
    text = PREVIOUS[shape]
    again = encode_job(decode_job(text))
    assert previous_reader(again) == previous_reader(text)
    assert decode_job(again) == decode_job(text)


def test_the_previous_version_reads_what_the_new_one_queues() -> None:
    turn = RunAgentJob(task_id="t-1", payload=RunTurn("m-1"), id="j")
    assert previous_reader(encode_job(turn)) == {
        "kind": RUN_AGENT,
        "task_id": "t-1",
        "payload": {"step": "m-1"},
        "id": "j",
        "attempt": 1,
        "traceparent": None,
        "tracestate": None,
        "step": "m-1",
    }
    note = WebhookJob(
        task_id="t-1",
        id="n",
        payload=Notification("n", "cfg", 4, None, first_attempt_at=1767225600000),
    ).next_attempt()
    read = previous_reader(encode_job(note))
    assert (read["kind"], read["attempt"], read["seq"], read["configId"]) == (
        WEBHOOK_JOB,
        2,
        4,
        "cfg",
    )
    assert read["task"] is None and read["firstAttemptAt"] == 1767225600000


def test_a_job_of_a_kind_this_version_does_not_run_still_decodes() -> None:
    """A newer version's kind is read (and refused by the job router, so its queue retries it)
    rather than dropped as unreadable."""
    text = '{"id":"j","kind":"reindex","taskId":"t","payload":{"what":1},"attempt":2}'
    job = decode_job(text)
    assert isinstance(job, OtherJob)
    assert (job.kind, job.task_id, job.payload, job.attempt) == ("reindex", "t", {"what": 1}, 2)
    assert json.loads(encode_job(job)) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"kind":"run-agent","taskId":"t"}',  # no id
        '{"id":"j","kind":"run-agent","taskId":"t","payload":{}}',  # a turn without its step
        '{"id":"j","kind":"deliver-webhook","taskId":"t","payload":{"seq":"4"}}',
        '{"id":"j","taskId":"t"}',  # no kind
    ],
)
def test_what_is_not_a_job_is_refused(text: str) -> None:
    with pytest.raises(JobFormatError):
        decode_job(text)


def test_a_string_utf8_cannot_hold_goes_out_escaped_and_comes_back() -> None:
    """A lone surrogate an agent put in its task, carried by a notification: escaped as the
    previous version wrote it, and read back (msgspec alone refuses both ways)."""
    task = {"kind": "task", "id": "t", "text": "a\ud800b é"}
    job = WebhookJob(task_id="t", payload=Notification("n", "c", 1, task))
    data = encode_job(job)
    assert b"\\ud800" in data
    assert decode_job(data) == job
    assert previous_reader(data)["task"] == task
    other = '{"id":"x","kind":"zz","taskId":"t","payload":{"a":"\\ud800"}}'
    decoded = decode_job(other)
    assert isinstance(decoded, OtherJob) and decoded.payload == {"a": "\ud800"}
