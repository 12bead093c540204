"""Helpers for the integration tests: JSON-RPC calls through the in-process app, SSE parsing,
a queue that only records jobs, gates that let a test hold an agent at a chosen point, and
checks of a task's event log.

Everything here talks to the app the `make_client` fixture (tests/conftest.py) builds.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import httpx

from a2a_serverless.asgi import A2AApplication
from a2a_serverless.models import TaskStatusUpdateEvent
from a2a_serverless.queue.base import Job
from a2a_serverless.store.base import TaskEvent, TaskRecord

# Settings that keep a test from hanging for long if something is wrong.
FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.05}

TERMINAL = {"completed", "canceled", "failed", "rejected"}


# --- JSON-RPC ----------------------------------------------------------------------------------


def user_message(
    text: str = "hello",
    *,
    task_id: str | None = None,
    context_id: str | None = None,
    message_id: str | None = None,
    parts: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "kind": "message",
        "role": "user",
        "messageId": message_id or str(uuid.uuid4()),
        "parts": parts if parts is not None else [{"kind": "text", "text": text}],
    }
    if task_id is not None:
        message["taskId"] = task_id
    if context_id is not None:
        message["contextId"] = context_id
    return message


def send_params(text: str = "hello", *, blocking: bool = True, **message: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"message": user_message(text, **message)}
    if not blocking:
        params["configuration"] = {"blocking": False}
    return params


async def rpc_raw(
    client: httpx.AsyncClient, method: str, params: dict[str, Any], *, request_id: Any = 1
) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return await client.post("/", json=body)


async def rpc(
    client: httpx.AsyncClient, method: str, params: dict[str, Any], *, request_id: Any = 1
) -> dict[str, Any]:
    """The whole JSON-RPC response object (result or error)."""
    response = await rpc_raw(client, method, params, request_id=request_id)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    assert data["jsonrpc"] == "2.0"
    assert data["id"] == request_id
    return data


def result_of(data: dict[str, Any]) -> dict[str, Any]:
    assert "error" not in data, data
    result: dict[str, Any] = data["result"]
    return result


async def send(
    client: httpx.AsyncClient, text: str = "hello", *, blocking: bool = True, **message: Any
) -> dict[str, Any]:
    """message/send; returns the Task."""
    data = await rpc(client, "message/send", send_params(text, blocking=blocking, **message))
    return result_of(data)


async def get_task(
    client: httpx.AsyncClient, task_id: str, *, history_length: int | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"id": task_id}
    if history_length is not None:
        params["historyLength"] = history_length
    return result_of(await rpc(client, "tasks/get", params))


async def cancel(client: httpx.AsyncClient, task_id: str) -> dict[str, Any]:
    """tasks/cancel; the whole response (a canceled Task or an error)."""
    return await rpc(client, "tasks/cancel", {"id": task_id})


# --- SSE ---------------------------------------------------------------------------------------


def parse_sse(text: str) -> list[tuple[int | None, dict[str, Any]]]:
    """(id, JSON-RPC response) per SSE event; keep-alive comments are skipped."""
    events: list[tuple[int | None, dict[str, Any]]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        event_id: int | None = None
        data_lines: list[str] = []
        for line in block.split("\n"):
            if line.startswith("id:"):
                event_id = int(line[3:].strip())
            elif line.startswith("data:"):
                data_lines.append(line[5:].lstrip())
        if data_lines:
            events.append((event_id, json.loads("\n".join(data_lines))))
    return events


async def stream(
    client: httpx.AsyncClient, text: str = "hello", **message: Any
) -> list[tuple[int | None, dict[str, Any]]]:
    """message/stream until the server ends the stream; (SSE id, JSON-RPC response) per event."""
    params = {"message": user_message(text, **message)}
    body = {"jsonrpc": "2.0", "id": 7, "method": "message/stream", "params": params}
    async with client.stream("POST", "/", json=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = (await response.aread()).decode()
    return parse_sse(raw)


def stream_results(events: list[tuple[int | None, dict[str, Any]]]) -> list[dict[str, Any]]:
    results = []
    for _, data in events:
        assert data["id"] == 7
        results.append(result_of(data))
    return results


# --- parts and messages ------------------------------------------------------------------------


def texts(parts: Iterable[dict[str, Any]]) -> list[str]:
    return [p["text"] for p in parts if p.get("kind") == "text"]


def status_text(task: dict[str, Any]) -> str:
    message = task["status"].get("message")
    return "".join(texts(message["parts"])) if message else ""


# --- queues and gates --------------------------------------------------------------------------


class RecordingQueue:
    """A Queue that keeps jobs instead of running them, so a test delivers them by hand."""

    supports_delay = True

    def __init__(self) -> None:
        self.jobs: list[Job] = []

    async def enqueue(self, job: Job, *, delay_s: float = 0.0) -> None:
        self.jobs.append(job)

    def start(self, jobs: object) -> None:
        pass  # a test delivers the jobs by hand

    async def aclose(self) -> None:
        pass

    def jobs_for(self, task_id: str) -> list[Job]:
        return [job for job in self.jobs if job.task_id == task_id]


class Gates:
    """Per-key events: an agent says it reached a point (`arrive`), a test lets it go on."""

    def __init__(self) -> None:
        self.arrived: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.released: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)

    async def arrive_and_wait(self, key: str) -> None:
        self.arrived[key].set()
        await self.released[key].wait()

    async def wait_arrived(self, key: str, timeout: float = 5.0) -> None:
        await asyncio.wait_for(self.arrived[key].wait(), timeout)

    def release(self, key: str) -> None:
        self.released[key].set()


# --- the stored task ---------------------------------------------------------------------------


async def stored(app: A2AApplication, task_id: str) -> TaskRecord:
    record = await app.runtime.store.get_task(task_id)
    assert record is not None, f"task {task_id} is not stored"
    return record


async def events_of(app: A2AApplication, task_id: str) -> list[TaskEvent]:
    return await app.runtime.store.read_events(task_id, 0)


async def wait_for_state(
    app: A2AApplication, task_id: str, *states: str, timeout: float = 5.0
) -> TaskRecord:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        record = await stored(app, task_id)
        if record.state in states:
            return record
        if loop.time() > deadline:
            raise AssertionError(f"task {task_id} is {record.state}, never reached {states}")
        await asyncio.sleep(0.005)


def status_events(events: list[TaskEvent]) -> list[TaskStatusUpdateEvent]:
    return [e.payload for e in events if isinstance(e.payload, TaskStatusUpdateEvent)]


def check_log(record: TaskRecord, events: list[TaskEvent]) -> None:
    """The invariants of every task's event log.

    Sequence numbers run 1..last_seq without gaps; at most one terminal status event, and if
    there is one it is the last event and matches the task's state.
    """
    assert [e.seq for e in events] == list(range(1, record.last_seq + 1))
    terminal = [
        i
        for i, e in enumerate(events)
        if isinstance(e.payload, TaskStatusUpdateEvent) and e.payload.status.state.is_terminal
    ]
    assert len(terminal) <= 1, [events[i].payload.status.state for i in terminal]
    if record.task.status.state.is_terminal:
        assert terminal == [len(events) - 1], "the terminal status event must be the last event"
        last = events[-1].payload
        assert isinstance(last, TaskStatusUpdateEvent)
        assert last.status.state == record.task.status.state
        assert last.status.state.ends_stream
    else:
        assert terminal == []
