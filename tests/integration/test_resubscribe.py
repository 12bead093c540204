"""tasks/resubscribe: the Task first (no Last-Event-ID), exact replay after a Last-Event-ID, live
following of a running task, and following a task run by ANOTHER PROCESS on the same store.

Spec references: §7.10 (tasks/resubscribe: "resume receiving subsequent updates"; backfill is
implementation-defined), §3.3.1 (SSE), topics/streaming-and-async.md ("final: true ... After
this, the server usually closes the SSE connection"). What this server promises is documented
in `service.py`: "Stream a task from the log: after `last_event_id`, or the Task first when
None", SSE ids are event log positions, and the Store is the only source of truth, so any
process can serve any task ("Writers in other processes are seen by polling", bus.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.jsonrpc_agents import (
    SSEEvent,
    error_of,
    post,
    read_live_stream,
    request,
    result_of,
    scripted,
    send,
    stream,
    streamer,
    user_message,
)

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}
AGENT_TARGET = "tests.integration.jsonrpc_agents:streamer"


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(streamer, **FAST) as (client, _app):
        yield client


async def streamed_task(client: httpx.AsyncClient, text: str = "3 0.01") -> list[SSEEvent]:
    """A task run to the end through message/stream; the events that stream sent."""
    _, body = await stream(client, "message/stream", {"message": user_message(text)})
    assert body.events[-1].data["result"]["final"] is True
    return body.events


async def resubscribe(
    client: httpx.AsyncClient, task_id: str, last_event_id: str | None = None, request_id: Any = 7
) -> list[SSEEvent]:
    headers = {} if last_event_id is None else {"last-event-id": last_event_id}
    _, body = await stream(
        client, "tasks/resubscribe", {"id": task_id}, request_id=request_id, headers=headers
    )
    for event in body.events:
        assert event.data["id"] == request_id
        assert "result" in event.data, event.data
    return body.events


def results(events: list[SSEEvent]) -> list[dict[str, Any]]:
    return [event.data["result"] for event in events]


def assert_increasing(events: list[SSEEvent]) -> None:
    ids = [event.id for event in events]
    assert all(isinstance(i, int) for i in ids), ids
    assert ids == sorted(ids) and len(set(ids)) == len(ids), ids


def artifact_text(items: list[dict[str, Any]]) -> str:
    return "".join(
        part["text"]
        for item in items
        if item["kind"] == "artifact-update"
        for part in item["artifact"]["parts"]
    )


# --- replay of a finished task ------------------------------------------------------------------


async def test_last_event_id_replays_exactly_the_events_after_it(
    client: httpx.AsyncClient,
) -> None:
    events = await streamed_task(client)
    task_id = events[0].data["result"]["id"]
    ids = [event.id for event in events]
    assert len(ids) >= 6
    for last in ids[:-1]:
        replay = await resubscribe(client, task_id, str(last))
        expected = [event for event in events if event.id > last]
        assert [e.id for e in replay] == [e.id for e in expected], last
        assert results(replay) == results(expected), last


async def test_last_event_id_zero_replays_the_whole_log(client: httpx.AsyncClient) -> None:
    events = await streamed_task(client)
    task_id = events[0].data["result"]["id"]
    replay = await resubscribe(client, task_id, "0")
    assert_increasing(replay)
    first = replay[0].data["result"]
    assert first["kind"] == "status-update"
    assert first["status"]["state"] == "submitted"
    assert replay[0].id == events[0].id
    assert results(replay[1:]) == results(events[1:])


async def test_without_last_event_id_the_first_event_is_the_task(
    client: httpx.AsyncClient,
) -> None:
    events = await streamed_task(client)
    task_id = events[0].data["result"]["id"]
    replay = await resubscribe(client, task_id)
    assert len(replay) == 1, "a finished task: the Task, and the stream ends"
    task = replay[0].data["result"]
    assert task["kind"] == "task"
    assert task == await result_of(client, "tasks/get", {"id": task_id})
    assert task["status"]["state"] == "completed"
    # Its id is the log position it reflects, so a client can go on from there.
    assert replay[0].id == events[-1].id


async def test_last_event_id_with_spaces(client: httpx.AsyncClient) -> None:
    events = await streamed_task(client)
    task_id = events[0].data["result"]["id"]
    replay = await resubscribe(client, task_id, f"  {events[2].id} ")
    assert results(replay) == results(events[3:])


async def test_resubscribe_after_the_final_event_ends_at_once(make_client: Any) -> None:
    # A client whose connection dropped right after the final event reconnects with its id.
    # Nothing more can ever happen to a finished task, so the stream must end promptly rather
    # than stay open (with keep-alives) until stream_timeout_s.
    settings = {**FAST, "stream_timeout_s": 3.0}
    async with make_client(streamer, **settings) as (client, _app):
        events = await streamed_task(client)
        task_id = events[0].data["result"]["id"]
        loop = asyncio.get_running_loop()
        for last in (events[-1].id, events[-1].id + 10):
            started = loop.time()
            replay = await resubscribe(client, task_id, str(last))
            elapsed = loop.time() - started
            if last == events[-1].id:
                assert replay == []
            else:
                # Past the end of the log: the task as it stands, and the stream ends.
                assert [e.data["result"]["status"]["state"] for e in replay] == ["completed"]
            assert elapsed < 1.0, f"stream stayed open {elapsed:.2f}s after Last-Event-ID {last}"


@pytest.mark.parametrize("value", ["abc", "-1", "1.5", "0x10"])
async def test_malformed_last_event_id(client: httpx.AsyncClient, value: str) -> None:
    events = await streamed_task(client)
    task_id = events[0].data["result"]["id"]
    response = await post(
        client,
        request("tasks/resubscribe", {"id": task_id}, "bad-leid"),
        headers={"last-event-id": value},
    )
    body = error_of(response)
    assert body["error"]["code"] == -32602, body
    # §6.11.2: the id was perfectly readable, so the response MUST carry it.
    assert body["id"] == "bad-leid", body


async def test_resubscribe_to_a_task_waiting_for_input(make_client: Any) -> None:
    async with make_client(scripted, **FAST) as (client, _app):
        task = await send(client, "ask me")
        replay = await resubscribe(client, task["id"])
        assert len(replay) == 1
        assert replay[0].data["result"]["kind"] == "task"
        assert replay[0].data["result"]["status"]["state"] == "input-required"


# --- following a running task -------------------------------------------------------------------


async def start(client: httpx.AsyncClient, text: str) -> dict[str, Any]:
    task = await send(client, text, configuration={"blocking": False})
    assert task["status"]["state"] in ("submitted", "working")
    return task


async def test_follow_a_running_task_from_the_task(client: httpx.AsyncClient) -> None:
    task = await start(client, "3 0.08")
    events = await resubscribe(client, task["id"])
    assert_increasing(events)
    first = events[0].data["result"]
    assert first["kind"] == "task" and first["id"] == task["id"]
    assert first["status"]["state"] in ("submitted", "working")
    last = events[-1].data["result"]
    assert last["final"] is True and last["status"]["state"] == "completed"
    assert artifact_text(results(events)) == "chunk 0;chunk 1;chunk 2;"
    # What came after the Task is exactly the log after the Task's position.
    replay = await resubscribe(client, task["id"], str(events[0].id))
    assert results(replay) == results(events[1:])


async def test_follow_a_running_task_from_an_event_id(client: httpx.AsyncClient) -> None:
    task = await start(client, "3 0.08")
    events = await resubscribe(client, task["id"], "1")
    assert_increasing(events)
    assert events[0].id == 2
    assert events[-1].data["result"]["status"]["state"] == "completed"
    whole = await resubscribe(client, task["id"], "0")
    assert results(events) == results(whole[1:])


async def test_cancel_ends_the_stream_of_a_follower(client: httpx.AsyncClient) -> None:
    task = await start(client, "6 0.1")

    async def cancel_soon() -> dict[str, Any]:
        await asyncio.sleep(0.25)
        return await result_of(client, "tasks/cancel", {"id": task["id"]})

    events, canceled = await asyncio.gather(resubscribe(client, task["id"]), cancel_soon())
    assert canceled["status"]["state"] == "canceled"
    last = events[-1].data["result"]
    assert last["kind"] == "status-update"
    assert last["final"] is True and last["status"]["state"] == "canceled"
    await asyncio.sleep(0.3)
    stored = await result_of(client, "tasks/get", {"id": task["id"]})
    assert stored["status"]["state"] == "canceled"
    assert artifact_text(results(events)) != "".join(f"chunk {i};" for i in range(6))


# --- two processes, one SQLite file -------------------------------------------------------------


async def test_a_new_stream_with_a_cursor_past_its_log_is_refused_and_its_task_still_runs(
    make_client: Any,
) -> None:
    """message/stream with a Last-Event-ID past the new task's log: refused, but the task was
    stored before the cursor was checked, so its turn is queued all the same (a task never
    waits in `submitted` for a turn nobody queued)."""
    async with make_client(streamer, **FAST) as (client, app):
        response = await post(
            client,
            request("message/stream", {"message": user_message("1 0.01")}),
            headers={"last-event-id": "99"},
        )
        error = error_of(response)["error"]
        assert error["code"] == -32602
        task_id = error["data"]["taskId"]
        await asyncio.wait_for(app.runtime.queue.drain(), 5)
        task = await result_of(client, "tasks/get", {"id": task_id})
        assert task["status"]["state"] == "completed"


async def test_resubscribe_on_another_process(live_server: Any, tmp_path: Path) -> None:
    database = tmp_path / "shared.db"
    env = {
        "A2A_STORE_URL": f"sqlite:///{database}",
        "A2A_POLL_INTERVAL_S": "0.05",
        "A2A_STREAM_TIMEOUT_S": "30",
        "A2A_BLOCKING_TIMEOUT_S": "5",
    }
    server_a = live_server(AGENT_TARGET, **env)
    server_b = live_server(AGENT_TARGET, **env)
    try:
        await _two_process_scenario(server_a.url, server_b.url)
    except BaseException:
        print("--- server A log ---\n" + server_a.log())
        print("--- server B log ---\n" + server_b.log())
        raise


async def _two_process_scenario(url_a: str, url_b: str) -> None:
    async with httpx.AsyncClient(timeout=20) as http:

        async def call(url: str, method: str, params: Any) -> Any:
            response = await http.post(url + "/", json=request(method, params, "x"))
            body = response.json()
            assert "result" in body, body
            return body["result"]

        # A accepts the message and its worker runs the agent: 4 chunks, 0.3 s apart.
        params = {"message": user_message("4 0.3"), "configuration": {"blocking": False}}
        task = await call(url_a, "message/send", params)
        task_id = task["id"]

        # B follows it while it runs: from the Task, and after event 1.
        following, after_one = await asyncio.gather(
            read_live_stream(http, url_b + "/", request("tasks/resubscribe", {"id": task_id}, 1)),
            read_live_stream(
                http,
                url_b + "/",
                request("tasks/resubscribe", {"id": task_id}, 2),
                headers={"last-event-id": "1"},
            ),
        )

        for events, request_id in ((following, 1), (after_one, 2)):
            assert_increasing(events)
            assert all(e.data["id"] == request_id and "result" in e.data for e in events)
            last = events[-1].data["result"]
            assert last["kind"] == "status-update"
            assert last["final"] is True and last["status"]["state"] == "completed"
            assert artifact_text(results(events)) == "chunk 0;chunk 1;chunk 2;chunk 3;"

        first = following[0].data["result"]
        assert first["kind"] == "task" and first["id"] == task_id
        assert first["status"]["state"] in ("submitted", "working"), "B must follow it live"
        assert after_one[0].id == 2

        # B saw the chunks as A's worker wrote them, not all at the end.
        chunk_times = [e.at for e in following if e.data["result"]["kind"] == "artifact-update"]
        assert chunk_times[-1] - chunk_times[0] > 0.5, chunk_times

        # Both streams tell the same story: B's log is A's log.
        after_task = [e for e in after_one if e.id > following[0].id]
        assert [e.id for e in following[1:]] == [e.id for e in after_task]
        assert results(following[1:]) == results(after_task)

        # tasks/get on either process sees the finished task.
        on_b = await call(url_b, "tasks/get", {"id": task_id})
        on_a = await call(url_a, "tasks/get", {"id": task_id})
        assert on_b == on_a
        assert on_b["status"]["state"] == "completed"
        text = "".join(p["text"] for p in on_b["artifacts"][0]["parts"])
        assert text == "chunk 0;chunk 1;chunk 2;chunk 3;"

        # A replay on B of the whole log matches what B streamed live.
        replay = await read_live_stream(
            http,
            url_b + "/",
            request("tasks/resubscribe", {"id": task_id}, 3),
            headers={"last-event-id": "1"},
        )
        assert results(replay) == results(after_one)
        assert [e.id for e in replay] == [e.id for e in after_one]

        # A cancel on B stops the worker in A; a follower on A sees the stream end canceled.
        params = {"message": user_message("8 0.25"), "configuration": {"blocking": False}}
        second = await call(url_a, "message/send", params)

        async def cancel_on_b() -> Any:
            await asyncio.sleep(0.6)
            return await call(url_b, "tasks/cancel", {"id": second["id"]})

        events, canceled = await asyncio.gather(
            read_live_stream(
                http, url_a + "/", request("tasks/resubscribe", {"id": second["id"]}, 4)
            ),
            cancel_on_b(),
        )
        assert canceled["status"]["state"] == "canceled"
        last = events[-1].data["result"]
        assert last["final"] is True and last["status"]["state"] == "canceled"
        await asyncio.sleep(0.6)  # the worker would have written a chunk or two by now
        final = await call(url_a, "tasks/get", {"id": second["id"]})
        assert final["status"]["state"] == "canceled"
        log = await read_live_stream(
            http,
            url_b + "/",
            request("tasks/resubscribe", {"id": second["id"]}, 5),
            headers={"last-event-id": "0"},
            timeout_s=5,
        )
        assert log[-1].data["result"]["status"]["state"] == "canceled", "nothing after cancel"
