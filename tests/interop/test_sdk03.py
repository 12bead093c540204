"""Interop: the official a2a-sdk 0.3.26 client against our dev server, over real HTTP.

The client is built the way the SDK recommends: the agent card is resolved from the well-known
path (`A2ACardResolver`), then `ClientFactory(ClientConfig(...)).create(card)` picks the card's
JSON-RPC interface and returns a `Client`. Its events are `(Task, update)` pairs in which the Task
is the SDK's own aggregate (its `ClientTaskManager` applies status and artifact updates).

Where 0.3.26's `Client` has no method for a protocol call (`tasks/list`,
`tasks/pushNotificationConfig/list` and `.../delete`), the test posts that one JSON-RPC request
with httpx, built and parsed with the SDK's own request/response models where the SDK has them
(see `call_jsonrpc`): the client's transport has no public generic-request method
(`JsonRpcTransport._send_request` is private).

Servers: the example trip planner (`a2a-serverless dev`, multi-turn and streaming) and
`tests/interop/agents.py:app` (echo, slow streaming for cancel/resubscribe, push configs on).
Each test gets its own dev server on a fresh SQLite store.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientEvent, ClientFactory
from a2a.client.errors import A2AClientJSONRPCError
from a2a.types import (
    AgentCard,
    DeleteTaskPushNotificationConfigParams,
    DeleteTaskPushNotificationConfigRequest,
    DeleteTaskPushNotificationConfigResponse,
    GetTaskPushNotificationConfigParams,
    JSONRPCErrorResponse,
    ListTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigResponse,
    Message,
    Part,
    PushNotificationConfig,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
)
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from pydantic import BaseModel

from tests.support.server import LiveServer

pytestmark = pytest.mark.interop

INTEROP_APP = "tests.interop.agents:app"
# Push configs are only stored by the server under test (delivery is not wired); nothing listens
# here and nothing is ever sent to it.
WEBHOOK = "http://127.0.0.1:9/a2a-webhook"

LISBON_3_DAYS = (
    "Day 1: the old town on foot in Lisbon.\n"
    "Day 2: the main museum in Lisbon.\n"
    "Day 3: a food market in Lisbon.\n"
)


# --- servers ---------------------------------------------------------------------------------


def _serve(
    live_server: Callable[..., LiveServer], tmp_path: Path, target: str | None
) -> Iterator[LiveServer]:
    server = live_server(target, A2A_STORE_URL=f"sqlite:///{tmp_path / 'tasks.db'}")
    yield server
    # Shown by pytest only when the test failed: what the server logged meanwhile.
    print(f"--- dev server log ({target or 'example agent'}) ---\n{server.log()}")


@pytest.fixture
def example_server(live_server: Callable[..., LiveServer], tmp_path: Path) -> Iterator[LiveServer]:
    """`a2a-serverless dev`: the example trip planner."""
    yield from _serve(live_server, tmp_path, None)


@pytest.fixture
def interop_server(live_server: Callable[..., LiveServer], tmp_path: Path) -> Iterator[LiveServer]:
    """`a2a-serverless dev tests.interop.agents:app`: echo / slow agent, push configs on."""
    yield from _serve(live_server, tmp_path, INTEROP_APP)


# --- client helpers --------------------------------------------------------------------------


@asynccontextmanager
async def connect(
    server: LiveServer, *, streaming: bool = True, polling: bool = False
) -> AsyncIterator[tuple[Client, AgentCard, httpx.AsyncClient]]:
    """A Client for `server`, made from the card at the well-known path."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:
        card = await A2ACardResolver(http, server.url).get_agent_card()
        config = ClientConfig(httpx_client=http, streaming=streaming, polling=polling)
        client = ClientFactory(config).create(card)
        yield client, card, http


def user_message(text: str, *, task: Task | None = None) -> Message:
    return Message(
        role=Role.user,
        parts=[Part(root=TextPart(text=text))],
        message_id=str(uuid.uuid4()),
        task_id=task.id if task else None,
        context_id=task.context_id if task else None,
    )


Event = tuple[Task, TaskStatusUpdateEvent | TaskArtifactUpdateEvent | None]


async def collect(events: AsyncIterator[ClientEvent | Message]) -> list[Event]:
    """Every event of a send/stream/resubscribe, each Task as it was when the event came.

    The client hands out one Task object and updates it in place, hence the copies.
    """
    seen: list[Event] = []
    async for event in events:
        assert not isinstance(event, Message), f"expected task events, got a Message: {event}"
        task, update = event
        seen.append((task.model_copy(deep=True), update))
    return seen


