"""Idempotency by messageId: a message sent again (a client's retry) is answered with the task
it created or continued, and the agent never runs the turn twice.

What is checked is what `service.py` documents ("A message seen before: answer with its task,
never run the turn twice"; "A concurrent copy of this request won the race: answer as for a
retry"). The spec's Message.messageId is the client's unique id of a message; a retry carries
the same one.

Every test runs on the in-memory store, on SQLite, and on a store that takes a few milliseconds
per call, as every networked store (DynamoDB, Firestore) does: the service may not rely on store
calls completing without yielding to other requests.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_serverless.store.memory import MemoryStore
from a2a_serverless.store.sqlite import SqliteStore
from tests.integration.jsonrpc_agents import (
    CALLS,
    new_id,
    parse_sse,
    post,
    request,
    result_of,
    rpc,
    scripted,
    user_message,
)

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}
COPIES = 10


class LaggyStore(MemoryStore):
    """A MemoryStore whose every call first waits a little, like a store across a network."""

    lag_s = 0.004

    async def create_task(self, *args: Any, **kwargs: Any) -> None:
        await asyncio.sleep(self.lag_s)
        await super().create_task(*args, **kwargs)

    async def update_task(self, *args: Any, **kwargs: Any) -> None:
        await asyncio.sleep(self.lag_s)
        await super().update_task(*args, **kwargs)

    async def get_task(self, task_id: str) -> Any:
        await asyncio.sleep(self.lag_s)
        return await super().get_task(task_id)

    async def find_idempotency_key(self, key: str) -> str | None:
        await asyncio.sleep(self.lag_s)
        return await super().find_idempotency_key(key)

    async def read_events(self, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(self.lag_s)
        return await super().read_events(*args, **kwargs)


STORES: dict[str, Callable[[Path], Any]] = {
    "memory": lambda _path: MemoryStore(),
    "sqlite": lambda path: SqliteStore(path / "tasks.db"),
    "laggy": lambda _path: LaggyStore(),
}


@pytest.fixture(params=list(STORES))
async def client(
    request: pytest.FixtureRequest, make_client: Any, tmp_path: Path
) -> AsyncIterator[httpx.AsyncClient]:
    store = STORES[request.param](tmp_path)
    async with make_client(scripted, store=store, **FAST) as (client, _app):
        yield client


async def send_params(client: httpx.AsyncClient, params: dict[str, Any], tag: Any) -> Any:
    body = await rpc(client, "message/send", params, request_id=tag)
    assert "error" not in body, f"copy {tag} of a retried message failed: {body}"
    return body["result"]


async def total_tasks(client: httpx.AsyncClient) -> int:
    return int((await result_of(client, "tasks/list", {}))["totalSize"])


def count_in_history(task: dict[str, Any], message_id: str) -> int:
    return sum(1 for m in task.get("history", []) if m["messageId"] == message_id)


async def started_task(client: httpx.AsyncClient) -> dict[str, Any]:
    """A task waiting for input, started by a message of its own."""
    task = await send_params(client, {"message": user_message(f"ask {new_id()}")}, "start")
    assert task["status"]["state"] == "input-required"
    return task


# --- a new task ---------------------------------------------------------------------------------


async def test_same_message_sent_twice(client: httpx.AsyncClient) -> None:
    text = f"hello {new_id()}"
    params = {"message": user_message(text)}
    first = await send_params(client, params, 1)
    second = await send_params(client, params, 2)
    assert first["id"] == second["id"]
    assert first["contextId"] == second["contextId"]
    assert second["status"]["state"] == "completed"
    assert CALLS[text] == 1
    assert await total_tasks(client) == 1
    task = await result_of(client, "tasks/get", {"id": first["id"]})
    assert count_in_history(task, params["message"]["messageId"]) == 1
    assert len(task["artifacts"]) == 1


async def test_same_message_sent_concurrently(client: httpx.AsyncClient) -> None:
    text = f"hello {new_id()}"
    params = {"message": user_message(text)}
    results = await asyncio.gather(*(send_params(client, params, i) for i in range(COPIES)))
    assert len({task["id"] for task in results}) == 1
    await asyncio.sleep(0.1)  # a second run of the turn, if any, would have started by now
    assert CALLS[text] == 1
    assert await total_tasks(client) == 1
    task = await result_of(client, "tasks/get", {"id": results[0]["id"]})
    assert task["status"]["state"] == "completed"
    assert count_in_history(task, params["message"]["messageId"]) == 1
    assert len(task["artifacts"]) == 1


async def test_same_message_sent_concurrently_not_blocking(client: httpx.AsyncClient) -> None:
    text = f"hello {new_id()}"
    params = {"message": user_message(text), "configuration": {"blocking": False}}
    results = await asyncio.gather(*(send_params(client, params, i) for i in range(COPIES)))
    task_id = results[0]["id"]
    assert {task["id"] for task in results} == {task_id}

    async def finished() -> bool:
        task = await result_of(client, "tasks/get", {"id": task_id})
        return bool(task["status"]["state"] == "completed")

    for _ in range(250):
        if await finished():
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)
    assert CALLS[text] == 1
    assert await total_tasks(client) == 1


async def test_same_message_streamed_twice(client: httpx.AsyncClient) -> None:
    text = f"hello {new_id()}"
    params = {"message": user_message(text)}
    task_ids = []
    for tag in ("s-1", "s-2"):
        response = await post(client, request("message/stream", params, tag))
        events = parse_sse(response.text).events
        assert events[0].data["result"]["kind"] == "task", events[0].data
        task_ids.append(events[0].data["result"]["id"])
    assert task_ids[0] == task_ids[1]
    assert CALLS[text] == 1
    assert await total_tasks(client) == 1


# --- a continuation -----------------------------------------------------------------------------


async def test_same_continuation_sent_twice(client: httpx.AsyncClient) -> None:
    task = await started_task(client)
    answer = f"Ada {new_id()}"
    params = {"message": user_message(answer, taskId=task["id"], contextId=task["contextId"])}
    first = await send_params(client, params, 1)
    second = await send_params(client, params, 2)
    assert first["id"] == second["id"] == task["id"]
    assert second["status"]["state"] == "completed"
    assert CALLS[answer] == 1
    assert await total_tasks(client) == 1
    final = await result_of(client, "tasks/get", {"id": task["id"]})
    assert count_in_history(final, params["message"]["messageId"]) == 1
    assert len(final["artifacts"]) == 1


async def test_same_continuation_sent_concurrently(client: httpx.AsyncClient) -> None:
    task = await started_task(client)
    answer = f"Ada {new_id()}"
    params = {"message": user_message(answer, taskId=task["id"])}
    results = await asyncio.gather(*(send_params(client, params, i) for i in range(COPIES)))
    assert {result["id"] for result in results} == {task["id"]}
    await asyncio.sleep(0.1)
    assert CALLS[answer] == 1
    final = await result_of(client, "tasks/get", {"id": task["id"]})
    assert final["status"]["state"] == "completed"
    assert count_in_history(final, params["message"]["messageId"]) == 1
    assert len(final["artifacts"]) == 1


async def test_same_continuation_retried_while_the_first_copy_is_being_accepted(
    client: httpx.AsyncClient,
) -> None:
    # Retries do not all start at the same instant: copy k starts k * 3 ms after the first.
    task = await started_task(client)
    answer = f"Ada {new_id()}"
    params = {"message": user_message(answer, taskId=task["id"])}

    async def copy(index: int) -> Any:
        await asyncio.sleep(index * 0.003)
        return await send_params(client, params, index)

    results = await asyncio.gather(*(copy(i) for i in range(COPIES)))
    assert {result["id"] for result in results} == {task["id"]}
    await asyncio.sleep(0.1)
    assert CALLS[answer] == 1
    final = await result_of(client, "tasks/get", {"id": task["id"]})
    assert count_in_history(final, params["message"]["messageId"]) == 1


async def test_same_message_retried_while_the_first_copy_is_being_accepted(
    client: httpx.AsyncClient,
) -> None:
    text = f"hello {new_id()}"
    params = {"message": user_message(text)}

    async def copy(index: int) -> Any:
        await asyncio.sleep(index * 0.003)
        return await send_params(client, params, index)

    results = await asyncio.gather(*(copy(i) for i in range(COPIES)))
    assert len({result["id"] for result in results}) == 1
    await asyncio.sleep(0.1)
    assert CALLS[text] == 1
    assert await total_tasks(client) == 1


# --- what makes a retry: the whole request, not the messageId alone ----------------------------


async def test_a_retry_over_the_other_binding_and_version_is_the_same_request(
    client: httpx.AsyncClient,
) -> None:
    # The fingerprint is taken of the parsed request: JSON-RPC 0.3, HTTP+JSON 0.3 and JSON-RPC
    # 1.0 copies of one message are one request, whatever their `blocking` (a stream retrying a
    # blocking send that timed out must not run the agent again).
    text = f"hello {new_id()}"
    message = user_message(text)
    first = await send_params(client, {"message": message}, 1)
    rest = await client.post(
        "/v1/message:send",
        json={
            "message": {
                "messageId": message["messageId"],
                "role": "ROLE_USER",
                "content": [{"text": text}],
            },
            "configuration": {"blocking": False},
        },
    )
    assert rest.status_code == 200, rest.text
    v1 = await client.post(
        "/",
        headers={"A2A-Version": "1.0"},
        json=request(
            "SendMessage",
            {
                "message": {
                    "messageId": message["messageId"],
                    "role": "ROLE_USER",
                    "parts": [{"text": text}],
                },
                "configuration": {"returnImmediately": True, "historyLength": 1},
            },
        ),
    )
    assert v1.status_code == 200, v1.text
    assert rest.json()["task"]["id"] == v1.json()["result"]["task"]["id"] == first["id"]
    assert CALLS[text] == 1
    assert await total_tasks(client) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"parts": [{"kind": "text", "text": "something else"}]},
        {"contextId": "another-context"},
        {"metadata": {"attempt": 2}},
    ],
    ids=["parts", "contextId", "metadata"],
)
async def test_another_message_reusing_the_id_is_a_new_message(
    client: httpx.AsyncClient, change: dict[str, Any]
) -> None:
    message = user_message(f"hello {new_id()}")
    first = await send_params(client, {"message": message}, 1)
    other = await send_params(client, {"message": {**message, **change}}, 2)
    assert other["id"] != first["id"]
    assert other["status"]["state"] == "completed"
    assert await total_tasks(client) == 2
    # And each is still its own retry.
    assert (await send_params(client, {"message": message}, 3))["id"] == first["id"]
    assert (await send_params(client, {"message": {**message, **change}}, 4))["id"] == other["id"]


async def test_other_configuration_or_request_metadata_is_a_new_message(
    client: httpx.AsyncClient,
) -> None:
    message = user_message(f"hello {new_id()}")
    first = await send_params(client, {"message": message}, 1)
    modes = {"message": message, "configuration": {"acceptedOutputModes": ["text/plain"]}}
    tagged = {"message": message, "metadata": {"trace": "x"}}
    ids = {first["id"], (await send_params(client, modes, 2))["id"]}
    ids.add((await send_params(client, tagged, 3))["id"])
    assert len(ids) == 3


async def test_records_written_before_fingerprints_stay_readable(
    make_client: Any, tmp_path: Path
) -> None:
    # Earlier versions keyed a message by caller and messageId alone: such a key still answers
    # the message it was written for, and only that one.
    from a2a_serverless.models import Message, Part, Task, TaskState, TaskStatus
    from a2a_serverless.service import legacy_idempotency_key
    from a2a_serverless.store.base import TaskRecord

    store = SqliteStore(tmp_path / "tasks.db")
    text = f"hello {new_id()}"
    message_id = new_id()
    task_id, context_id = new_id(), new_id()
    stored = Message(
        message_id=message_id,
        role="user",
        parts=[Part(text=text)],
        task_id=task_id,
        context_id=context_id,
    )
    task = Task(
        id=task_id,
        context_id=context_id,
        status=TaskStatus(state=TaskState.COMPLETED),
        history=[stored],
    )
    record = TaskRecord(
        task=task, owner="anonymous", version=1, last_seq=0, created_at_ms=1, updated_at_ms=1
    )
    await store.create_task(record, idempotency_key=legacy_idempotency_key("anonymous", message_id))
    async with make_client(scripted, store=store, **FAST) as (client, _app):
        retry = await send_params(client, {"message": user_message(text, messageId=message_id)}, 1)
        assert retry["id"] == task_id
        assert CALLS[text] == 0
        other = await send_params(
            client, {"message": user_message(f"{text} again", messageId=message_id)}, 2
        )
        assert other["id"] != task_id and other["status"]["state"] == "completed"
