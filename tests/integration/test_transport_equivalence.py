"""Transport equivalence (spec §3.4.1): every scenario runs once over JSON-RPC and once over
HTTP+JSON/REST, each on a fresh app, and the two transcripts must be equal.

Spec references: §3.4.1 ("Identical Functionality", "Consistent Behavior: semantically
equivalent results", "Same Error Handling: map errors consistently"), §3.5.4 (equivalent
parameters and responses), §3.5.6 (the method table), §3.2.3 (REST status codes that
"correspond to A2A error types", a consistent JSON error format), §3.3.3 (REST streaming is SSE
"similar to JSON-RPC"). What the REST side promises in detail is documented in
`a2a_serverless/v03/rest.py` (routes, status codes, error body) and `v03/convert.py`.

How:

- Two small adapters speak each transport on the wire. `JsonRpc` posts JSON-RPC requests.
  `Rest` builds its requests the way the official a2a-sdk 0.3.26 REST client does (the SDK's
  `proto_utils.ToProto` + `MessageToDict`), so the server is not judged by our own converter,
  and checks that every REST response parses strictly into the SDK's `a2a_pb2` types where
  the SDK has one (what its client does with it).
- Each adapter turns every answer into our JSON model form (validated by our models, then
  `dump()`), or into `{"error": {code, message, data}}`. The REST adapter also checks the
  HTTP status for the A2A code and the `{"error": {code, status, message, data}}` body shape;
  the JSON-RPC one that errors come in a 200 response (an SSE event for streaming methods).
- Every call's answer goes into the adapter's transcript, in order. Before comparing, ids that
  each server makes up (tasks, contexts, artifacts: UUIDs), timestamps and page tokens are
  replaced by placeholders numbered by first appearance, so that *which* id appears *where*
  still has to match. SSE event ids (event log positions) are compared as they are.
- Scenarios also assert what the answers must be, so both transports are checked against the
  behaviour, not only against each other.

Known, documented differences the adapters account for (nothing else may differ):
`configuration.blocking` left out means blocking over JSON-RPC and non-blocking over REST
(proto3; see v03/rest.py), so scenarios always say which they want; REST has no "get the default
push config" call without a config id, so scenarios name the config (the default one's id is
the task id); delete answers `null` over JSON-RPC and `{}` (google.protobuf.Empty) over REST.
"""

from __future__ import annotations

import abc
import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import httpx
import pytest
from a2a import types as sdk
from a2a.grpc import a2a_pb2
from a2a.utils.proto_utils import ToProto
from google.protobuf import empty_pb2
from google.protobuf.json_format import MessageToDict, ParseDict
from google.protobuf.message import Message as ProtoMessage

from a2a_serverless import Agent, Context, agent
from a2a_serverless.models import (
    A2AModel,
    AgentCard,
    AgentExtension,
    validate,
)
from a2a_serverless.v03 import convert as v03convert
from a2a_serverless.v03 import jsonrpc_convert as j
from a2a_serverless.v03 import jsonrpc_models as objects
from a2a_serverless.v03 import jsonrpc_params as rpc
from a2a_serverless.v03 import models as v03
from a2a_serverless.v03.jsonrpc_params import TaskPushNotificationConfig
from tests.integration.jsonrpc_agents import parse_sse, request, scripted, streamer

FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}
WEBHOOK = "https://hooks.example.com/a2a"
PASSPORT = "https://example.com/ext/passport/v1"

# The HTTP status each A2A error code must come with over REST (v03/rest.py's table).
HTTP_STATUS = {
    -32700: 400,
    -32600: 400,
    -32601: 404,
    -32602: 400,
    -32603: 500,
    -32001: 404,
    -32002: 409,
    -32003: 400,
    -32004: 400,
    -32005: 415,
    -32006: 502,
    -32007: 404,
}
# Written here, not taken from the code under test.
PROTO_STATES = {
    "submitted": "TASK_STATE_SUBMITTED",
    "working": "TASK_STATE_WORKING",
    "input-required": "TASK_STATE_INPUT_REQUIRED",
    "completed": "TASK_STATE_COMPLETED",
    "canceled": "TASK_STATE_CANCELLED",
    "failed": "TASK_STATE_FAILED",
    "rejected": "TASK_STATE_REJECTED",
    "auth-required": "TASK_STATE_AUTH_REQUIRED",
}


@agent(
    name="Omnivore",
    description="Takes any media type; echoes the text.",
    input_modes=["*/*"],
    output_modes=["*/*"],
)
def omnivore(ctx: Context) -> str:
    return f"echo: {ctx.text}"


@agent(name="Text only", description="Takes and gives text/plain only.")
def text_only(text: str) -> str:
    return text


@agent(
    name="Extended",
    description="Reports which extensions are active.",
    extensions=[AgentExtension(uri=PASSPORT, description="Caller context")],
)
def extended(ctx: Context) -> str:
    return ",".join(ctx.extensions) or "none"


@agent(
    name="Strict",
    description="Needs an extension.",
    extensions=[AgentExtension(uri=PASSPORT, required=True)],
)
def strict(text: str) -> str:
    return text


