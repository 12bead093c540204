"""tasks/get and the `historyLength` of tasks/get and message/send.

Spec references: §7.3 (tasks/get), TaskQueryParams.historyLength and
MessageSendConfiguration.historyLength ("The number of most recent messages from the task's
history to retrieve").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.integration.jsonrpc_agents import result_of, scripted, send

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(scripted, **FAST) as (client, _app):
        yield client


async def three_message_task(client: httpx.AsyncClient) -> dict[str, Any]:
    """A completed task whose history is: user "ask ...", agent question, user "Ada"."""
    first = await send(client, "ask for a name")
    assert first["status"]["state"] == "input-required"
    done = await send(client, "Ada", taskId=first["id"], contextId=first["contextId"])
    assert done["id"] == first["id"]
    assert done["status"]["state"] == "completed"
    return done


def texts(history: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(m["role"], m["parts"][0]["text"]) for m in history]


FULL = [("user", "ask for a name"), ("agent", "What is your name?"), ("user", "Ada")]


async def test_without_history_length_the_whole_history(client: httpx.AsyncClient) -> None:
    task = await three_message_task(client)
    got = await result_of(client, "tasks/get", {"id": task["id"]})
    assert got["kind"] == "task"
    assert got["id"] == task["id"]
    assert got["contextId"] == task["contextId"]
    assert texts(got["history"]) == FULL
    for message in got["history"]:
        assert message["taskId"] == task["id"]
        assert message["contextId"] == task["contextId"]
    assert got["artifacts"][0]["parts"][0]["text"] == "echo: Ada"


@pytest.mark.parametrize(("length", "expected"), [(1, FULL[-1:]), (2, FULL[-2:]), (3, FULL)])
async def test_history_length_n_gives_the_last_n(
    client: httpx.AsyncClient, length: int, expected: list[tuple[str, str]]
) -> None:
    task = await three_message_task(client)
    got = await result_of(client, "tasks/get", {"id": task["id"], "historyLength": length})
    assert texts(got["history"]) == expected
    # Only the history is cut: everything else is the task as it is.
    full = await result_of(client, "tasks/get", {"id": task["id"]})
    assert {k: v for k, v in got.items() if k != "history"} == {
        k: v for k, v in full.items() if k != "history"
    }


async def test_history_length_larger_than_history(client: httpx.AsyncClient) -> None:
    task = await three_message_task(client)
    got = await result_of(client, "tasks/get", {"id": task["id"], "historyLength": 100})
    assert texts(got["history"]) == FULL


async def test_history_length_zero_gives_no_history(client: httpx.AsyncClient) -> None:
    task = await three_message_task(client)
    got = await result_of(client, "tasks/get", {"id": task["id"], "historyLength": 0})
    assert got.get("history", []) == []
    assert got["status"]["state"] == "completed"
    assert got["artifacts"], "historyLength must not affect artifacts"


async def test_message_send_history_length(client: httpx.AsyncClient) -> None:
    first = await send(client, "ask again", configuration={"historyLength": 1})
    assert first["status"]["state"] == "input-required"
    assert texts(first["history"]) == [("agent", "What is your name?")]

    second = await send(
        client,
        "Grace",
        taskId=first["id"],
        contextId=first["contextId"],
        configuration={"historyLength": 0},
    )
    assert second["status"]["state"] == "completed"
    assert second.get("history", []) == []

    full = await result_of(client, "tasks/get", {"id": first["id"]})
    assert texts(full["history"]) == [
        ("user", "ask again"),
        ("agent", "What is your name?"),
        ("user", "Grace"),
    ]