async def send_one(client: Client, message: Message) -> Task:
    """A non-streaming send: exactly one event, the Task."""
    events = await collect(client.send_message(message))
    assert len(events) == 1, events
    task, update = events[0]
    assert update is None
    return task


async def wait_for(
    client: Client, task_id: str, predicate: Callable[[Task], bool], timeout: float = 10.0
) -> Task:
    """Poll tasks/get until `predicate` holds."""
    deadline = time.monotonic() + timeout
    while True:
        task = await client.get_task(TaskQueryParams(id=task_id))
        if predicate(task):
            return task
        if time.monotonic() > deadline:
            raise AssertionError(f"task {task_id} did not get there in {timeout}s: {task}")
        await asyncio.sleep(0.05)


def texts(parts: list[Part] | None) -> list[str]:
    return [p.root.text for p in parts or [] if isinstance(p.root, TextPart)]


def artifact_text(task: Task) -> str:
    return "".join("".join(texts(a.parts)) for a in task.artifacts or [])


async def call_jsonrpc(
    http: httpx.AsyncClient, url: str, request: BaseModel, response_type: type[BaseModel]
) -> Any:
    """One JSON-RPC call the 0.3.26 Client has no method for, via httpx with the SDK's models.

    Errors are raised as the SDK's transport raises them (A2AClientJSONRPCError).
    """
    reply = await http.post(url, json=request.model_dump(mode="json", exclude_none=True))
    reply.raise_for_status()
    parsed = response_type.model_validate(reply.json())
    root = getattr(parsed, "root", parsed)
    if isinstance(root, JSONRPCErrorResponse):
        raise A2AClientJSONRPCError(root)
    return root.result  # type: ignore[attr-defined]


async def list_tasks(http: httpx.AsyncClient, url: str, **params: Any) -> dict[str, Any]:
    """tasks/list through httpx: a2a-sdk 0.3.26 has neither a client method nor request/result
    models for it (a2a.types has no ListTasks*), so the envelope is checked here and each task
    is parsed with the SDK's `Task` model."""
    body = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": "tasks/list", "params": params}
    reply = await http.post(url, json=body)
    reply.raise_for_status()
    data = reply.json()
    if "error" in data:
        raise A2AClientJSONRPCError(JSONRPCErrorResponse.model_validate(data))
    assert data["jsonrpc"] == "2.0" and data["id"] == body["id"], data
    result: dict[str, Any] = data["result"]
    result["tasks"] = [Task.model_validate(t) for t in result["tasks"]]
    return result


# --- the agent card --------------------------------------------------------------------------


async def test_card_resolves_from_the_well_known_path(example_server: LiveServer) -> None:
    assert AGENT_CARD_WELL_KNOWN_PATH == "/.well-known/agent-card.json"
    async with httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, example_server.url).get_agent_card()
    assert card.name == "Trip Planner"
    assert card.protocol_version == "0.3.0"
    assert card.url == f"{example_server.url}/"
    assert card.preferred_transport == "JSONRPC"
    assert card.capabilities.streaming is True
    assert [s.id for s in card.skills] == ["plan-trip"]

    # The SDK's one-call entry point resolves the same card and builds a JSON-RPC client on it.
    client = await ClientFactory.connect(example_server.url)
    try:
        assert (await client.get_card()).model_dump() == card.model_dump()
    finally:
        await client.close()


# --- message/send ----------------------------------------------------------------------------


async def test_blocking_send_returns_the_completed_task_with_its_artifact(
    example_server: LiveServer,
) -> None:
    async with connect(example_server, streaming=False) as (client, _, _):
        task = await send_one(client, user_message("Plan 3 days in Lisbon"))
    assert task.status.state == TaskState.completed
    assert len(task.artifacts or []) == 1
    assert artifact_text(task) == LISBON_3_DAYS
    assert task.history is not None
    assert texts(task.history[0].parts) == ["Plan 3 days in Lisbon"]
    assert task.history[0].task_id == task.id
    assert task.history[0].context_id == task.context_id


