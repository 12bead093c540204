"""tasks/list: ordering, filters, cursor pagination, and what each listed Task contains.

Spec references: §7.4 (newest update first; cursor pagination; -32001 for an unknown
contextId), §7.4.1 (ListTasksParams; `includeArtifacts` false -> `artifacts` omitted entirely,
true -> present even if empty; `historyLength` defaults to 0; `lastUpdatedAfter` is inclusive:
"greater than or equal"; `pageSize` defaults to 50), §7.4.2 (`nextPageToken` MUST always be
present, "" on the final page), types.ts ListTasksRequest (`params?` is optional).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.integration.jsonrpc_agents import new_id, result_of, rpc, scripted, send

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(scripted, **FAST) as (client, _app):
        yield client


def now_ms() -> int:
    return time.time_ns() // 1_000_000


async def tick() -> None:
    """Let the millisecond clock move on, so updates have distinct times."""
    await asyncio.sleep(0.005)


async def make_tasks(client: httpx.AsyncClient, texts: list[str], **fields: Any) -> list[str]:
    """Tasks created one after the other (each finished before the next); their ids."""
    ids = []
    for text in texts:
        task = await send(client, text, **fields)
        ids.append(task["id"])
        await tick()
    return ids


async def list_tasks(client: httpx.AsyncClient, **params: Any) -> dict[str, Any]:
    result: dict[str, Any] = await result_of(client, "tasks/list", params)
    assert set(result) == {"tasks", "totalSize", "pageSize", "nextPageToken"}, result
    assert isinstance(result["nextPageToken"], str)
    for task in result["tasks"]:
        assert task["kind"] == "task"
    return result


def ids_of(result: dict[str, Any]) -> list[str]:
    return [task["id"] for task in result["tasks"]]


# --- ordering -----------------------------------------------------------------------------------


async def test_newest_update_first(client: httpx.AsyncClient) -> None:
    first, second, third = await make_tasks(client, ["ask one", "two", "three"])
    result = await list_tasks(client)
    assert ids_of(result) == [third, second, first]
    assert result["totalSize"] == 3
    assert result["nextPageToken"] == ""

    # Answering the oldest task updates it: it moves to the front.
    answered = await send(client, "Ada", taskId=first)
    assert answered["status"]["state"] == "completed"
    assert ids_of(await list_tasks(client)) == [first, third, second]


async def test_list_without_params(client: httpx.AsyncClient) -> None:
    # ListTasksRequest.params is optional (types.ts: `params?: ListTasksParams`).
    (task_id,) = await make_tasks(client, ["one"])
    body = await rpc(client, "tasks/list", None, request_id="no-params")
    assert "error" not in body, body
    assert [task["id"] for task in body["result"]["tasks"]] == [task_id]
    assert body["result"]["nextPageToken"] == ""


async def test_empty_list(client: httpx.AsyncClient) -> None:
    result = await list_tasks(client)
    assert result == {"tasks": [], "totalSize": 0, "pageSize": 50, "nextPageToken": ""}


# --- filters ------------------------------------------------------------------------------------


async def test_filter_by_context_id(client: httpx.AsyncClient) -> None:
    context_a, context_b = f"ctx-a-{new_id()}", f"ctx-b-{new_id()}"
    a_ids = await make_tasks(client, ["a1", "a2"], contextId=context_a)
    b_ids = await make_tasks(client, ["b1"], contextId=context_b)
    await make_tasks(client, ["no context"])

    result = await list_tasks(client, contextId=context_a)
    assert ids_of(result) == a_ids[::-1]
    assert result["totalSize"] == 2
    assert all(task["contextId"] == context_a for task in result["tasks"])

    result = await list_tasks(client, contextId=context_b)
    assert ids_of(result) == b_ids
    assert result["totalSize"] == 1


async def test_filter_by_status(client: httpx.AsyncClient) -> None:
    asking = await make_tasks(client, ["ask a", "ask b"])
    done = await make_tasks(client, ["c", "d", "e"])

    waiting = await list_tasks(client, status="input-required")
    assert ids_of(waiting) == asking[::-1]
    assert waiting["totalSize"] == 2
    assert all(t["status"]["state"] == "input-required" for t in waiting["tasks"])

    completed = await list_tasks(client, status="completed")
    assert ids_of(completed) == done[::-1]
    assert completed["totalSize"] == 3

    # A status filter that matches nothing is an empty page, not an error.
    working = await list_tasks(client, status="working")
    assert working["tasks"] == [] and working["totalSize"] == 0
    assert working["nextPageToken"] == ""


async def test_filter_by_context_and_status(client: httpx.AsyncClient) -> None:
    context = f"ctx-{new_id()}"
    await make_tasks(client, ["ask x"], contextId=context)
    wanted = await make_tasks(client, ["y"], contextId=context)
    await make_tasks(client, ["z"])
    result = await list_tasks(client, contextId=context, status="completed")
    assert ids_of(result) == wanted
    assert result["totalSize"] == 1


async def test_filter_by_last_updated_after(client: httpx.AsyncClient) -> None:
    await make_tasks(client, ["old 1", "old 2"])
    await tick()
    mark = now_ms()
    await tick()
    recent = await make_tasks(client, ["new 1", "new 2"])

    result = await list_tasks(client, lastUpdatedAfter=mark)
    assert ids_of(result) == recent[::-1]
    assert result["totalSize"] == 2

    assert (await list_tasks(client, lastUpdatedAfter=0))["totalSize"] == 4
    future = await list_tasks(client, lastUpdatedAfter=now_ms() + 60_000)
    assert future["tasks"] == [] and future["totalSize"] == 0


# --- pagination ---------------------------------------------------------------------------------


async def walk_pages(client: httpx.AsyncClient, page_size: int, **filters: Any) -> list[Any]:
    """Every page, following nextPageToken until it is ""."""
    pages = []
    token = None
    for _ in range(100):
        params = {**filters, "pageSize": page_size}
        if token is not None:
            params["pageToken"] = token
        page = await list_tasks(client, **params)
        pages.append(page)
        assert page["pageSize"] == page_size
        assert len(page["tasks"]) <= page_size
        token = page["nextPageToken"]
        if token == "":
            return pages
    raise AssertionError("pagination did not end")


async def test_cursor_pagination_visits_every_task_once(client: httpx.AsyncClient) -> None:
    created = await make_tasks(client, [f"task {i}" for i in range(7)])
    pages = await walk_pages(client, 3)
    assert [len(page["tasks"]) for page in pages] == [3, 3, 1]
    assert [page["totalSize"] for page in pages] == [7, 7, 7]
    assert all(page["nextPageToken"] for page in pages[:-1])
    assert pages[-1]["nextPageToken"] == ""
    seen = [task_id for page in pages for task_id in ids_of(page)]
    assert seen == created[::-1], "every task exactly once, newest update first"


async def test_last_page_exactly_full_has_empty_token(client: httpx.AsyncClient) -> None:
    created = await make_tasks(client, [f"task {i}" for i in range(6)])
    pages = await walk_pages(client, 3)
    assert [len(page["tasks"]) for page in pages] == [3, 3]
    assert pages[-1]["nextPageToken"] == ""
    assert [t for page in pages for t in ids_of(page)] == created[::-1]


@pytest.mark.parametrize("page_size", [1, 2, 100])
async def test_page_sizes(client: httpx.AsyncClient, page_size: int) -> None:
    created = await make_tasks(client, [f"task {i}" for i in range(5)])
    pages = await walk_pages(client, page_size)
    assert [t for page in pages for t in ids_of(page)] == created[::-1]
    assert len(pages) == -(-5 // page_size)


async def test_pagination_with_a_filter(client: httpx.AsyncClient) -> None:
    context = f"ctx-{new_id()}"
    wanted = await make_tasks(client, ["a", "b", "c"], contextId=context)
    await make_tasks(client, ["elsewhere 1", "elsewhere 2"])
    pages = await walk_pages(client, 1, contextId=context)
    assert [t for page in pages for t in ids_of(page)] == wanted[::-1]
    assert all(page["totalSize"] == 3 for page in pages)


async def test_tasks_created_while_paging_do_not_disturb_the_walk(
    client: httpx.AsyncClient,
) -> None:
    created = await make_tasks(client, [f"task {i}" for i in range(4)])
    first = await list_tasks(client, pageSize=2)
    await make_tasks(client, ["newcomer"])
    rest = await list_tasks(client, pageSize=2, pageToken=first["nextPageToken"])
    assert ids_of(first) + ids_of(rest) == created[::-1]
    assert rest["nextPageToken"] == ""


async def test_pagination_with_tasks_updated_in_the_same_millisecond(
    client: httpx.AsyncClient,
) -> None:
    # Tasks created concurrently share update times; the cursor must still be exact.
    created = await asyncio.gather(
        *(send(client, f"burst {i}", configuration={"blocking": False}) for i in range(12))
    )
    for _ in range(250):
        if (await list_tasks(client, status="completed"))["totalSize"] == 12:
            break
        await asyncio.sleep(0.02)
    everything = ids_of(await list_tasks(client, pageSize=100))
    assert sorted(everything) == sorted(task["id"] for task in created)
    for page_size in (1, 5):
        pages = await walk_pages(client, page_size)
        assert [t for page in pages for t in ids_of(page)] == everything


async def test_default_page_size(client: httpx.AsyncClient) -> None:
    await make_tasks(client, ["one"])
    result = await list_tasks(client)
    assert result["pageSize"] == 50


# --- what a listed task contains ----------------------------------------------------------------


async def test_artifacts_left_out_by_default_and_when_false(client: httpx.AsyncClient) -> None:
    await make_tasks(client, ["with artifact", "none here", "ask me"])
    for params in ({}, {"includeArtifacts": False}):
        result = await list_tasks(client, **params)
        assert len(result["tasks"]) == 3
        for task in result["tasks"]:
            assert "artifacts" not in task, (params, task)


async def test_artifacts_present_when_asked_even_if_empty(client: httpx.AsyncClient) -> None:
    with_artifact, without, asking = await make_tasks(
        client, ["with artifact", "none here", "ask me"]
    )
    result = await list_tasks(client, includeArtifacts=True)
    tasks = {task["id"]: task for task in result["tasks"]}
    assert [a["parts"][0]["text"] for a in tasks[with_artifact]["artifacts"]] == [
        "echo: with artifact"
    ]
    assert tasks[without]["artifacts"] == []
    assert tasks[asking]["artifacts"] == []


async def test_history_left_out_by_default(client: httpx.AsyncClient) -> None:
    await make_tasks(client, ["ask me", "hello"])
    for params in ({}, {"historyLength": 0}):
        result = await list_tasks(client, **params)
        for task in result["tasks"]:
            assert task.get("history", []) == [], (params, task)


async def test_history_length_gives_the_last_messages(client: httpx.AsyncClient) -> None:
    (task_id,) = await make_tasks(client, ["ask me"])
    await send(client, "Ada", taskId=task_id)
    one = await list_tasks(client, historyLength=1)
    assert [m["parts"][0]["text"] for m in one["tasks"][0]["history"]] == ["Ada"]
    all_ = await list_tasks(client, historyLength=10)
    assert [m["role"] for m in all_["tasks"][0]["history"]] == ["user", "agent", "user"]