# --- what both adapters share ----------------------------------------------------------------


def error(code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"error": body}


def is_error(outcome: Any, code: int | None = None) -> bool:
    if not (isinstance(outcome, dict) and set(outcome) == {"error"}):
        return False
    return code is None or outcome["error"]["code"] == code


def result(value: Any) -> dict[str, Any]:
    """A Task / Message / event in our JSON model form."""
    parsed: A2AModel = validate(objects.StreamResult, value)
    return parsed.model_dump()


@dataclass
class Adapter(abc.ABC):
    client: httpx.AsyncClient
    transcript: list[tuple[str, Any]] = field(default_factory=list)
    recording: bool = True
    # Response headers of the last call.
    headers: httpx.Headers = field(default_factory=httpx.Headers)
    _message_ids: int = 0

    name = "?"

    def note(self, label: str, outcome: Any) -> Any:
        if self.recording:
            self.transcript.append((label, outcome))
        return outcome

    def message(self, text: str, **fields: Any) -> dict[str, Any]:
        """A user message with the next message id (the same sequence on both transports)."""
        self._message_ids += 1
        message: dict[str, Any] = {
            "kind": "message",
            "role": "user",
            "messageId": f"msg-{self._message_ids}",
            "parts": [{"kind": "text", "text": text}],
        }
        message.update(fields)
        return message

    async def send_text(self, text: str, *, blocking: bool = True, **fields: Any) -> Any:
        params = {"message": self.message(text, **fields), "configuration": {"blocking": blocking}}
        return await self.send(params)

    async def wait_for(self, task_id: str, *states: str) -> Any:
        """Poll get until the task is in one of `states`; only the final answer is recorded."""
        self.recording = False
        try:
            for _ in range(250):
                task = await self.get(task_id)
                if task["status"]["state"] in states:
                    break
                await asyncio.sleep(0.02)
        finally:
            self.recording = True
        assert task["status"]["state"] in states, task
        return self.note("wait_for", task)

    # Implemented per transport; each records its outcome.
    @abc.abstractmethod
    async def send(self, params: dict[str, Any], headers: dict[str, str] | None = None) -> Any: ...

    @abc.abstractmethod
    async def stream(self, params: dict[str, Any], last_event_id: str | None = None) -> Any: ...

    @abc.abstractmethod
    async def get(self, task_id: str, history_length: int | None = None) -> Any: ...

    @abc.abstractmethod
    async def list(self, **params: Any) -> Any: ...

    @abc.abstractmethod
    async def cancel(self, task_id: str) -> Any: ...

    @abc.abstractmethod
    async def resubscribe(self, task_id: str, last_event_id: str | None = None) -> Any: ...

    @abc.abstractmethod
    async def push_set(self, task_id: str, config: dict[str, Any]) -> Any: ...

    @abc.abstractmethod
    async def push_get(self, task_id: str, config_id: str) -> Any: ...

    @abc.abstractmethod
    async def push_list(self, task_id: str) -> Any: ...

    @abc.abstractmethod
    async def push_delete(self, task_id: str, config_id: str) -> Any: ...

    @abc.abstractmethod
    async def extended_card(self) -> Any: ...


# --- JSON-RPC ------------------------------------------------------------------------------------