async def test_multi_turn_continues_the_same_task_until_completed(
    example_server: LiveServer,
) -> None:
    async with connect(example_server, streaming=False) as (client, _, _):
        first = await send_one(client, user_message("I would like a city break"))
        assert first.status.state == TaskState.input_required
        assert first.status.message is not None
        assert texts(first.status.message.parts) == ["Where would you like to go?"]

        second = await send_one(client, user_message("Lisbon", task=first))
        assert (second.id, second.context_id) == (first.id, first.context_id)
        assert second.status.state == TaskState.input_required
        assert second.status.message is not None
        assert texts(second.status.message.parts) == ["Lisbon it is! How many days will you stay?"]

        third = await send_one(client, user_message("3", task=first))
        assert (third.id, third.context_id) == (first.id, first.context_id)
        assert third.status.state == TaskState.completed
        assert artifact_text(third) == LISBON_3_DAYS
        said = [texts(m.parts) for m in third.history or [] if m.role == Role.user]
        assert said == [["I would like a city break"], ["Lisbon"], ["3"]]


async def test_non_blocking_send_returns_at_once_and_get_shows_completion_later(
    example_server: LiveServer,
) -> None:
    # polling=True makes the client send `configuration.blocking: false`.
    async with connect(example_server, streaming=False, polling=True) as (client, _, _):
        task = await send_one(client, user_message("Plan 5 days in Lisbon"))  # ≥ 1 s of work
        assert task.status.state in (TaskState.submitted, TaskState.working)
        done = await wait_for(client, task.id, lambda t: t.status.state == TaskState.completed)
    assert artifact_text(done).count("\n") == 5
    assert artifact_text(done).startswith(LISBON_3_DAYS)


# --- message/stream --------------------------------------------------------------------------


async def test_stream_task_first_then_updates_final_last_and_chunks_append(
    example_server: LiveServer,
) -> None:
    async with connect(example_server) as (client, card, _):
        assert card.capabilities.streaming
        events = await collect(client.send_message(user_message("Plan 3 days in Lisbon")))
        task = events[-1][0]
        stored = await client.get_task(TaskQueryParams(id=task.id))

    first_task, first_update = events[0]
    assert first_update is None, "the first event of message/stream must be the Task"
    assert first_task.status.state == TaskState.submitted
    updates = [update for _, update in events[1:]]
    assert all(update is not None for update in updates)

    statuses = [u for u in updates if isinstance(u, TaskStatusUpdateEvent)]
    chunks = [u for u in updates if isinstance(u, TaskArtifactUpdateEvent)]
    assert updates[-1] is statuses[-1], "the last event must be a status update"
    assert statuses[-1].final is True
    assert statuses[-1].status.state == TaskState.completed
    assert [s.final for s in statuses[:-1]] == [False] * (len(statuses) - 1)
    assert TaskState.working in [s.status.state for s in statuses]
    assert {u.task_id for u in updates} == {task.id}
    assert {u.context_id for u in updates} == {task.context_id}

    assert len(chunks) >= 3
    assert len({c.artifact.artifact_id for c in chunks}) == 1
    assert not chunks[0].append
    assert all(c.append for c in chunks[1:])
    assert chunks[-1].last_chunk is True

    # The SDK's task manager put the chunks together into one artifact, as the server did.
    assert task.status.state == TaskState.completed
    assert len(task.artifacts or []) == 1
    assert artifact_text(task) == LISBON_3_DAYS
    assert artifact_text(stored) == LISBON_3_DAYS
    assert stored.status.state == TaskState.completed


async def test_stream_ends_at_input_required_and_the_next_stream_continues_the_task(
    example_server: LiveServer,
) -> None:
    async with connect(example_server) as (client, _, _):
        first = await collect(client.send_message(user_message("I want a holiday")))
        asked, last = first[-1]
        assert isinstance(last, TaskStatusUpdateEvent)
        assert last.final is True
        assert last.status.state == TaskState.input_required

        second = await collect(
            client.send_message(user_message("Plan 3 days in Lisbon", task=asked))
        )
    opened, opened_update = second[0]
    assert opened_update is None
    assert (opened.id, opened.context_id) == (asked.id, asked.context_id)
    done, final = second[-1]
    assert isinstance(final, TaskStatusUpdateEvent)
    assert final.final is True
    assert final.status.state == TaskState.completed
    assert artifact_text(done) == LISBON_3_DAYS


# --- tasks/get, tasks/list -------------------------------------------------------------------


