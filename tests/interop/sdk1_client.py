"""The official a2a-sdk 1.x client, in its default v1.0 mode or its v0.3 mode, against our dev
server.

Run with the python of .venv-a2a-sdk1 (made by scripts/interop-venv.sh), never from pytest
directly (tests/interop/test_sdk1.py runs it):

    .venv-a2a-sdk1/bin/python tests/interop/sdk1_client.py EXAMPLE_URL INTEROP_URL [MODE]

MODE is `1.0` (the default), `0.3` or `1.0-rest`. Our card lists JSON-RPC and HTTP+JSON in v1.0
first, then JSON-RPC and HTTP+JSON in v0.3 (`supportedInterfaces`); left alone, the client picks
JSON-RPC (its default binding) in v1.0 (its `_find_best_interface` prefers 1.0). For the v0.3
mode the script keeps only the card's 0.3 interfaces before the client is made, which is how a
user pins the version: the client then uses its compat transport. The `1.0-rest` mode keeps the
1.0 interfaces and configures the client for HTTP+JSON only
(`ClientConfig(supported_protocol_bindings=["HTTP+JSON"])`): its `RestTransport` then sends
`/message:send`, `/tasks/{id}`, ... with `A2A-Version: 1.0`.

EXAMPLE_URL serves the example trip planner (`a2a-serverless dev`); INTEROP_URL serves
`tests.interop.agents:app` (echo, `slow N SECONDS`, push configs on). Prints one JSON object:
one entry per feature, each either its observations or {"error": "..."}, so that one failing
call does not hide the others.

How 1.x talks to a 0.3 interface (a2a/client/client_factory.py,
a2a/compat/v0_3/jsonrpc_transport.py): `ClientFactory.create` picks the JSON-RPC interface, sees
a legacy version (>= 0.3, < 1.0) and builds a `CompatJsonRpcTransport`, which sends the 0.3
method names (`message/send`, `tasks/resubscribe`, ...) with `A2A-Version: 0.3` and converts the
0.3 JSON to and from the 1.x protobuf types. In v1.0 mode it is the plain `JsonRpcTransport`
(`SendMessage`, ... with `A2A-Version: 1.0`). The `wire` entry records what went over HTTP.

Listing in v0.3 mode: a2a-sdk 1.x's own compat transport has no `list_tasks` (it raises
NotImplementedError, "ListTasks is not supported in A2A v0.3 JSONRPC"; our server serves
`tasks/list` in 0.3), so `list` records that and then posts
`tasks/list` with httpx, parsing the tasks with the SDK's own 0.3 models and converting them
with its 0.3 -> 1.x conversions.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import traceback
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.compat.v0_3 import conversions
from a2a.compat.v0_3 import types as types_v03
from a2a.types.a2a_pb2 import (
    AgentCard,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.constants import PROTOCOL_VERSION_0_3, VERSION_HEADER
from a2a.utils.errors import JSON_RPC_ERROR_CODE_MAP

WEBHOOK = "http://127.0.0.1:9/a2a-webhook"  # stored only; nothing is ever sent there
WORKING = {TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING}


# --- plumbing --------------------------------------------------------------------------------


class Wire:
    """Records each call the client makes: verb, path, JSON-RPC method (None over HTTP+JSON)
    and A2A-Version header."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def on_request(self, request: httpx.Request) -> None:
        entry: dict[str, Any] = {"http": request.method, "path": request.url.path}
        if request.method == "POST":
            try:
                entry["method"] = json.loads(request.content).get("method")
            except (ValueError, AttributeError):
                entry["method"] = None
        entry["a2a_version"] = request.headers.get("A2A-Version")
        self.calls.append(entry)


class Session:
    def __init__(self, wire: Wire, mode: str) -> None:
        self.http = httpx.AsyncClient(
            timeout=httpx.Timeout(30.0), event_hooks={"request": [wire.on_request]}
        )
        # The protocol version, and the bindings the client may use (empty: its default).
        self.protocol = mode.removesuffix("-rest")
        self.bindings = ["HTTP+JSON"] if mode.endswith("-rest") else []
        self.cards: dict[str, AgentCard] = {}

    async def card(self, url: str) -> AgentCard:
        """The card as the server serves it (all its interfaces)."""
        if url not in self.cards:
            self.cards[url] = await A2ACardResolver(self.http, url).get_agent_card()
        return self.cards[url]

    async def pinned_card(self, url: str) -> AgentCard:
        """The card with only the interfaces of this run's protocol version."""
        card = AgentCard()
        card.CopyFrom(await self.card(url))
        keep = [
            i for i in card.supported_interfaces if i.protocol_version.startswith(self.protocol)
        ]
        del card.supported_interfaces[:]
        card.supported_interfaces.extend(keep)
        return card

    async def client(self, url: str, *, streaming: bool = True, polling: bool = False) -> Client:
        config = ClientConfig(
            httpx_client=self.http,
            streaming=streaming,
            polling=polling,
            supported_protocol_bindings=self.bindings,
        )
        return ClientFactory(config).create(await self.pinned_card(url))


