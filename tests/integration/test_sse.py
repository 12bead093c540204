"""SSE framing of message/stream: content type, event ids, JSON-RPC envelopes, the order of
results, errors as events, keep-alive comments.

Spec references: §3.3.1 (200 OK, `Content-Type: text/event-stream`, each `data` a complete
JSON-RPC response), §7.2 / §7.2.1 (SendStreamingMessageResponse: Task, Message,
TaskStatusUpdateEvent, TaskArtifactUpdateEvent), topics/streaming-and-async.md ("The server
signals the end of updates for a cycle by setting `final: true`"), the W3C SSE format (`id:`,
`data:`, `:` comment lines). `asgi.py` documents that errors of streaming methods go out as
the stream's single event and that the SSE `id` is the event log position.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.integration.jsonrpc_agents import (
    SSEBody,
    error_of,
    post,
    request,
    result_of,
    scripted,
    send,
    stream,
    streamer,
    user_message,
)

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}


def check_framing(body: SSEBody, request_id: Any) -> list[dict[str, Any]]:
    """Every event: an `id:` that increases, and a JSON-RPC success response for `request_id`."""
    assert body.events, "no events"
    ids = [event.id for event in body.events]
    assert all(isinstance(event_id, int) for event_id in ids), ids
    assert ids == sorted(ids) and len(set(ids)) == len(ids), f"ids must increase: {ids}"
    results = []
    for event in body.events:
        assert event.data["jsonrpc"] == "2.0"
        assert event.data["id"] == request_id
        assert type(event.data["id"]) is type(request_id)
        assert "error" not in event.data, event.data
        results.append(event.data["result"])
    return results


@pytest.mark.parametrize("request_id", ["stream-1", 99])
async def test_message_stream_framing(make_client: Any, request_id: Any) -> None:
    async with make_client(streamer, **FAST) as (client, _app):
        params = {"message": user_message("3 0.02")}
        response, body = await stream(client, "message/stream", params, request_id=request_id)
        assert response.headers["content-type"].split(";")[0].strip() == "text/event-stream"
        results = check_framing(body, request_id)

        task = results[0]
        assert task["kind"] == "task"
        assert task["status"]["state"] == "submitted"
        assert [m["parts"][0]["text"] for m in task["history"]] == ["3 0.02"]
        for result in results[1:]:
            assert result["kind"] in ("status-update", "artifact-update"), result
            assert result["taskId"] == task["id"]
            assert result["contextId"] == task["contextId"]

        last = results[-1]
        assert last["kind"] == "status-update"
        assert last["final"] is True
        assert last["status"]["state"] == "completed"
        middle = [r for r in results[1:-1] if r["kind"] == "status-update"]
        assert middle, "the agent's progress is streamed"
        assert all(r["final"] is False for r in middle), "only the last status update is final"
        assert {r["status"]["state"] for r in middle} == {"working"}
        progress = [r["status"]["message"] for r in middle if "message" in r["status"]]
        assert [m["parts"][0]["text"] for m in progress] == ["starting"]
        assert all(m["role"] == "agent" for m in progress)

        chunks = [r for r in results if r["kind"] == "artifact-update"]
        artifact_ids = {c["artifact"]["artifactId"] for c in chunks}
        assert len(artifact_ids) == 1
        assert chunks[0].get("append", False) is False
        assert all(c["append"] is True for c in chunks[1:])
        assert chunks[-1]["lastChunk"] is True
        text = "".join(p["text"] for c in chunks for p in c["artifact"]["parts"])
        assert text == "chunk 0;chunk 1;chunk 2;"

        # The stream tells the same story as the stored task.
        stored = await result_of(client, "tasks/get", {"id": task["id"]})
        assert stored["status"] == last["status"]
        assert "".join(p["text"] for p in stored["artifacts"][0]["parts"]) == text


async def test_each_data_field_is_one_line_of_json(make_client: Any) -> None:
    async with make_client(streamer, **FAST) as (client, _app):
        params = {"message": user_message("2 0.01")}
        response = await post(client, request("message/stream", params, "one-line"))
        for block in response.text.split("\n\n"):
            if not block:
                continue
            data = [line for line in block.split("\n") if line.startswith("data:")]
            assert len(data) == 1, block
            json.loads(data[0][len("data:") :])


async def test_stream_of_a_turn_that_asks_for_input_ends_there(make_client: Any) -> None:
    async with make_client(scripted, **FAST) as (client, _app):
        _, first = await stream(client, "message/stream", {"message": user_message("ask me")})
        results = check_framing(first, "stream-1")
        assert results[0]["kind"] == "task"
        assert results[-1]["kind"] == "status-update"
        assert results[-1]["final"] is True
        assert results[-1]["status"]["state"] == "input-required"
        assert results[-1]["status"]["message"]["parts"][0]["text"] == "What is your name?"

        # The answer, streamed too: a new cycle of the same task, through to completed.
        task = results[0]
        answer = user_message("Ada", taskId=task["id"], contextId=task["contextId"])
        _, body = await stream(client, "message/stream", {"message": answer}, request_id=2)
        results2 = check_framing(body, 2)
        assert results2[0]["kind"] == "task" and results2[0]["id"] == task["id"]
        assert results2[-1]["final"] is True
        assert results2[-1]["status"]["state"] == "completed"
        # Event ids go on where the first stream stopped: the log is one sequence per task.
        assert body.events[0].id > first.events[-1].id


async def test_message_stream_honours_history_length(make_client: Any) -> None:
    # MessageSendConfiguration is the configuration "for a `message/send` or `message/stream`
    # request"; historyLength is "the number of most recent messages from the task's history
    # to retrieve in the response" -- here the Task that opens the stream.
    async with make_client(scripted, **FAST) as (client, _app):
        task = await send(client, "ask me")
        answer = user_message("Ada", taskId=task["id"])
        params = {"message": answer, "configuration": {"historyLength": 1}}
        _, body = await stream(client, "message/stream", params)
        first = check_framing(body, "stream-1")[0]
        assert first["kind"] == "task"
        assert [m["parts"][0]["text"] for m in first["history"]] == ["Ada"]


# --- errors of streaming methods ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"message": user_message("hi", taskId="no-such-task")}, -32001),
        ({"message": {**user_message("hi"), "parts": []}}, -32602),
        ({"message": user_message("hi", role="agent")}, -32602),
        (None, -32602),
    ],
    ids=["unknown-task", "empty-parts", "role-agent", "no-params"],
)
async def test_errors_of_message_stream_arrive_as_an_sse_event(
    make_client: Any, params: Any, code: int
) -> None:
    async with make_client(scripted, **FAST) as (client, _app):
        response = await post(client, request("message/stream", params, "e-1"))
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        body = error_of(response)
        assert body["jsonrpc"] == "2.0"
        assert body["id"] == "e-1"
        assert "result" not in body
        assert body["error"]["code"] == code


async def test_message_stream_to_a_finished_task_is_an_error_event(make_client: Any) -> None:
    async with make_client(scripted, **FAST) as (client, _app):
        task = await send(client, "hello")
        message = user_message("more", taskId=task["id"])
        response = await post(client, request("message/stream", {"message": message}, 5))
        assert response.headers["content-type"].startswith("text/event-stream")
        body = error_of(response)
        assert body["id"] == 5
        assert body["error"]["code"] == -32602


# --- keep-alive ---------------------------------------------------------------------------------


async def test_keepalive_comments_while_the_agent_is_silent(make_client: Any) -> None:
    settings = {**FAST, "keepalive_s": 0.1}
    async with make_client(streamer, **settings) as (client, _app):
        # Two silences of 0.45 s each: several keep-alive intervals of 0.1 s.
        _, body = await stream(client, "message/stream", {"message": user_message("2 0.45")})
        check_framing(body, "stream-1")
        assert len(body.comments) >= 4, body.comments
        # They come while the stream is open, between events, never after the final one.
        assert body.sequence[0] == "event"
        assert body.sequence[-1] == "event"
        first_chunk = next(
            i for i, e in enumerate(body.events) if e.data["result"]["kind"] == "artifact-update"
        )
        events_seen = 0
        comments_before_first_chunk = 0
        for item in body.sequence:
            if item == "event":
                events_seen += 1
            elif events_seen <= first_chunk:
                comments_before_first_chunk += 1
        assert comments_before_first_chunk >= 2


async def test_no_keepalive_comments_when_the_agent_is_quick(make_client: Any) -> None:
    settings = {**FAST, "keepalive_s": 5.0}
    async with make_client(streamer, **settings) as (client, _app):
        _, body = await stream(client, "message/stream", {"message": user_message("2 0.01")})
        assert body.comments == []
        assert body.sequence[-1] == "event"


async def test_streams_of_two_tasks_do_not_mix(make_client: Any) -> None:
    async with make_client(streamer, **FAST) as (client, _app):
        (_, one), (_, two) = await asyncio.gather(
            stream(client, "message/stream", {"message": user_message("3 0.03")}, request_id=1),
            stream(client, "message/stream", {"message": user_message("2 0.04")}, request_id=2),
        )
        results_one, results_two = check_framing(one, 1), check_framing(two, 2)
        assert {r.get("taskId", r.get("id")) for r in results_one} == {results_one[0]["id"]}
        assert {r.get("taskId", r.get("id")) for r in results_two} == {results_two[0]["id"]}
        assert results_one[0]["id"] != results_two[0]["id"]