async def test_get_task_honours_history_length(example_server: LiveServer) -> None:
    async with connect(example_server, streaming=False) as (client, _, _):
        asked = await send_one(client, user_message("I want a holiday"))
        await send_one(client, user_message("Plan 2 days in Lisbon", task=asked))

        full = await client.get_task(TaskQueryParams(id=asked.id))
        last_one = await client.get_task(TaskQueryParams(id=asked.id, history_length=1))
        last_two = await client.get_task(TaskQueryParams(id=asked.id, history_length=2))

    assert full.status.state == TaskState.completed
    history = full.history or []
    assert len(history) >= 3
    assert texts(history[0].parts) == ["I want a holiday"]
    assert [m.message_id for m in last_one.history or []] == [history[-1].message_id]
    assert [m.message_id for m in last_two.history or []] == [m.message_id for m in history[-2:]]
    assert artifact_text(last_one) == artifact_text(full)


async def test_list_tasks(example_server: LiveServer) -> None:
    async with connect(example_server, streaming=False) as (client, card, http):
        done = await send_one(client, user_message("Plan 1 day in Lisbon"))
        asking = await send_one(client, user_message("I want a holiday"))

        everything = await list_tasks(http, card.url)
        waiting = await list_tasks(http, card.url, status="input-required")
        page_1 = await list_tasks(http, card.url, pageSize=1)
        page_2 = await list_tasks(http, card.url, pageSize=1, pageToken=page_1["nextPageToken"])
        with_artifacts = await list_tasks(http, card.url, includeArtifacts=True, historyLength=1)
        in_context = await list_tasks(http, card.url, contextId=done.context_id)

    # Most recently updated first; the last page has an empty (but present) nextPageToken.
    assert [t.id for t in everything["tasks"]] == [asking.id, done.id]
    assert everything["totalSize"] == 2
    assert everything["nextPageToken"] == ""
    assert [t.id for t in waiting["tasks"]] == [asking.id]
    assert [t.id for t in page_1["tasks"]] == [asking.id]
    assert page_1["nextPageToken"] != ""
    assert [t.id for t in page_2["tasks"]] == [done.id]
    assert page_2["nextPageToken"] == ""
    # Artifacts are left out unless asked for; historyLength defaults to 0 (no history).
    assert all(t.artifacts is None and not t.history for t in everything["tasks"])
    listed = {t.id: t for t in with_artifacts["tasks"]}
    assert artifact_text(listed[done.id]) == "Day 1: the old town on foot in Lisbon.\n"
    assert listed[asking.id].artifacts == []
    assert all(len(t.history or []) == 1 for t in listed.values())
    assert [t.id for t in in_context["tasks"]] == [done.id]


# --- tasks/cancel ----------------------------------------------------------------------------


async def test_cancel_a_running_task(interop_server: LiveServer) -> None:
    async with connect(interop_server, streaming=False, polling=True) as (client, _, _):
        task = await send_one(client, user_message("slow 100 0.1"))  # ~10 s of streaming
        assert task.status.state in (TaskState.submitted, TaskState.working)
        await wait_for(client, task.id, lambda t: artifact_text(t) != "")

        canceled = await client.cancel_task(TaskIdParams(id=task.id))
        assert canceled.id == task.id
        assert canceled.status.state == TaskState.canceled

        await asyncio.sleep(0.5)  # several chunks' time: the agent must have stopped
        later = await client.get_task(TaskQueryParams(id=task.id))
    assert later.status.state == TaskState.canceled
    assert artifact_text(later) == artifact_text(canceled)
    assert "chunk 99" not in artifact_text(later)


async def test_cancel_of_a_completed_task_fails_with_task_not_cancelable(
    interop_server: LiveServer,
) -> None:
    async with connect(interop_server, streaming=False) as (client, _, _):
        task = await send_one(client, user_message("hello"))
        assert task.status.state == TaskState.completed
        assert artifact_text(task) == "echo: hello"

        with pytest.raises(A2AClientJSONRPCError) as not_cancelable:
            await client.cancel_task(TaskIdParams(id=task.id))
        with pytest.raises(A2AClientJSONRPCError) as not_found:
            await client.cancel_task(TaskIdParams(id=str(uuid.uuid4())))
        still = await client.get_task(TaskQueryParams(id=task.id))

    assert not_cancelable.value.error.code == -32002
    assert not_found.value.error.code == -32001
    assert still.status.state == TaskState.completed


# --- tasks/resubscribe -----------------------------------------------------------------------