def user_message(text: str, *, task: Task | None = None) -> Message:
    return Message(
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
        message_id=str(uuid.uuid4()),
        task_id=task.id if task else None,
        context_id=task.context_id if task else None,
    )


def state(value: int) -> str:
    return TaskState.Name(value)


def texts(parts: Any) -> list[str]:
    return [p.text for p in parts if p.HasField("text")]


def artifact_text(task: Task) -> str:
    return "".join("".join(texts(a.parts)) for a in task.artifacts)


def task_summary(task: Task) -> dict[str, Any]:
    return {
        "id": task.id,
        "context_id": task.context_id,
        "state": state(task.status.state),
        "status_text": texts(task.status.message.parts) if task.status.HasField("message") else [],
        "artifacts": len(task.artifacts),
        "artifact_text": artifact_text(task),
        "history": [{"role": Role.Name(m.role), "text": texts(m.parts)} for m in task.history],
    }


def event_summary(event: StreamResponse) -> dict[str, Any]:
    kind = event.WhichOneof("payload")
    if kind == "task":
        return {"kind": "task", **task_summary(event.task)}
    if kind == "status_update":
        update = event.status_update
        return {
            "kind": "status_update",
            "task_id": update.task_id,
            "context_id": update.context_id,
            "state": state(update.status.state),
        }
    if kind == "artifact_update":
        chunk = event.artifact_update
        return {
            "kind": "artifact_update",
            "task_id": chunk.task_id,
            "artifact_id": chunk.artifact.artifact_id,
            "text": "".join(texts(chunk.artifact.parts)),
            "append": chunk.append,
            "last_chunk": chunk.last_chunk,
        }
    return {"kind": kind}


def error_summary(error: BaseException) -> dict[str, Any]:
    return {
        "type": type(error).__name__,
        "code": JSON_RPC_ERROR_CODE_MAP.get(type(error)),  # type: ignore[call-overload]
        "message": str(error),
    }


async def send_one(client: Client, message: Message) -> Task:
    events = [e async for e in client.send_message(SendMessageRequest(message=message))]
    if len(events) != 1 or not events[0].HasField("task"):
        raise AssertionError(f"expected one Task, got {[event_summary(e) for e in events]}")
    return events[0].task


async def collect(events: AsyncIterator[StreamResponse]) -> list[dict[str, Any]]:
    return [event_summary(e) async for e in events]


async def wait_for(
    client: Client, task_id: str, predicate: Callable[[Task], bool], timeout: float = 10.0
) -> Task:
    deadline = time.monotonic() + timeout
    while True:
        task = await client.get_task(GetTaskRequest(id=task_id))
        if predicate(task):
            return task
        if time.monotonic() > deadline:
            raise AssertionError(f"task {task_id} never got there: {task_summary(task)}")
        await asyncio.sleep(0.05)


# --- the features ----------------------------------------------------------------------------


async def card(s: Session, example: str, interop: str) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for label, url in (("example", example), ("interop", interop)):
        agent = await s.card(url)
        result[label] = {
            "name": agent.name,
            "streaming": agent.capabilities.streaming,
            "push_notifications": agent.capabilities.push_notifications,
            "interfaces": [
                {"url": i.url, "binding": i.protocol_binding, "version": i.protocol_version}
                for i in agent.supported_interfaces
            ],
        }
    return result


async def send(s: Session, example: str, interop: str) -> dict[str, Any]:
    client = await s.client(example, streaming=False)
    task = await send_one(client, user_message("Plan 3 days in Lisbon"))
    return task_summary(task)


async def multi_turn(s: Session, example: str, interop: str) -> dict[str, Any]:
    client = await s.client(example, streaming=False)
    first = await send_one(client, user_message("I would like a city break"))
    second = await send_one(client, user_message("Lisbon", task=first))
    third = await send_one(client, user_message("3", task=first))
    return {"turns": [task_summary(t) for t in (first, second, third)]}


async def stream(s: Session, example: str, interop: str) -> dict[str, Any]:
    client = await s.client(example)
    request = SendMessageRequest(message=user_message("Plan 3 days in Lisbon"))
    events = await collect(client.send_message(request))
    task_id = events[0].get("id") if events else None
    stored = await client.get_task(GetTaskRequest(id=task_id)) if task_id else None
    return {"events": events, "stored": task_summary(stored) if stored else None}


