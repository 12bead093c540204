"""Interop over HTTP+JSON/REST: the official a2a-sdk 0.3.26 client, configured for the REST
transport only, against our dev server over real HTTP.

The client is built as the SDK recommends: the card from the well-known path
(`A2ACardResolver`), then `ClientFactory(ClientConfig(supported_transports=[http_json]))`, which
finds the card's HTTP+JSON interface in `additionalInterfaces` (our preferred transport stays
JSON-RPC) and returns a `Client` over the SDK's `RestTransport`. That transport sends and parses
proto JSON with `google.protobuf.json_format` (strictly: an unknown field fails the call), so
every call here also checks our wire format.

The 0.3.26 REST client raises `A2AClientHTTPError(status, ...)` for errors (it does not read
the error body), so errors are checked by their HTTP status; the body is checked in
tests/integration/test_rest_routes.py. It has no methods for tasks/list and push config
list/delete over REST; those routes are covered by the integration and equivalence tests.

Servers as in test_sdk03.py: the example trip planner (`a2a-serverless dev`) and
`tests/interop/agents.py:app` (echo, slow streaming, push configs on), each test on its own dev
server and SQLite store.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientHTTPError
from a2a.client.transports.rest import RestTransport
from a2a.types import (
    AgentCard,
    GetTaskPushNotificationConfigParams,
    Message,
    PushNotificationConfig,
    TaskArtifactUpdateEvent,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskState,
    TaskStatusUpdateEvent,
    TransportProtocol,
)

from tests.interop.test_sdk03 import (
    INTEROP_APP,
    LISBON_3_DAYS,
    WEBHOOK,
    artifact_text,
    collect,
    send_one,
    texts,
    user_message,
    wait_for,
)
from tests.support.server import LiveServer

pytestmark = pytest.mark.interop


def _serve(
    live_server: Callable[..., LiveServer], tmp_path: Path, target: str | None
) -> Iterator[LiveServer]:
    server = live_server(target, A2A_STORE_URL=f"sqlite:///{tmp_path / 'tasks.db'}")
    yield server
    print(f"--- dev server log ({target or 'example agent'}) ---\n{server.log()}")


@pytest.fixture
def example_server(live_server: Callable[..., LiveServer], tmp_path: Path) -> Iterator[LiveServer]:
    yield from _serve(live_server, tmp_path, None)


@pytest.fixture
def interop_server(live_server: Callable[..., LiveServer], tmp_path: Path) -> Iterator[LiveServer]:
    yield from _serve(live_server, tmp_path, INTEROP_APP)


@asynccontextmanager
async def connect(
    server: LiveServer, *, streaming: bool = True, polling: bool = False
) -> AsyncIterator[tuple[Client, AgentCard, httpx.AsyncClient]]:
    """A Client for `server` that may only use HTTP+JSON."""
    async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as http:
        card = await A2ACardResolver(http, server.url).get_agent_card()
        config = ClientConfig(
            httpx_client=http,
            streaming=streaming,
            polling=polling,
            supported_transports=[TransportProtocol.http_json],
        )
        client = ClientFactory(config).create(card)
        # The factory picked the card's REST interface (private attribute: no public accessor).
        transport = client._transport  # type: ignore[attr-defined]
        assert isinstance(transport, RestTransport)
        assert transport.url == server.url
        yield client, card, http


# --- the card --------------------------------------------------------------------------------


async def test_card_declares_the_rest_interface_and_the_client_uses_it(
    example_server: LiveServer,
) -> None:
    async with connect(example_server) as (client, card, http):
        assert card.preferred_transport == "JSONRPC"
        interfaces = {i.transport: i.url for i in card.additional_interfaces or []}
        assert interfaces == {"JSONRPC": f"{example_server.url}/", "HTTP+JSON": example_server.url}
        assert (await client.get_card()).model_dump() == card.model_dump()

        # A RestTransport made from the URL alone resolves the card relative to it.
        bare = RestTransport(http, url=example_server.url)
        assert (await bare.get_card()).model_dump() == card.model_dump()
        # The extended card route answers -32007's 404 until authentication is configured.
        with pytest.raises(A2AClientHTTPError) as missing:
            await bare._send_get_request("/v1/card", {})
        assert missing.value.status_code == 404


# --- message:send ----------------------------------------------------------------------------


async def test_blocking_send_and_multi_turn(example_server: LiveServer) -> None:
    async with connect(example_server, streaming=False) as (client, _, _):
        done = await send_one(client, user_message("Plan 3 days in Lisbon"))
        first = await send_one(client, user_message("I would like a city break"))
        second = await send_one(client, user_message("Lisbon", task=first))
        third = await send_one(client, user_message("3", task=first))

    assert done.status.state == TaskState.completed
    assert artifact_text(done) == LISBON_3_DAYS
    assert done.history is not None
    assert texts(done.history[0].parts) == ["Plan 3 days in Lisbon"]
    assert (done.history[0].task_id, done.history[0].context_id) == (done.id, done.context_id)

    assert first.status.state == TaskState.input_required
    assert first.status.message is not None
    assert texts(first.status.message.parts) == ["Where would you like to go?"]
    assert (second.id, second.context_id) == (first.id, first.context_id)
    assert second.status.state == TaskState.input_required
    assert third.status.state == TaskState.completed
    assert artifact_text(third) == LISBON_3_DAYS
    said = [texts(m.parts) for m in third.history or [] if m.role.value == "user"]
    assert said == [["I would like a city break"], ["Lisbon"], ["3"]]


async def test_non_blocking_send_then_get(example_server: LiveServer) -> None:
    # polling=True: the SDK leaves `blocking` out, which proto3 (and our REST route) reads as
    # false.
    async with connect(example_server, streaming=False, polling=True) as (client, _, _):
        task = await send_one(client, user_message("Plan 5 days in Lisbon"))
        assert task.status.state in (TaskState.submitted, TaskState.working)
        done = await wait_for(client, task.id, lambda t: t.status.state == TaskState.completed)
    assert artifact_text(done).startswith(LISBON_3_DAYS)


# --- message:stream --------------------------------------------------------------------------


async def test_stream(example_server: LiveServer) -> None:
    async with connect(example_server) as (client, card, _):
        assert card.capabilities.streaming
        events = await collect(client.send_message(user_message("Plan 3 days in Lisbon")))
        task = events[-1][0]
        stored = await client.get_task(TaskQueryParams(id=task.id))

    first_task, first_update = events[0]
    assert first_update is None, "the first event is the Task"
    assert first_task.status.state == TaskState.submitted
    updates = [update for _, update in events[1:]]
    statuses = [u for u in updates if isinstance(u, TaskStatusUpdateEvent)]
    chunks = [u for u in updates if isinstance(u, TaskArtifactUpdateEvent)]
    assert updates[-1] is statuses[-1]
    assert statuses[-1].final is True
    assert statuses[-1].status.state == TaskState.completed
    assert [s.final for s in statuses[:-1]] == [False] * (len(statuses) - 1)
    assert len(chunks) >= 3
    assert not chunks[0].append and all(c.append for c in chunks[1:])
    assert chunks[-1].last_chunk is True
    assert artifact_text(task) == LISBON_3_DAYS  # the SDK's task manager joined the chunks
    assert artifact_text(stored) == LISBON_3_DAYS


async def test_stream_ends_at_input_required_and_continues(example_server: LiveServer) -> None:
    async with connect(example_server) as (client, _, _):
        first = await collect(client.send_message(user_message("I want a holiday")))
        asked, last = first[-1]
        assert isinstance(last, TaskStatusUpdateEvent)
        assert (last.final, last.status.state) == (True, TaskState.input_required)
        second = await collect(
            client.send_message(user_message("Plan 3 days in Lisbon", task=asked))
        )
    done, final = second[-1]
    assert second[0][0].id == asked.id
    assert isinstance(final, TaskStatusUpdateEvent)
    assert final.status.state == TaskState.completed
    assert artifact_text(done) == LISBON_3_DAYS


# --- tasks -----------------------------------------------------------------------------------


async def test_get_with_history_length_and_not_found(example_server: LiveServer) -> None:
    async with connect(example_server, streaming=False) as (client, _, _):
        asked = await send_one(client, user_message("I want a holiday"))
        await send_one(client, user_message("Plan 2 days in Lisbon", task=asked))
        full = await client.get_task(TaskQueryParams(id=asked.id))
        last_one = await client.get_task(TaskQueryParams(id=asked.id, history_length=1))
        none = await client.get_task(TaskQueryParams(id=asked.id, history_length=0))
        with pytest.raises(A2AClientHTTPError) as missing:
            await client.get_task(TaskQueryParams(id=str(uuid.uuid4())))

    history = full.history or []
    assert len(history) >= 3
    assert [m.message_id for m in last_one.history or []] == [history[-1].message_id]
    assert not none.history
    assert artifact_text(last_one) == artifact_text(full)
    assert missing.value.status_code == 404


async def test_cancel(interop_server: LiveServer) -> None:
    async with connect(interop_server, streaming=False, polling=True) as (client, _, _):
        task = await send_one(client, user_message("slow 100 0.1"))
        await wait_for(client, task.id, lambda t: artifact_text(t) != "")
        canceled = await client.cancel_task(TaskIdParams(id=task.id))
        assert (canceled.id, canceled.status.state) == (task.id, TaskState.canceled)
        await asyncio.sleep(0.5)
        later = await client.get_task(TaskQueryParams(id=task.id))
        assert later.status.state == TaskState.canceled
        assert artifact_text(later) == artifact_text(canceled)

        with pytest.raises(A2AClientHTTPError) as not_cancelable:
            await client.cancel_task(TaskIdParams(id=task.id))
        with pytest.raises(A2AClientHTTPError) as not_found:
            await client.cancel_task(TaskIdParams(id=str(uuid.uuid4())))
    assert not_cancelable.value.status_code == 409
    assert not_found.value.status_code == 404


async def test_resubscribe_to_a_running_task(interop_server: LiveServer) -> None:
    chunks = 8
    async with connect(interop_server) as (client, _, _):
        stream = client.send_message(user_message(f"slow {chunks} 0.25"))
        async for event in stream:
            assert not isinstance(event, Message)
            task, update = event
            if isinstance(update, TaskArtifactUpdateEvent):
                break  # drop the connection mid-task
        await stream.aclose()  # type: ignore[attr-defined]

        events = await collect(client.resubscribe(TaskIdParams(id=task.id)))
        # Once it is finished, a resubscription is the Task alone.
        again = await collect(client.resubscribe(TaskIdParams(id=task.id)))

    resumed, first_update = events[0]
    assert first_update is None and resumed.id == task.id
    assert resumed.status.state == TaskState.working
    done, last = events[-1]
    assert isinstance(last, TaskStatusUpdateEvent)
    assert (last.final, last.status.state) == (True, TaskState.completed)
    assert artifact_text(done) == "".join(f"chunk {i}\n" for i in range(chunks))
    assert len(again) == 1 and again[0][1] is None
    assert again[0][0].status.state == TaskState.completed


# --- push notification configs ---------------------------------------------------------------


async def test_push_notification_config_set_and_get(interop_server: LiveServer) -> None:
    async with connect(interop_server, streaming=False) as (client, card, _):
        assert card.capabilities.push_notifications is True
        task = await send_one(client, user_message("hello"))
        named = await client.set_task_callback(
            TaskPushNotificationConfig(
                task_id=task.id,
                push_notification_config=PushNotificationConfig(
                    id="a", url=f"{WEBHOOK}/a", token="t1"
                ),
            )
        )
        # No id: the SDK names it ".../pushNotificationConfigs/None"; the server gives it the
        # task's id (its default config).
        default = await client.set_task_callback(
            TaskPushNotificationConfig(
                task_id=task.id, push_notification_config=PushNotificationConfig(url=WEBHOOK)
            )
        )
        got = await client.get_task_callback(
            GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id="a")
        )
        got_default = await client.get_task_callback(
            GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id=task.id)
        )
        with pytest.raises(A2AClientHTTPError) as unknown:
            await client.get_task_callback(
                GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id="zz")
            )

    assert named.task_id == task.id
    assert (named.push_notification_config.id, named.push_notification_config.token) == ("a", "t1")
    assert default.push_notification_config.id == task.id
    assert got.task_id == task.id
    assert got.push_notification_config.model_dump() == named.push_notification_config.model_dump()
    assert got_default.push_notification_config.url == WEBHOOK
    assert unknown.value.status_code == 400