async def test_resubscribe_to_a_running_task_resumes_its_events(
    interop_server: LiveServer,
) -> None:
    chunks = 8  # 0.25 s apart: the task is still running when the client comes back
    async with connect(interop_server) as (client, _, _):
        stream = client.send_message(user_message(f"slow {chunks} 0.25"))
        async for event in stream:
            assert not isinstance(event, Message)
            task, update = event
            if isinstance(update, TaskArtifactUpdateEvent):
                break  # the first chunk is in: drop the connection mid-task
        await stream.aclose()  # type: ignore[attr-defined]

        events = await collect(client.resubscribe(TaskIdParams(id=task.id)))

    resumed, first_update = events[0]
    assert first_update is None, "a resubscription starts with the Task"
    assert resumed.id == task.id
    assert resumed.status.state == TaskState.working
    assert artifact_text(resumed).startswith("chunk 0\n")
    done, last = events[-1]
    assert isinstance(last, TaskStatusUpdateEvent)
    assert last.final is True
    assert last.status.state == TaskState.completed
    assert [u for _, u in events[1:-1] if isinstance(u, TaskStatusUpdateEvent) and u.final] == []
    # What the Task carried plus the resumed chunks make the whole artifact, once each.
    assert artifact_text(done) == "".join(f"chunk {i}\n" for i in range(chunks))


# --- push notification configs ---------------------------------------------------------------


async def test_push_notification_config_set_get_list_delete(interop_server: LiveServer) -> None:
    def config(config_id: str, token: str) -> PushNotificationConfig:
        # One config per URL on a task: each its own.
        return PushNotificationConfig(id=config_id, url=f"{WEBHOOK}/{config_id}", token=token)

    async with connect(interop_server, streaming=False) as (client, card, http):
        assert card.capabilities.push_notifications is True
        task = await send_one(client, user_message("hello"))

        first = await client.set_task_callback(
            TaskPushNotificationConfig(task_id=task.id, push_notification_config=config("a", "t1"))
        )
        await client.set_task_callback(
            TaskPushNotificationConfig(task_id=task.id, push_notification_config=config("b", "t2"))
        )
        got = await client.get_task_callback(
            GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id="b")
        )

        # No list/delete methods on the 0.3.26 Client: the SDK's request/response models, httpx.
        def list_request() -> ListTaskPushNotificationConfigRequest:
            params = ListTaskPushNotificationConfigParams(id=task.id)
            return ListTaskPushNotificationConfigRequest(id=str(uuid.uuid4()), params=params)

        listed = await call_jsonrpc(
            http, card.url, list_request(), ListTaskPushNotificationConfigResponse
        )
        delete = DeleteTaskPushNotificationConfigRequest(
            id=str(uuid.uuid4()),
            params=DeleteTaskPushNotificationConfigParams(
                id=task.id, push_notification_config_id="a"
            ),
        )
        deleted = await call_jsonrpc(
            http, card.url, delete, DeleteTaskPushNotificationConfigResponse
        )
        raw_delete = (
            await http.post(card.url, json=delete.model_dump(mode="json", exclude_none=True))
        ).json()
        after = await call_jsonrpc(
            http, card.url, list_request(), ListTaskPushNotificationConfigResponse
        )

    assert first.task_id == task.id
    assert first.push_notification_config.id == "a"
    assert first.push_notification_config.url == f"{WEBHOOK}/a"
    assert first.push_notification_config.token == "t1"
    assert got.task_id == task.id
    assert (got.push_notification_config.id, got.push_notification_config.token) == ("b", "t2")
    assert sorted(c.push_notification_config.id for c in listed) == ["a", "b"]
    assert all(c.task_id == task.id for c in listed)
    assert deleted is None
    # The spec's result for delete is `null`, present in the response (deleting twice is fine).
    assert "result" in raw_delete and raw_delete["result"] is None, raw_delete
    assert [c.push_notification_config.id for c in after] == ["b"]


@pytest.mark.parametrize("streaming", [False, True])
async def test_direct_answer_is_a_message(interop_server: LiveServer, streaming: bool) -> None:
    async with connect(interop_server, streaming=streaming) as (client, _card, _http):
        events = [event async for event in client.send_message(user_message("direct hello"))]
    assert len(events) == 1
    reply = events[0]
    assert isinstance(reply, Message), reply
    assert reply.role == Role.agent
    assert [p.root.text for p in reply.parts if isinstance(p.root, TextPart)] == ["direct: hello"]
    assert reply.task_id is None and reply.context_id