class JsonRpc(Adapter):
    name = "jsonrpc"

    async def _call(
        self, method: str, params: Any, headers: dict[str, str] | None = None
    ) -> tuple[Any, httpx.Response]:
        response = await self.client.post(
            "/",
            content=json.dumps(request(method, params, "eq-1")),
            headers={"content-type": "application/json", **(headers or {})},
        )
        self.headers = response.headers
        assert response.status_code == 200, response.text
        if response.headers["content-type"].startswith("text/event-stream"):
            return response, response
        body = response.json()
        assert body["id"] == "eq-1"
        if "error" in body:
            return _jsonrpc_error(body), response
        return body["result"], response

    async def send(self, params: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
        outcome, _ = await self._call("message/send", params, headers)
        return self.note("send", outcome if is_error(outcome) else result(outcome))

    async def _events(self, method: str, params: Any, last_event_id: str | None, label: str) -> Any:
        headers = {} if last_event_id is None else {"last-event-id": last_event_id}
        outcome, response = await self._call(method, params, headers)
        if outcome is not response:
            return self.note(label, outcome)
        events = parse_sse(response.text).events
        if len(events) == 1 and "error" in events[0].data:
            return self.note(label, _jsonrpc_error(events[0].data))
        return self.note(label, [{"id": e.id, "result": result(e.data["result"])} for e in events])

    async def stream(self, params: dict[str, Any], last_event_id: str | None = None) -> Any:
        return await self._events("message/stream", params, last_event_id, "stream")

    async def get(self, task_id: str, history_length: int | None = None) -> Any:
        params: dict[str, Any] = {"id": task_id}
        if history_length is not None:
            params["historyLength"] = history_length
        outcome, _ = await self._call("tasks/get", params)
        return self.note("get", outcome if is_error(outcome) else result(outcome))

    async def list(self, **params: Any) -> Any:
        outcome, _ = await self._call("tasks/list", params)
        if not is_error(outcome):
            outcome = rpc.ListTasksResult.model_validate(outcome).model_dump()
        return self.note("list", outcome)

    async def cancel(self, task_id: str) -> Any:
        outcome, _ = await self._call("tasks/cancel", {"id": task_id})
        return self.note("cancel", outcome if is_error(outcome) else result(outcome))

    async def resubscribe(self, task_id: str, last_event_id: str | None = None) -> Any:
        return await self._events("tasks/resubscribe", {"id": task_id}, last_event_id, "resub")

    async def push_set(self, task_id: str, config: dict[str, Any]) -> Any:
        params = {"taskId": task_id, "pushNotificationConfig": config}
        outcome, _ = await self._call("tasks/pushNotificationConfig/set", params)
        return self.note("push_set", _push_config(outcome))

    async def push_get(self, task_id: str, config_id: str) -> Any:
        params = {"id": task_id, "pushNotificationConfigId": config_id}
        outcome, _ = await self._call("tasks/pushNotificationConfig/get", params)
        return self.note("push_get", _push_config(outcome))

    async def push_list(self, task_id: str) -> Any:
        outcome, _ = await self._call("tasks/pushNotificationConfig/list", {"id": task_id})
        if not is_error(outcome):
            outcome = by_url([_push_config(c) for c in outcome])
        return self.note("push_list", outcome)

    async def push_delete(self, task_id: str, config_id: str) -> Any:
        params = {"id": task_id, "pushNotificationConfigId": config_id}
        outcome, _ = await self._call("tasks/pushNotificationConfig/delete", params)
        return self.note("push_delete", outcome)  # null on success

    async def extended_card(self) -> Any:
        outcome, _ = await self._call("agent/getAuthenticatedExtendedCard", None)
        if not is_error(outcome):
            outcome = AgentCard.model_validate(outcome).model_dump()
        return self.note("extended_card", outcome)


def _jsonrpc_error(body: dict[str, Any]) -> dict[str, Any]:
    assert "result" not in body, body
    raw = body["error"]
    assert set(raw) <= {"code", "message", "data"}, raw
    return error(raw["code"], raw["message"], raw.get("data"))


def by_url(configs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A push config list in a fixed order (the order of the list is not specified)."""
    return sorted(configs, key=lambda c: c["pushNotificationConfig"]["url"])


def _push_config(outcome: Any) -> Any:
    if is_error(outcome):
        return outcome
    return TaskPushNotificationConfig.model_validate(outcome).model_dump()


# --- REST ----------------------------------------------------------------------------------------


class Rest(Adapter):
    name = "rest"

    async def _request(
        self,
        method: str,
        url: str,
        *,
        body: Any = None,
        params: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        sdk_type: type[ProtoMessage] | None = None,
    ) -> tuple[Any, httpx.Response]:
        response = await self.client.request(method, url, json=body, params=params, headers=headers)
        self.headers = response.headers
        if response.headers["content-type"].startswith("text/event-stream"):
            assert response.status_code == 200
            return response, response
        assert response.headers["content-type"].startswith("application/json"), response.headers
        payload = response.json()
        if response.status_code != 200:
            return _rest_error(response), response
        if sdk_type is not None:
            # What the SDK's client does with the body: a strict proto JSON parse.
            ParseDict(payload, sdk_type())
        return payload, response

    async def send(self, params: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
        outcome, _ = await self._request(
            "POST",
            "/v1/message:send",
            body=sdk_send_body(params),
            headers=headers,
            sdk_type=a2a_pb2.SendMessageResponse,
        )
        if not is_error(outcome):
            response = v03.read(v03.SendMessageResponse, outcome, "response")
            outcome = result(j.stream_result_out(v03convert.send_result_in(response)))
        return self.note("send", outcome)

    async def _events(
        self, method: str, url: str, body: Any, last_event_id: str | None, label: str
    ) -> Any:
        headers = {} if last_event_id is None else {"last-event-id": last_event_id}
        outcome, response = await self._request(method, url, body=body, headers=headers)
        if outcome is not response:
            return self.note(label, outcome)
        events = parse_rest_sse(response.text)
        if events and events[-1]["event"] == "error":
            return self.note(label, _error_of_body(events[-1]["data"]))
        converted = []
        for event in events:
            assert event["event"] is None
            ParseDict(event["data"], a2a_pb2.StreamResponse())
            converted.append(
                {
                    "id": event["id"],
                    "result": result(
                        j.stream_result_out(
                            v03convert.stream_result_in(
                                v03.read(v03.StreamResponse, event["data"], "event")
                            )
                        )
                    ),
                }
            )
        return self.note(label, converted)

    async def stream(self, params: dict[str, Any], last_event_id: str | None = None) -> Any:
        body = sdk_send_body(params)
        return await self._events("POST", "/v1/message:stream", body, last_event_id, "stream")

    async def get(self, task_id: str, history_length: int | None = None) -> Any:
        query = {} if history_length is None else {"historyLength": str(history_length)}
        outcome, _ = await self._request(
            "GET", f"/v1/tasks/{task_id}", params=query, sdk_type=a2a_pb2.Task
        )
        if not is_error(outcome):
            outcome = j.task_out(v03convert.task_in(v03.read(v03.Task, outcome, "task")))
        return self.note("get", outcome)

    async def list(self, **params: Any) -> Any:
        query = {}
        for name, value in params.items():
            if name == "status":
                query[name] = PROTO_STATES.get(value, value)
            elif isinstance(value, bool):
                query[name] = "true" if value else "false"
            else:
                query[name] = str(value)
        outcome, _ = await self._request("GET", "/v1/tasks", params=query)
        if not is_error(outcome):
            outcome = j.result_out(
                v03convert.list_result_in(v03.read(v03.ListTasksResponse, outcome, "response"))
            )
        return self.note("list", outcome)

    async def cancel(self, task_id: str) -> Any:
        body = MessageToDict(a2a_pb2.CancelTaskRequest(name=f"tasks/{task_id}"))
        outcome, _ = await self._request(
            "POST", f"/v1/tasks/{task_id}:cancel", body=body, sdk_type=a2a_pb2.Task
        )
        if not is_error(outcome):
            outcome = j.task_out(v03convert.task_in(v03.read(v03.Task, outcome, "task")))
        return self.note("cancel", outcome)

    async def resubscribe(self, task_id: str, last_event_id: str | None = None) -> Any:
        url = f"/v1/tasks/{task_id}:subscribe"
        return await self._events("GET", url, None, last_event_id, "resub")

    async def push_set(self, task_id: str, config: dict[str, Any]) -> Any:
        # As the SDK's RestTransport.set_task_callback builds it.
        request_config = sdk.TaskPushNotificationConfig(
            task_id=task_id,
            push_notification_config=sdk.PushNotificationConfig.model_validate(config),
        )
        pb = a2a_pb2.CreateTaskPushNotificationConfigRequest(
            parent=f"tasks/{task_id}",
            config_id=request_config.push_notification_config.id,
            config=ToProto.task_push_notification_config(request_config),
        )
        outcome, _ = await self._request(
            "POST",
            f"/v1/tasks/{task_id}/pushNotificationConfigs",
            body=MessageToDict(pb),
            sdk_type=a2a_pb2.TaskPushNotificationConfig,
        )
        return self.note("push_set", _rest_push_config(outcome))

    async def push_get(self, task_id: str, config_id: str) -> Any:
        outcome, _ = await self._request(
            "GET",
            f"/v1/tasks/{task_id}/pushNotificationConfigs/{config_id}",
            sdk_type=a2a_pb2.TaskPushNotificationConfig,
        )
        return self.note("push_get", _rest_push_config(outcome))

    async def push_list(self, task_id: str) -> Any:
        outcome, _ = await self._request(
            "GET",
            f"/v1/tasks/{task_id}/pushNotificationConfigs",
            sdk_type=a2a_pb2.ListTaskPushNotificationConfigResponse,
        )
        if not is_error(outcome):
            outcome = by_url(
                [
                    rpc.task_push_config_out(c).model_dump()
                    for c in v03convert.push_config_list_in(
                        v03.read(v03.ListTaskPushNotificationConfigResponse, outcome, "response")
                    )
                ]
            )
        return self.note("push_list", outcome)

    async def push_delete(self, task_id: str, config_id: str) -> Any:
        outcome, _ = await self._request(
            "DELETE",
            f"/v1/tasks/{task_id}/pushNotificationConfigs/{config_id}",
            sdk_type=empty_pb2.Empty,
        )
        if not is_error(outcome):
            assert outcome == {}
            outcome = None  # google.protobuf.Empty, as JSON-RPC's null
        return self.note("push_delete", outcome)

    async def extended_card(self) -> Any:
        outcome, _ = await self._request("GET", "/v1/card")
        if not is_error(outcome):
            outcome = AgentCard.model_validate(outcome).model_dump()
        return self.note("extended_card", outcome)


def sdk_send_body(params: dict[str, Any]) -> dict[str, Any]:
    """A SendMessageRequest as the SDK's RestTransport writes it (ToProto + MessageToDict)."""
    parsed = sdk.MessageSendParams.model_validate(params)
    pb = a2a_pb2.SendMessageRequest(
        request=ToProto.message(parsed.message),
        configuration=ToProto.message_send_configuration(parsed.configuration),
        metadata=ToProto.metadata(parsed.metadata) if parsed.metadata else None,
    )
    return MessageToDict(pb)


def _rest_error(response: httpx.Response) -> dict[str, Any]:
    outcome = _error_of_body(response.json())
    code = outcome["error"]["code"]
    assert response.status_code == HTTP_STATUS[code], (code, response.status_code)
    assert response.json()["error"]["status"] == HTTPStatus(response.status_code).phrase
    return outcome


def _error_of_body(body: Any) -> dict[str, Any]:
    assert isinstance(body, dict) and set(body) == {"error"}, body
    raw = body["error"]
    assert set(raw) <= {"code", "status", "message", "data"}, raw
    assert {"code", "status", "message"} <= set(raw), raw
    return error(raw["code"], raw["message"], raw.get("data"))


def _rest_push_config(outcome: Any) -> Any:
    if is_error(outcome):
        return outcome
    config = v03.read(v03.TaskPushNotificationConfig, outcome, "response")
    return rpc.task_push_config_out(v03convert.task_push_config_in(config)).model_dump()


def parse_rest_sse(text: str) -> list[dict[str, Any]]:
    """SSE blocks: `id:`, optional `event:`, one `data:` line; comments are keep-alives."""
    events = []
    normalized = text.replace("\r\n", "\n")
    assert normalized == "" or normalized.endswith("\n\n"), text
    for block in normalized.split("\n\n"):
        event: dict[str, Any] = {"id": None, "event": None, "data": None}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "id":
                event["id"] = int(value)
            elif name == "event":
                event["event"] = value
            elif name == "data":
                assert event["data"] is None, "one data line per event"
                event["data"] = json.loads(value)
            else:
                raise AssertionError(f"unexpected SSE line {line!r}")
        if event["data"] is not None:
            events.append(event)
    return events


# --- comparing transcripts -----------------------------------------------------------------------

_GENERATED = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])"
)