async def get(s: Session, example: str, interop: str) -> dict[str, Any]:
    client = await s.client(example, streaming=False)
    asked = await send_one(client, user_message("I want a holiday"))
    await send_one(client, user_message("Plan 2 days in Lisbon", task=asked))
    full = await client.get_task(GetTaskRequest(id=asked.id))
    last_one = await client.get_task(GetTaskRequest(id=asked.id, history_length=1))
    missing: dict[str, Any] | None = None
    try:
        await client.get_task(GetTaskRequest(id=str(uuid.uuid4())))
    except Exception as error:
        missing = error_summary(error)
    return {
        "full": task_summary(full),
        "last_one": task_summary(last_one),
        "full_history_ids": [m.message_id for m in full.history],
        "last_one_history_ids": [m.message_id for m in last_one.history],
        "unknown_task_error": missing,
    }


async def list_(s: Session, example: str, interop: str) -> dict[str, Any]:
    client = await s.client(example, streaming=False)
    done = await send_one(client, user_message("Plan 1 day in Lisbon"))
    asking = await send_one(client, user_message("I want a holiday"))
    try:
        listed = await client.list_tasks(ListTasksRequest(page_size=10))
        via_client: dict[str, Any] = {
            "ids": [t.id for t in listed.tasks],
            "states": [state(t.status.state) for t in listed.tasks],
            "total_size": listed.total_size,
            "page_size": listed.page_size,
            "next_page_token": listed.next_page_token,
        }
    except NotImplementedError as error:
        via_client = {"not_implemented": str(error)}
    if s.protocol == "1.0":
        return {"via_client": via_client, "expected_ids": [asking.id, done.id]}
    # The fallback: tasks/list over httpx, tasks parsed by the SDK's 0.3 model, then converted.
    url = (await s.card(example)).supported_interfaces[0].url
    body = {"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": {"pageSize": 10}}
    # The header the compat transport sends (the shared httpx client defaults to 1.0).
    headers = {VERSION_HEADER: PROTOCOL_VERSION_0_3}
    reply = (await s.http.post(url, json=body, headers=headers)).json()
    tasks = [
        conversions.to_core_task(types_v03.Task.model_validate(t)) for t in reply["result"]["tasks"]
    ]
    return {
        "via_client": via_client,
        "expected_ids": [asking.id, done.id],
        "ids": [t.id for t in tasks],
        "states": [state(t.status.state) for t in tasks],
        "total_size": reply["result"].get("totalSize"),
        "next_page_token": reply["result"].get("nextPageToken"),
    }


async def non_blocking(s: Session, example: str, interop: str) -> dict[str, Any]:
    client = await s.client(example, streaming=False, polling=True)  # return_immediately
    started = time.monotonic()
    task = await send_one(client, user_message("Plan 5 days in Lisbon"))
    returned_after = time.monotonic() - started
    done = await wait_for(client, task.id, lambda t: t.status.state not in WORKING)
    return {
        "returned": task_summary(task),
        "returned_after_s": round(returned_after, 3),
        "later": task_summary(done),
    }


async def cancel(s: Session, example: str, interop: str) -> dict[str, Any]:
    client = await s.client(interop, streaming=False, polling=True)
    task = await send_one(client, user_message("slow 100 0.1"))
    await wait_for(client, task.id, lambda t: artifact_text(t) != "")
    canceled = await client.cancel_task(CancelTaskRequest(id=task.id))
    await asyncio.sleep(0.5)
    later = await client.get_task(GetTaskRequest(id=task.id))
    again: dict[str, Any] | None = None
    try:
        await client.cancel_task(CancelTaskRequest(id=task.id))
    except Exception as error:
        again = error_summary(error)
    blocking = await s.client(interop, streaming=False)
    completed = await send_one(blocking, user_message("hello"))
    completed_error: dict[str, Any] | None = None
    try:
        await blocking.cancel_task(CancelTaskRequest(id=completed.id))
    except Exception as error:
        completed_error = error_summary(error)
    return {
        "canceled": task_summary(canceled),
        "later": task_summary(later),
        "cancel_canceled_error": again,
        "completed": task_summary(completed),
        "cancel_completed_error": completed_error,
    }


async def resubscribe(s: Session, example: str, interop: str) -> dict[str, Any]:
    client = await s.client(interop)
    before: list[dict[str, Any]] = []
    events = client.send_message(SendMessageRequest(message=user_message("slow 8 0.25")))
    async for event in events:
        before.append(event_summary(event))
        if event.HasField("artifact_update"):
            break  # the first chunk is in: drop the connection mid-task
    await events.aclose()  # type: ignore[attr-defined]
    task_id = before[0]["id"]
    after = await collect(client.subscribe(SubscribeToTaskRequest(id=task_id)))
    return {"task_id": task_id, "before": before, "after": after}


