"""The client against agents served by the official a2a-sdk, over real HTTP: 1.x (A2A 1.0 and,
by its compatibility layer, 0.3, each over JSON-RPC and HTTP+JSON) and 0.3.26 (A2A 0.3 over
JSON-RPC and HTTP+JSON). Where an SDK's server does not implement an operation the test says
which, and that the client reports it as the SDK answers it."""

from __future__ import annotations

import pytest

from a2a_serverless import errors as e
from a2a_serverless import models as m
from a2a_serverless.client import A2AClient, CardError, HTTPStatusError
from tests.support.server import LiveServer

pytestmark = pytest.mark.interop

SDK1_INTERFACES = [
    ("1.0", "JSONRPC"),
    ("1.0", "HTTP+JSON"),
    ("0.3", "JSONRPC"),
    ("0.3", "HTTP+JSON"),
]
SDK03_INTERFACES = [("0.3", "JSONRPC"), ("0.3", "HTTP+JSON")]


def echoed(task: m.Task) -> str:
    return "".join(p.text for a in task.artifacts or [] for p in a.parts if p.text is not None)


async def connect(server: LiveServer, version: str, binding: str) -> A2AClient:
    client = await A2AClient.connect(server.url, version=version, binding=binding)  # type: ignore[arg-type]
    assert (client.interface.version, client.interface.binding) == (version, binding)
    return client


async def round_trips(client: A2AClient) -> None:
    """Send, direct answer, get, stream, cancel, subscribe, push config set/get, errors."""
    task = await client.send("hello")
    assert isinstance(task, m.Task)
    assert task.status.state is m.TaskState.COMPLETED
    assert echoed(task) == "echo: hello"
    direct = await client.send("direct hi")
    assert isinstance(direct, m.Message)
    assert [p.text for p in direct.parts if p.text is not None] == ["direct: hi"]
    got = await client.get_task(task.id)
    assert got.id == task.id and echoed(got) == "echo: hello"

    events = [event async for event in client.stream("streamed")]
    assert isinstance(events[0], m.Task)
    last = events[-1]
    assert isinstance(last, m.TaskStatusUpdateEvent) and last.status.state.ends_stream
    assert last.status.state is m.TaskState.COMPLETED

    running = await client.send("slow 50", blocking=False)
    assert isinstance(running, m.Task)
    canceled = await client.cancel_task(running.id)
    assert canceled.status.state is m.TaskState.CANCELED

    followed = await client.send("slow 3", blocking=False)
    assert isinstance(followed, m.Task)
    tail = [event async for event in client.subscribe(followed.id)]
    assert isinstance(tail[-1], m.TaskStatusUpdateEvent)
    assert tail[-1].status.state is m.TaskState.COMPLETED

    config = m.TaskPushNotificationConfig(url="https://hooks.example.com/a2a", id="c1", token="t0k")
    made = await client.set_push_config(task.id, config)
    assert made.task_id == task.id and made.url == config.url
    assert (await client.get_push_config(task.id, "c1")).id == "c1"

    with pytest.raises(e.TaskNotFoundError):
        await client.get_task("no-such-task")


@pytest.mark.parametrize(("version", "binding"), SDK1_INTERFACES)
async def test_sdk1_server(sdk1_server: LiveServer, version: str, binding: str) -> None:
    client = await connect(sdk1_server, version, binding)
    await round_trips(client)
    task = await client.send("listed")
    assert isinstance(task, m.Task)
    if (version, binding) == ("0.3", "HTTP+JSON"):
        # The SDK's 0.3 compatibility layer has no GET /v1/tasks, nor DELETE of a config:
        # its 1.0 routes answer them, refusing the 0.3 request.
        with pytest.raises(e.VersionNotSupportedError):
            await client.list_tasks()
        with pytest.raises(e.VersionNotSupportedError):
            await client.delete_push_config(task.id, "c1")
        return
    if (version, binding) == ("0.3", "JSONRPC"):
        with pytest.raises(e.MethodNotFoundError):  # no tasks/list in its 0.3 layer
            await client.list_tasks()
    else:
        listed = await client.list_tasks(m.ListTasksRequest(context_id=task.context_id))
        assert [t.id for t in listed.tasks] == [task.id]
    config = m.TaskPushNotificationConfig(url="https://hooks.example.com/b", id="c2")
    await client.set_push_config(task.id, config)
    assert [c.id for c in await client.list_push_configs(task.id)] == ["c2"]
    await client.delete_push_config(task.id, "c2")
    assert await client.list_push_configs(task.id) == []
    with pytest.raises(e.UnsupportedOperationError):
        await client.extended_card()


async def test_sdk1_card_is_read_as_10_first(sdk1_server: LiveServer) -> None:
    client = await A2AClient.connect(sdk1_server.url)
    assert (client.interface.version, client.interface.binding) == ("1.0", "JSONRPC")


@pytest.mark.parametrize(("version", "binding"), SDK03_INTERFACES)
async def test_sdk03_server(sdk03_server: LiveServer, version: str, binding: str) -> None:
    client = await connect(sdk03_server, version, binding)
    await round_trips(client)
    task = await client.send("configs")
    assert isinstance(task, m.Task)
    if binding == "HTTP+JSON":
        # 0.3.26's REST handler raises NotImplementedError for these (HTTP 500), and has no
        # DELETE route (405).
        with pytest.raises(e.InternalError):
            await client.list_tasks()
        with pytest.raises(e.InternalError):
            await client.list_push_configs(task.id)
        with pytest.raises(HTTPStatusError) as refused:  # FastAPI's own 405, no A2A body
            await client.delete_push_config(task.id, "c1")
        assert refused.value.status == 405
        return
    with pytest.raises(e.MethodNotFoundError):
        await client.list_tasks()
    config = m.TaskPushNotificationConfig(url="https://hooks.example.com/b", id="c2")
    await client.set_push_config(task.id, config)
    assert [c.id for c in await client.list_push_configs(task.id)] == ["c2"]
    await client.delete_push_config(task.id, "c2")
    assert await client.list_push_configs(task.id) == []


async def test_sdk03_card_offers_no_10(sdk03_server: LiveServer) -> None:
    client = await A2AClient.connect(sdk03_server.url)
    assert (client.interface.version, client.interface.binding) == ("0.3", "JSONRPC")
    with pytest.raises(CardError, match=r"no A2A 1\.0 interface"):
        await A2AClient.connect(sdk03_server.url, version="1.0")
