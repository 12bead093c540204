"""The client against our dev server over real HTTP: every operation on each of the four
interfaces (A2A 1.0 and 0.3, JSON-RPC and HTTP+JSON), typed results and typed errors."""

from __future__ import annotations

import msgspec
import pytest

from a2a_serverless import errors as e
from a2a_serverless import models as m
from a2a_serverless.client import A2AClient, Interface, text_message
from tests.support.server import LiveServer

INTERFACES = [
    ("1.0", "JSONRPC"),
    ("1.0", "HTTP+JSON"),
    ("0.3", "JSONRPC"),
    ("0.3", "HTTP+JSON"),
]


def artifact_text(task: m.Task) -> str:
    return "".join(
        part.text
        for artifact in task.artifacts or []
        for part in artifact.parts
        if part.text is not None
    )


async def connect(server: LiveServer, version: str, binding: str) -> A2AClient:
    client = await A2AClient.connect(server.url, version=version, binding=binding)  # type: ignore[arg-type]
    assert (client.interface.version, client.interface.binding) == (version, binding)
    return client


async def test_the_choice_is_10_first_then_the_preferred_binding(ours: LiveServer) -> None:
    default = await A2AClient.connect(ours.url)
    assert default.interface == Interface(f"{ours.url}/", "1.0", "JSONRPC")
    rest = await A2AClient.connect(ours.url, binding="HTTP+JSON")
    assert rest.interface == Interface(ours.url, "1.0", "HTTP+JSON")
    old = await A2AClient.connect(ours.url, version="0.3")
    assert old.interface == Interface(f"{ours.url}/", "0.3", "JSONRPC")
    assert default.streaming


@pytest.mark.parametrize(("version", "binding"), INTERFACES)
async def test_send_get_list(ours: LiveServer, version: str, binding: str) -> None:
    client = await connect(ours, version, binding)
    task = await client.send("hello")
    assert isinstance(task, m.Task)
    assert task.status.state is m.TaskState.COMPLETED
    assert artifact_text(task) == "echo: hello"
    got = await client.get_task(task.id, history_length=1)
    assert got.id == task.id and got.context_id == task.context_id
    assert got.history is not None and len(got.history) == 1
    listed = await client.list_tasks(m.ListTasksRequest(context_id=task.context_id))
    assert [t.id for t in listed.tasks] == [task.id]
    assert listed.total_size == 1


@pytest.mark.parametrize(("version", "binding"), INTERFACES)
async def test_direct_answer_is_a_message(ours: LiveServer, version: str, binding: str) -> None:
    client = await connect(ours, version, binding)
    answer = await client.send("direct hi")
    assert isinstance(answer, m.Message)
    assert answer.role == "agent"
    assert [p.text for p in answer.parts if p.text is not None] == ["direct: hi"]


@pytest.mark.parametrize(("version", "binding"), INTERFACES)
async def test_stream_task_first_then_updates(ours: LiveServer, version: str, binding: str) -> None:
    client = await connect(ours, version, binding)
    events = [event async for event in client.stream("slow 3 0.01")]
    assert isinstance(events[0], m.Task)
    chunks = [
        p.text
        for ev in events
        if isinstance(ev, m.TaskArtifactUpdateEvent)
        for p in ev.artifact.parts
        if p.text is not None
    ]
    assert chunks == ["chunk 0\n", "chunk 1\n", "chunk 2\n"]
    last = events[-1]
    assert isinstance(last, m.TaskStatusUpdateEvent)
    assert last.status.state is m.TaskState.COMPLETED and last.status.state.ends_stream


@pytest.mark.parametrize(("version", "binding"), INTERFACES)
async def test_non_blocking_send_cancel_and_subscribe(
    ours: LiveServer, version: str, binding: str
) -> None:
    client = await connect(ours, version, binding)
    running = await client.send("slow 50 0.2", blocking=False)
    assert isinstance(running, m.Task)
    assert running.status.state in (m.TaskState.SUBMITTED, m.TaskState.WORKING)
    canceled = await client.cancel_task(running.id)
    assert canceled.status.state is m.TaskState.CANCELED
    listed = await client.list_tasks(
        m.ListTasksRequest(context_id=running.context_id, status=m.TaskState.CANCELED)
    )
    assert [t.id for t in listed.tasks] == [running.id]
    with pytest.raises(e.TaskNotCancelableError) as raised:
        await client.cancel_task(running.id)
    assert raised.value.code == -32002

    followed = await client.send("slow 2 0.05", blocking=False)
    assert isinstance(followed, m.Task)
    events = [event async for event in client.subscribe(followed.id)]
    last = events[-1]
    assert isinstance(last, m.TaskStatusUpdateEvent | m.Task)
    assert last.status.state is m.TaskState.COMPLETED


@pytest.mark.parametrize(("version", "binding"), INTERFACES)
async def test_continue_a_context(ours: LiveServer, version: str, binding: str) -> None:
    client = await connect(ours, version, binding)
    first = await client.send("one")
    assert isinstance(first, m.Task)
    second = await client.send(text_message("two", context_id=first.context_id))
    assert isinstance(second, m.Task)
    assert second.context_id == first.context_id and second.id != first.id


@pytest.mark.parametrize(("version", "binding"), INTERFACES)
async def test_push_config_crud(ours: LiveServer, version: str, binding: str) -> None:
    client = await connect(ours, version, binding)
    task = await client.send("hello")
    assert isinstance(task, m.Task)
    config = m.TaskPushNotificationConfig(url="https://hooks.example.com/a2a", id="c1", token="t0k")
    made = await client.set_push_config(task.id, config)
    assert made.task_id == task.id
    assert made == msgspec.structs.replace(config, task_id=task.id)
    assert await client.get_push_config(task.id, "c1") == made
    assert await client.list_push_configs(task.id) == [made]
    await client.delete_push_config(task.id, "c1")
    assert await client.list_push_configs(task.id) == []


@pytest.mark.parametrize(("version", "binding"), INTERFACES)
async def test_errors_are_the_kits_classes(ours: LiveServer, version: str, binding: str) -> None:
    client = await connect(ours, version, binding)
    with pytest.raises(e.TaskNotFoundError) as raised:
        await client.get_task("no-such-task")
    assert raised.value.code == -32001
    with pytest.raises(e.InvalidParamsError) as invalid:
        await client.list_tasks(m.ListTasksRequest(page_size=1000))
    assert invalid.value.code == -32602
    expected = (
        e.UnsupportedOperationError
        if version == "1.0"
        else (e.AuthenticatedExtendedCardNotConfiguredError)
    )
    with pytest.raises(expected):
        await client.extended_card()