def canonical(transcript: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Server-made ids -> <id-N> by first appearance; timestamps and page tokens -> markers."""
    names: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        return names.setdefault(match.group(0), f"<id-{len(names) + 1}>")

    def walk(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, key) for v in value]
        if isinstance(value, str):
            if key == "timestamp":
                return "<timestamp>"
            if key == "nextPageToken":
                return "<token>" if value else ""
            return _GENERATED.sub(rename, value)
        return value

    return [(label, walk(outcome)) for label, outcome in transcript]


# --- scenarios -----------------------------------------------------------------------------------

Run = Callable[[Adapter], Awaitable[None]]


@dataclass(frozen=True)
class Scenario:
    run: Run
    agent: Agent
    push_notifications: bool
    settings: dict[str, Any]

    @property
    def name(self) -> str:
        return self.run.__name__


SCENARIOS: list[Scenario] = []


def scenario(
    agent: Agent, *, push_notifications: bool = True, **settings: Any
) -> Callable[[Run], Run]:
    def register(run: Run) -> Run:
        SCENARIOS.append(Scenario(run, agent, push_notifications, {**FAST, **settings}))
        return run

    return register


def texts(parts: list[dict[str, Any]]) -> list[str]:
    return [p["text"] for p in parts if p["kind"] == "text"]


@scenario(omnivore)
async def send_blocking(t: Adapter) -> None:
    task = await t.send(
        {
            "message": t.message("hello", metadata={"trace": "t-1", "n": 2}),
            "configuration": {"blocking": True},
            "metadata": {"request": "r-1"},
        }
    )
    assert task["status"]["state"] == "completed"
    assert texts(task["artifacts"][0]["parts"]) == ["echo: hello"]
    assert task["history"][0]["metadata"] == {"trace": "t-1", "n": 2}

    # Every kind of part, and historyLength in the configuration.
    parts = [
        {"kind": "text", "text": "look at these", "metadata": {"i": 0}},
        {"kind": "file", "file": {"bytes": "aGVsbG8=", "mimeType": "text/plain", "name": "a"}},
        {"kind": "file", "file": {"uri": "https://example.com/x.png", "mimeType": "image/png"}},
        {"kind": "data", "data": {"k": [1, "two", None, {"x": True}]}},
    ]
    message = t.message("", parts=parts, contextId="ctx-parts")
    task = await t.send(
        {"message": message, "configuration": {"blocking": True, "historyLength": 1}}
    )
    assert task.get("contextId") == "ctx-parts", task
    assert len(task["history"]) == 1
    full = await t.get(task["id"])
    assert full["history"][0]["parts"] == parts


@scenario(scripted)
async def send_non_blocking(t: Adapter) -> None:
    task = await t.send_text("none at all", blocking=False)
    assert task["status"]["state"] == "submitted"
    done = await t.wait_for(task["id"], "completed")
    assert "artifacts" not in done

    asking = await t.send_text("ask later", blocking=False)
    waiting = await t.wait_for(asking["id"], "input-required")
    assert texts(waiting["status"]["message"]["parts"]) == ["What is your name?"]


@scenario(scripted)
async def multi_turn_input_required(t: Adapter) -> None:
    first = await t.send_text("ask me")
    assert first["status"]["state"] == "input-required"
    assert first["status"]["message"]["role"] == "agent"
    second = await t.send_text("Ada", taskId=first["id"], contextId=first["contextId"])
    assert (second["id"], second["contextId"]) == (first["id"], first["contextId"])
    assert second["status"]["state"] == "completed"
    assert texts(second["artifacts"][0]["parts"]) == ["echo: Ada"]
    user_turns = [texts(m["parts"]) for m in second["history"] if m["role"] == "user"]
    assert user_turns == [["ask me"], ["Ada"]]
    # The task is finished: a further message is refused (-32602), with the task's id.
    refused = await t.send_text("again", taskId=first["id"])
    assert is_error(refused, -32602)
    assert refused["error"]["data"] == {"taskId": first["id"], "state": "completed"}


@scenario(streamer)
async def stream_events(t: Adapter) -> None:
    events = await t.stream({"message": t.message("3 0.01"), "metadata": {"s": 1}})
    ids = [e["id"] for e in events]
    assert ids == sorted(set(ids)), ids
    results = [e["result"] for e in events]
    assert results[0]["kind"] == "task"
    assert results[0]["status"]["state"] == "submitted"
    statuses = [r for r in results if r["kind"] == "status-update"]
    assert [r["status"]["state"] for r in statuses] == ["working", "working", "completed"]
    assert results[-1] is statuses[-1]
    chunks = [r for r in results if r["kind"] == "artifact-update"]
    assert len({c["artifact"]["artifactId"] for c in chunks}) == 1
    assert chunks[0].get("append", False) is False
    assert all(c["append"] is True for c in chunks[1:])
    assert chunks[-1]["lastChunk"] is True
    streamed = [p["text"] for c in chunks for p in c["artifact"]["parts"]]
    assert streamed == ["chunk 0;", "chunk 1;", "chunk 2;"]
    assert results[-1]["final"] is True
    task = await t.get(results[0]["id"])
    assert texts(task["artifacts"][0]["parts"]) == ["chunk 0;", "chunk 1;", "chunk 2;"]


@scenario(scripted)
async def stream_multi_turn(t: Adapter) -> None:
    first = await t.stream({"message": t.message("ask me")})
    last = first[-1]["result"]
    assert (last["kind"], last["final"], last["status"]["state"]) == (
        "status-update",
        True,
        "input-required",
    )
    task_id = first[0]["result"]["id"]
    answer = t.message("Ada", taskId=task_id)
    second = await t.stream({"message": answer, "configuration": {"historyLength": 1}})
    assert second[0]["id"] > first[-1]["id"], "one event sequence per task"
    opened = second[0]["result"]
    assert [texts(m["parts"]) for m in opened["history"]] == [["Ada"]]
    assert second[-1]["result"]["status"]["state"] == "completed"


@scenario(scripted)
async def get_with_history_length(t: Adapter) -> None:
    first = await t.send_text("ask me")
    await t.send_text("Ada", taskId=first["id"])
    full = await t.get(first["id"])
    assert len(full["history"]) >= 3
    for length in (0, 1, 2, 100):
        task = await t.get(first["id"], history_length=length)
        assert task.get("history", []) == (full["history"][-length:] if length else [])
    assert is_error(await t.get(first["id"], history_length=-1), -32602)


@scenario(scripted)
async def list_filters_and_pages(t: Adapter) -> None:
    made = []
    for text, context in [("one", "ctx-a"), ("ask two", "ctx-a"), ("none three", "ctx-b")]:
        made.append(await t.send_text(text, contextId=context))
        await asyncio.sleep(0.005)  # distinct update times: a deterministic order
    newest_first = [task["id"] for task in reversed(made)]

    everything = await t.list()
    assert [task["id"] for task in everything["tasks"]] == newest_first
    assert everything["nextPageToken"] == ""
    assert everything["totalSize"] == 3 and everything["pageSize"] == 50
    assert all("artifacts" not in task and "history" not in task for task in everything["tasks"])

    waiting = await t.list(status="input-required")
    assert [task["id"] for task in waiting["tasks"]] == [made[1]["id"]]
    in_a = await t.list(contextId="ctx-a", includeArtifacts=True, historyLength=1)
    assert [task["id"] for task in in_a["tasks"]] == [made[1]["id"], made[0]["id"]]
    assert in_a["tasks"][0]["artifacts"] == []
    assert all(len(task["history"]) == 1 for task in in_a["tasks"])
    await t.list(lastUpdatedAfter=0, pageSize=100)

    token, seen = "", []
    while True:
        page = await (t.list(pageSize=1, pageToken=token) if token else t.list(pageSize=1))
        seen += [task["id"] for task in page["tasks"]]
        token = page["nextPageToken"]
        if not token:
            break
    assert seen == newest_first

    for bad in ({"pageSize": 0}, {"pageSize": 101}, {"status": "running"}, {"pageToken": "@@"}):
        assert is_error(await t.list(**bad), -32602), bad
    assert is_error(await t.list(contextId="no-such-context"), -32001)


@scenario(scripted)
async def cancel(t: Adapter) -> None:
    asking = await t.send_text("ask me")
    canceled = await t.cancel(asking["id"])
    assert canceled["status"]["state"] == "canceled"
    again = await t.cancel(asking["id"])
    assert is_error(again, -32002)
    assert again["error"]["data"] == {"taskId": asking["id"], "state": "canceled"}
    assert (await t.get(asking["id"]))["status"]["state"] == "canceled"

    done = await t.send_text("finish")
    assert is_error(await t.cancel(done["id"]), -32002)
    assert is_error(await t.cancel("no-such-task"), -32001)


@scenario(streamer)
async def resubscribe(t: Adapter) -> None:
    events = await t.stream({"message": t.message("3 0.01")})
    task_id = events[0]["result"]["id"]
    ids = [e["id"] for e in events]

    snapshot = await t.resubscribe(task_id)
    assert [e["result"]["kind"] for e in snapshot] == ["task"]
    assert snapshot[0]["result"]["status"]["state"] == "completed"
    assert snapshot[0]["id"] == ids[-1]

    after_first = await t.resubscribe(task_id, str(ids[0]))
    assert after_first == events[1:]
    assert await t.resubscribe(task_id, str(ids[-1])) == []
    whole = await t.resubscribe(task_id, "0")
    assert whole[0]["result"]["kind"] == "status-update"
    assert whole[1:] == events[1:]

    assert is_error(await t.resubscribe(task_id, "not-a-number"), -32602)
    assert is_error(await t.resubscribe("no-such-task"), -32001)


@scenario(scripted)
async def resubscribe_to_a_task_waiting_for_input(t: Adapter) -> None:
    asking = await t.send_text("ask me")
    events = await t.resubscribe(asking["id"])
    assert [e["result"]["status"]["state"] for e in events] == ["input-required"]


@scenario(scripted)
async def push_configs(t: Adapter) -> None:
    task = await t.send_text("hello")
    task_id = task["id"]
    default = await t.push_set(task_id, {"url": WEBHOOK, "token": "tok-0"})
    assert default["pushNotificationConfig"]["id"] == task_id  # no id: the task's default
    named = {
        "id": "b",
        "url": WEBHOOK + "/b",
        "token": "tok-b",
        "authentication": {"schemes": ["Bearer"], "credentials": "secret"},
    }
    assert (await t.push_set(task_id, named))["pushNotificationConfig"] == named
    assert (await t.push_get(task_id, "b"))["pushNotificationConfig"] == named
    assert (await t.push_get(task_id, task_id))["pushNotificationConfig"]["token"] == "tok-0"
    listed = await t.push_list(task_id)
    assert sorted(c["pushNotificationConfig"]["id"] for c in listed) == sorted([task_id, "b"])
    assert await t.push_delete(task_id, "b") is None
    assert await t.push_delete(task_id, "b") is None  # already gone: still fine
    assert [c["pushNotificationConfig"]["id"] for c in await t.push_list(task_id)] == [task_id]
    assert is_error(await t.push_get(task_id, "b"), -32602)
    assert is_error(await t.push_set("no-such-task", {"url": WEBHOOK}), -32001)
    assert is_error(await t.push_list("no-such-task"), -32001)

    # A config that comes with the message.
    config = {"id": "with-send", "url": WEBHOOK, "token": "t"}
    message = t.message("hi")
    sent = await t.send(
        {"message": message, "configuration": {"blocking": True, "pushNotificationConfig": config}}
    )
    assert (await t.push_get(sent["id"], "with-send"))["pushNotificationConfig"] == config


@scenario(scripted)
async def errors_not_found(t: Adapter) -> None:
    assert is_error(await t.get("no-such-task"), -32001)
    assert is_error(await t.get("no-such-task", history_length=2), -32001)
    assert is_error(await t.send_text("hi", taskId="no-such-task"), -32001)
    assert is_error(await t.stream({"message": t.message("hi", taskId="nope")}), -32001)
    assert is_error(await t.push_get("no-such-task", "x"), -32001)
    assert is_error(await t.push_delete("no-such-task", "x"), -32001)


@scenario(scripted)
async def errors_invalid_params(t: Adapter) -> None:
    task = await t.send_text("hello")
    agent_message = t.message("from an agent", role="agent")
    assert is_error(await t.send({"message": agent_message, "configuration": {"blocking": True}}))
    working = await t.send_text("ask me", blocking=True)
    other_context = t.message("Ada", taskId=working["id"], contextId="another-context")
    refused = await t.send({"message": other_context, "configuration": {"blocking": True}})
    assert is_error(refused, -32602)
    assert is_error(await t.send_text("more", taskId=task["id"]), -32602)
    assert is_error(await t.get(task["id"], history_length=-1), -32602)
    assert is_error(await t.list(historyLength=-1), -32602)
    assert is_error(await t.list(lastUpdatedAfter=-5), -32602)


@scenario(text_only)
async def errors_unsupported_content_type(t: Adapter) -> None:
    data = t.message("hi")
    data["parts"].append({"kind": "data", "data": {"a": 1}})
    refused = await t.send({"message": data, "configuration": {"blocking": True}})
    assert is_error(refused, -32005)
    assert refused["error"]["data"]["acceptedInputModes"] == ["text/plain"]
    wants_images = {"blocking": True, "acceptedOutputModes": ["image/png"]}
    assert is_error(await t.send({"message": t.message("hi"), "configuration": wants_images}))
    streamed = await t.stream({"message": data | {"messageId": "stream-data"}})
    assert is_error(streamed, -32005)
    assert (await t.list())["tasks"] == []


@scenario(scripted, push_notifications=False)
async def errors_push_not_supported(t: Adapter) -> None:
    task = await t.send_text("hello")
    assert is_error(await t.push_set(task["id"], {"url": WEBHOOK}), -32003)
    assert is_error(await t.push_get(task["id"], task["id"]), -32003)
    assert is_error(await t.push_list(task["id"]), -32003)
    assert is_error(await t.push_delete(task["id"], task["id"]), -32003)
    config = {"blocking": True, "pushNotificationConfig": {"url": WEBHOOK}}
    assert is_error(await t.send({"message": t.message("hi"), "configuration": config}), -32003)


@scenario(streamer, streaming=False, buffered_streams=True)
async def streams_buffered_when_streaming_is_off(t: Adapter) -> None:
    events = await t.stream({"message": t.message("2 0.01")})
    results = [e["result"] for e in events]
    assert results[0]["kind"] == "task"
    assert results[-1]["final"] is True
    assert results[-1]["status"]["state"] == "completed"
    [replay] = await t.resubscribe(results[0]["id"])
    assert replay["result"]["kind"] == "task"
    assert replay["result"]["status"]["state"] == "completed"


@scenario(streamer, streaming=False, buffered_streams=False)
async def errors_streaming_disabled(t: Adapter) -> None:
    refused = await t.stream({"message": t.message("1 0.01")})
    assert is_error(refused, -32004)
    task = await t.send_text("1 0.01")
    assert task["status"]["state"] == "completed"
    assert is_error(await t.resubscribe(task["id"]), -32004)


@scenario(scripted)
async def errors_extended_card_not_configured(t: Adapter) -> None:
    assert is_error(await t.extended_card(), -32007)


@scenario(extended)
async def extensions_activated_and_echoed(t: Adapter) -> None:
    params = {"message": t.message("hi"), "configuration": {"blocking": True}}
    task = await t.send(params, headers={"X-A2A-Extensions": f"https://unknown/x, {PASSPORT}"})
    assert texts(task["artifacts"][0]["parts"]) == [PASSPORT]
    t.note("echo", t.headers.get("x-a2a-extensions"))
    assert t.headers.get("x-a2a-extensions") == PASSPORT


@scenario(strict)
async def extensions_required(t: Adapter) -> None:
    params = {"message": t.message("hi"), "configuration": {"blocking": True}}
    refused = await t.send(params)
    assert is_error(refused, -32600)
    assert refused["error"]["data"] == {"requiredExtensions": [PASSPORT]}
    done = await t.send(
        {"message": t.message("hi"), "configuration": {"blocking": True}},
        headers={"X-A2A-Extensions": PASSPORT},
    )
    assert done["status"]["state"] == "completed"


# --- the test ----------------------------------------------------------------------------------


async def run_over(
    make_client: Any, adapter: type[Adapter], case: Scenario
) -> list[tuple[str, Any]]:
    async with make_client(
        case.agent, push_notifications=case.push_notifications, **case.settings
    ) as (client, _app):
        transport = adapter(client)
        try:
            await case.run(transport)
        except AssertionError as failure:
            raise AssertionError(f"over {transport.name}: {failure}") from failure
        return transport.transcript


@pytest.mark.parametrize("case", SCENARIOS, ids=[case.name for case in SCENARIOS])
async def test_same_results_over_jsonrpc_and_rest(make_client: Any, case: Scenario) -> None:
    over_jsonrpc = canonical(await run_over(make_client, JsonRpc, case))
    over_rest = canonical(await run_over(make_client, Rest, case))
    assert [label for label, _ in over_rest] == [label for label, _ in over_jsonrpc]
    for index, ((label, expected), (_, got)) in enumerate(
        zip(over_jsonrpc, over_rest, strict=True)
    ):
        assert got == expected, f"step {index} ({label}) differs between JSON-RPC and REST"


def test_every_method_of_the_table_is_covered() -> None:
    """§3.5.6: each method of the mapping table is called by some scenario."""
    methods = {
        "send",  # message/send, POST /v1/message:send
        "stream",  # message/stream, POST /v1/message:stream
        "get",  # tasks/get, GET /v1/tasks/{id}
        "list",  # tasks/list, GET /v1/tasks
        "cancel",  # tasks/cancel, POST /v1/tasks/{id}:cancel
        "resubscribe",  # tasks/resubscribe, GET|POST /v1/tasks/{id}:subscribe
        "push_set",  # tasks/pushNotificationConfig/set, POST .../pushNotificationConfigs
        "push_get",  # .../get, GET .../pushNotificationConfigs/{configId}
        "push_list",  # .../list, GET .../pushNotificationConfigs
        "push_delete",  # .../delete, DELETE .../pushNotificationConfigs/{configId}
        "extended_card",  # agent/getAuthenticatedExtendedCard, GET /v1/card
    }
    called = set().union(*(case.run.__code__.co_names for case in SCENARIOS))
    assert methods <= called, methods - called