async def push_config(s: Session, example: str, interop: str) -> dict[str, Any]:
    client = await s.client(interop, streaming=False)
    task = await send_one(client, user_message("hello"))

    def config(config_id: str, token: str) -> TaskPushNotificationConfig:
        # One config per URL on a task: each its own.
        url = f"{WEBHOOK}/{config_id}"
        return TaskPushNotificationConfig(task_id=task.id, id=config_id, url=url, token=token)

    def summary(c: TaskPushNotificationConfig) -> dict[str, str]:
        return {"task_id": c.task_id, "id": c.id, "url": c.url, "token": c.token}

    created = await client.create_task_push_notification_config(config("a", "t1"))
    await client.create_task_push_notification_config(config("b", "t2"))
    got = await client.get_task_push_notification_config(
        GetTaskPushNotificationConfigRequest(task_id=task.id, id="b")
    )
    listed = await client.list_task_push_notification_configs(
        ListTaskPushNotificationConfigsRequest(task_id=task.id)
    )
    deleted = await client.delete_task_push_notification_config(
        DeleteTaskPushNotificationConfigRequest(task_id=task.id, id="a")
    )
    after = await client.list_task_push_notification_configs(
        ListTaskPushNotificationConfigsRequest(task_id=task.id)
    )
    return {
        "task_id": task.id,
        "created": summary(created),
        "got": summary(got),
        "listed": sorted((summary(c) for c in listed.configs), key=lambda c: c["id"]),
        "deleted": deleted,
        "after_delete": [summary(c) for c in after.configs],
    }


async def tenant(s: Session, example: str, interop: str) -> dict[str, Any]:
    """A card interface naming a tenant: the client then sends it with every request (over
    HTTP+JSON in the path too, `/acme/message:send`); the task is the caller's as without it."""
    if s.protocol != "1.0":
        return {"skipped": "A2A 0.3 has no tenant"}
    card = await s.pinned_card(interop)
    for interface in card.supported_interfaces:
        interface.tenant = "acme"
    config = ClientConfig(
        httpx_client=s.http, streaming=False, supported_protocol_bindings=s.bindings
    )
    client = ClientFactory(config).create(card)
    task = await send_one(client, user_message("hello"))
    got = await client.get_task(GetTaskRequest(id=task.id))
    listed = await client.list_tasks(ListTasksRequest(page_size=100))
    plain = await s.client(interop, streaming=False)
    without = await plain.get_task(GetTaskRequest(id=task.id))
    return {
        "task": task_summary(task),
        "got": task_summary(got),
        "listed": task.id in [t.id for t in listed.tasks],
        "without_tenant": task_summary(without),
    }


async def direct(s: Session, example: str, interop: str) -> dict[str, Any]:
    """The interop agent answers `direct ...` with a Message, no task (its direct hook)."""
    result: dict[str, Any] = {}
    for label, streaming in (("send", False), ("stream", True)):
        client = await s.client(interop, streaming=streaming)
        request = SendMessageRequest(message=user_message("direct hello"))
        events = [event async for event in client.send_message(request)]
        result[label] = [
            {
                "kind": event.WhichOneof("payload"),
                "role": Role.Name(event.message.role),
                "text": texts(event.message.parts),
                "task_id": event.message.task_id,
                "has_context": bool(event.message.context_id),
            }
            for event in events
        ]
    return result


FEATURES: dict[str, Callable[[Session, str, str], Awaitable[dict[str, Any]]]] = {
    "card": card,
    "send": send,
    "multi_turn": multi_turn,
    "stream": stream,
    "get": get,
    "list": list_,
    "non_blocking": non_blocking,
    "cancel": cancel,
    "resubscribe": resubscribe,
    "push_config": push_config,
    "tenant": tenant,
    "direct": direct,
}


async def main(example: str, interop: str, protocol: str) -> dict[str, Any]:
    from importlib.metadata import version

    wire = Wire()
    session = Session(wire, protocol)
    results: dict[str, Any] = {"sdk_version": version("a2a-sdk")}
    try:
        for name, feature in FEATURES.items():
            try:
                results[name] = await asyncio.wait_for(feature(session, example, interop), 30)
            except Exception as error:
                results[name] = {"error": f"{type(error).__name__}: {error}"}
                results[name]["traceback"] = traceback.format_exc()
    finally:
        await session.http.aclose()
    results["wire"] = wire.calls
    return results


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["1.0"], ["0.3"], ["1.0-rest"]):
        sys.exit(f"usage: {sys.argv[0]} EXAMPLE_URL INTEROP_URL [1.0|0.3|1.0-rest]")
    protocol = sys.argv[3] if len(sys.argv) == 4 else "1.0"
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], protocol))))
