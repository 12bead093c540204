"""The client's wire forms: each A2A operation as an HTTP request, and its answer read back into
the kit's models, for the four interfaces (A2A 0.3 and 1.0, each over JSON-RPC and HTTP+JSON).

The server's codecs, used the other way round: the kit's models (`models.py`) are what the
client's callers give and get; A2A 1.0 is translated at this edge (the server's `v10/convert.py`
writes our requests in 1.0, and reads a 1.0 message, part or push config; what the server
never reads, a 1.0 Task or event, is read here), A2A 0.3's HTTP+JSON is `v03/convert.py`
over `v03/models.py`'s Structs.
This module is the only one of the client that imports the version codecs (and 1.0's error
reasons, `CODE_BY_REASON`).

Each `Wire` builds a `WireRequest` (verb, path under the interface URL, query, JSON body,
headers) for an operation and reads its result: `result(op, json)` for a plain answer,
`event(json)` for one stream event. Error bodies are `errors.py`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import quote

from msgspec.structs import replace

from .. import models as m
from ..codec import ValidationError
from ..errors import A2AError, InvalidAgentResponseError
from ..v03 import convert as v03convert
from ..v03 import jsonrpc_convert as v03json
from ..v03 import jsonrpc_models as v03objects
from ..v03 import jsonrpc_params as v03rpc
from ..v03 import models as v03models
from ..v10 import convert as v1convert
from ..v10 import models as v1models
from ..v10.errors import REASONS

# A 1.0 error's ErrorInfo reason -> its code (`errors.py` reads error bodies with it).
CODE_BY_REASON = {reason: code for code, reason in REASONS.items()}

Version = Literal["0.3", "1.0"]
Binding = Literal["JSONRPC", "HTTP+JSON"]
VERSION_HEADER = "A2A-Version"

# The operations, by the kit's own names; each wire knows its method name or route.
Operation = Literal[
    "send",
    "stream",
    "get",
    "list",
    "cancel",
    "subscribe",
    "push_set",
    "push_get",
    "push_list",
    "push_delete",
    "extended_card",
]
STREAMING: frozenset[str] = frozenset({"stream", "subscribe"})

JSONRPC_03 = {
    "send": "message/send",
    "stream": "message/stream",
    "get": "tasks/get",
    "list": "tasks/list",
    "cancel": "tasks/cancel",
    "subscribe": "tasks/resubscribe",
    "push_set": "tasks/pushNotificationConfig/set",
    "push_get": "tasks/pushNotificationConfig/get",
    "push_list": "tasks/pushNotificationConfig/list",
    "push_delete": "tasks/pushNotificationConfig/delete",
    "extended_card": "agent/getAuthenticatedExtendedCard",
}
JSONRPC_10 = {
    "send": "SendMessage",
    "stream": "SendStreamingMessage",
    "get": "GetTask",
    "list": "ListTasks",
    "cancel": "CancelTask",
    "subscribe": "SubscribeToTask",
    "push_set": "CreateTaskPushNotificationConfig",
    "push_get": "GetTaskPushNotificationConfig",
    "push_list": "ListTaskPushNotificationConfigs",
    "push_delete": "DeleteTaskPushNotificationConfig",
    "extended_card": "GetExtendedAgentCard",
}


@dataclass(frozen=True, slots=True)
class Call:
    """One operation's arguments, in the kit's models (whichever of them it takes)."""

    op: Operation
    send: m.SendMessageRequest | None = None
    task_id: str = ""
    history_length: int | None = None
    config_id: str | None = None
    push: m.TaskPushNotificationConfig | None = None
    list_params: m.ListTasksRequest | None = None


@dataclass(slots=True)
class WireRequest:
    method: str
    # Under the interface URL ("" for JSON-RPC, "/v1/message:send", "/tasks/x", ...).
    path: str
    json: Any = None
    query: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


class Wire(Protocol):
    version: Version
    binding: Binding

    def request(self, call: Call, request_id: str) -> WireRequest: ...

    def result(self, op: Operation, body: Any) -> Any:
        """The operation's result read from its answer's JSON (a JSON-RPC `result`, or a REST
        body); raises InvalidAgentResponseError for an answer of the wrong shape."""
        ...

    def event(self, body: Any) -> m.StreamResult: ...


def wire_for(version: Version, binding: Binding) -> Wire:
    if binding == "JSONRPC":
        return JsonRpc(version)
    return Rest03() if version == "0.3" else Rest10()


def bad_response(what: str, exc: Exception | str) -> InvalidAgentResponseError:
    return InvalidAgentResponseError(f"The agent's {what} is not what A2A says: {exc}")


def _read(what: str, tp: Any, value: Any) -> Any:
    """`value` checked as `tp` (a model or a union of them); the caller names the type."""
    try:
        return m.validate(tp, value)
    except (ValidationError, A2AError, TypeError, ValueError) as exc:
        raise bad_response(what, exc) from None


# --- A2A 0.3 -------------------------------------------------------------------------------------


def _params_03(call: Call) -> dict[str, Any]:
    op = call.op
    if op in ("send", "stream"):
        assert call.send is not None
        return v03rpc.send_request_out(call.send).model_dump()
    if op == "get":
        params: dict[str, Any] = {"id": call.task_id}
        if call.history_length is not None:
            params["historyLength"] = call.history_length
        return params
    if op in ("cancel", "subscribe", "push_list"):
        return {"id": call.task_id}
    if op == "push_set":
        assert call.push is not None
        return v03rpc.TaskPushNotificationConfig(
            task_id=call.task_id, push_notification_config=v03rpc.push_config_out(call.push)
        ).model_dump()
    if op in ("push_get", "push_delete"):
        params = {"id": call.task_id}
        if call.config_id is not None:
            params["pushNotificationConfigId"] = call.config_id
        return params
    if op == "list":
        return v03rpc.list_tasks_out(call.list_params or m.ListTasksRequest()).model_dump()
    return {}


def _result_03(op: Operation, value: Any) -> Any:
    if op == "send":
        result = _read("message/send result", v03objects.Task | v03objects.Message, value)
        return v03json.stream_result_in(result)
    if op in ("get", "cancel"):
        return v03json.task_in(_read("task", v03objects.Task, value))
    if op == "list":
        return v03rpc.list_result_in(_read("task list", v03rpc.ListTasksResult, value))
    if op in ("push_set", "push_get"):
        config = _read("push config", v03rpc.TaskPushNotificationConfig, value)
        return v03rpc.task_push_config_in(config)
    if op == "push_list":
        configs = _read("push config list", list[v03rpc.TaskPushNotificationConfig], value)
        return [v03rpc.task_push_config_in(config) for config in configs]
    if op == "extended_card":
        if not isinstance(value, dict):
            raise bad_response("extended card", "not a JSON object")
        return value
    return None


def _task_path(task_id: str) -> str:
    return "/tasks/" + quote(task_id, safe="")


class Rest03:
    """A2A 0.3's HTTP+JSON: routes under `/v1/`, bodies in proto JSON."""

    version: Version = "0.3"
    binding: Binding = "HTTP+JSON"

    def request(self, call: Call, request_id: str) -> WireRequest:
        op = call.op
        task = "/v1" + _task_path(call.task_id)
        configs = f"{task}/pushNotificationConfigs"
        if op in ("send", "stream"):
            assert call.send is not None
            # proto3's `blocking` left out is false; ours left out is true.
            send_config = call.send.configuration or m.SendMessageConfiguration()
            if send_config.return_immediately is None:
                send_config = send_config.model_copy(update={"return_immediately": False})
            params = call.send.model_copy(update={"configuration": send_config})
            verb = "message:send" if op == "send" else "message:stream"
            return WireRequest("POST", f"/v1/{verb}", v03convert.send_params_out(params))
        if op == "get":
            query = {}
            if call.history_length is not None:
                query["historyLength"] = str(call.history_length)
            return WireRequest("GET", task, query=query)
        if op == "cancel":
            return WireRequest(
                "POST", f"{task}:cancel", {"name": v03convert.task_name(call.task_id)}
            )
        if op == "subscribe":
            return WireRequest("GET", f"{task}:subscribe")
        if op == "list":
            return WireRequest("GET", "/v1/tasks", query=_list_query(call.list_params, "0.3"))
        if op == "push_set":
            assert call.push is not None
            config = v03convert.task_push_config_out(replace(call.push, task_id=call.task_id))
            body = {"parent": v03convert.task_name(call.task_id), "config": config}
            if call.push.id:
                body["configId"] = call.push.id
            return WireRequest("POST", configs, body)
        if op == "push_list":
            return WireRequest("GET", configs)
        if op in ("push_get", "push_delete"):
            path = f"{configs}/{quote(call.config_id or call.task_id, safe='')}"
            return WireRequest("GET" if op == "push_get" else "DELETE", path)
        return WireRequest("GET", "/v1/card")

    def result(self, op: Operation, body: Any) -> Any:
        try:
            if op == "send":
                response = v03models.read(v03models.SendMessageResponse, body, "response")
                return v03convert.send_result_in(response)
            if op in ("get", "cancel"):
                return v03convert.task_in(v03models.read(v03models.Task, body, "task"))
            if op == "list":
                tasks = v03models.read(v03models.ListTasksResponse, body, "response")
                return v03convert.list_result_in(tasks)
            if op in ("push_set", "push_get"):
                config = v03models.read(v03models.TaskPushNotificationConfig, body, "response")
                return v03convert.task_push_config_in(config)
            if op == "push_list":
                configs = v03models.read(
                    v03models.ListTaskPushNotificationConfigResponse, body, "response"
                )
                return v03convert.push_config_list_in(configs)
        except A2AError as exc:
            raise bad_response(f"{op} answer", _first_error(exc)) from None
        return _result_03(op, body)

    def event(self, body: Any) -> m.StreamResult:
        try:
            event = v03models.read(v03models.StreamResponse, body, "event")
            return v03convert.stream_result_in(event)
        except A2AError as exc:
            raise bad_response("stream event", _first_error(exc)) from None


def _first_error(exc: A2AError) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    errors = data.get("errors") or [{}]
    first = errors[0] if isinstance(errors[0], dict) else {}
    return f"{first.get('field', '')}: {first.get('message', exc.message)}"


def _list_query(params: m.ListTasksRequest | None, version: Version) -> dict[str, str]:
    if params is None:
        return {}
    query: dict[str, str] = {}
    if params.context_id:
        query["contextId"] = params.context_id
    if params.status is not None:
        # The enum names differ: 0.3's proto spells TASK_STATE_CANCELLED.
        query["status"] = (
            v03convert.state_out(params.status)
            if version == "0.3"
            else v1convert.state_out(params.status)
        )
    for name, number in (
        ("pageSize", params.page_size),
        ("historyLength", params.history_length),
    ):
        if number is not None:
            query[name] = str(number)
    if params.page_token:
        query["pageToken"] = params.page_token
    if params.include_artifacts is not None:
        query["includeArtifacts"] = "true" if params.include_artifacts else "false"
    after_ms = params.status_timestamp_after_ms
    if after_ms is not None:
        if version == "0.3":
            query["lastUpdatedAfter"] = str(after_ms)
        else:
            query["statusTimestampAfter"] = _rfc3339(after_ms)
    return query


def _rfc3339(epoch_ms: int) -> str:
    from datetime import UTC, datetime

    moment = datetime.fromtimestamp(epoch_ms / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- A2A 1.0 -------------------------------------------------------------------------------------


def send_request_10(params: m.SendMessageRequest) -> dict[str, Any]:
    """A `SendMessageRequest` in 1.0 JSON."""
    out: dict[str, Any] = {"message": v1convert.message_out(params.message)}
    config = params.configuration
    if config is not None:
        v1config: dict[str, Any] = {}
        if config.accepted_output_modes:
            v1config["acceptedOutputModes"] = config.accepted_output_modes
        if config.history_length is not None:
            v1config["historyLength"] = config.history_length
        if config.return_immediately:
            v1config["returnImmediately"] = True
        if config.task_push_notification_config is not None:
            v1config["taskPushNotificationConfig"] = _push_config_10(
                "", config.task_push_notification_config
            )
        if v1config:
            out["configuration"] = v1config
    if params.metadata is not None:
        out["metadata"] = params.metadata
    return out


def _push_config_10(task_id: str, config: m.TaskPushNotificationConfig) -> dict[str, Any]:
    out = v1convert.push_config_out(replace(config, task_id=task_id))
    if not task_id:
        del out["taskId"]
    return out


def _params_10(call: Call) -> dict[str, Any]:
    op = call.op
    if op in ("send", "stream"):
        assert call.send is not None
        return send_request_10(call.send)
    if op == "get":
        params: dict[str, Any] = {"id": call.task_id}
        if call.history_length is not None:
            params["historyLength"] = call.history_length
        return params
    if op in ("cancel", "subscribe"):
        return {"id": call.task_id}
    if op == "push_list":
        return {"taskId": call.task_id}
    if op in ("push_get", "push_delete"):
        return {"taskId": call.task_id, "id": call.config_id or call.task_id}
    if op == "push_set":
        assert call.push is not None
        return _push_config_10(call.task_id, call.push)
    if op == "list":
        params = _list_query(call.list_params, "1.0")
        typed: dict[str, Any] = dict(params)
        for name in ("pageSize", "historyLength"):
            if name in typed:
                typed[name] = int(typed[name])
        if "includeArtifacts" in typed:
            typed["includeArtifacts"] = typed["includeArtifacts"] == "true"
        return typed
    return {}


def _v1_part(value: Any, at: str) -> m.Part:
    part = _read_v1(at, v1models.Part, value)
    return v1convert.part_in(part, at)


def _read_v1(what: str, tp: Any, value: Any) -> Any:
    try:
        return tp.model_validate(value)
    except (ValidationError, A2AError, TypeError, ValueError) as exc:
        raise bad_response(what, exc) from None


def message_10(value: Any, at: str = "message") -> m.Message:
    message = _read_v1(at, v1models.Message, value)
    try:
        return v1convert.message_in(message, at)
    except A2AError as exc:
        raise bad_response(at, _first_error(exc)) from None


def _object(value: Any, at: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise bad_response(at, "not a JSON object")
    return value


def _state_10(value: Any, at: str) -> m.TaskState:
    try:
        return v1convert.state_in(value)
    except (KeyError, TypeError):
        raise bad_response(at, f"not a 1.0 TaskState: {value!r}") from None


def status_10(value: Any, at: str) -> m.TaskStatus:
    status = _object(value, at)
    message = status.get("message")
    return m.TaskStatus(
        state=_state_10(status.get("state"), f"{at}.state"),
        message=None if message is None else message_10(message, f"{at}.message"),
        timestamp=status.get("timestamp"),
    )


def artifact_10(value: Any, at: str) -> m.Artifact:
    artifact = _object(value, at)
    parts = artifact.get("parts") or []
    read: m.Artifact = _read(
        at,
        m.Artifact,
        {
            **{k: v for k, v in artifact.items() if k != "parts"},
            "parts": [
                _v1_part(p, f"{at}.parts.{i}").model_dump()
                for i, p in enumerate(parts if isinstance(parts, list) else [])
            ],
        },
    )
    return read


def task_10(value: Any, at: str = "task") -> m.Task:
    task = _object(value, at)
    history = task.get("history")
    artifacts = task.get("artifacts")
    read: m.Task = _read(
        at,
        m.Task,
        {
            "id": task.get("id"),
            "contextId": task.get("contextId") or "",
            "status": status_10(task.get("status"), f"{at}.status").model_dump(),
            **(
                {"history": [message_10(x, f"{at}.history").model_dump() for x in history]}
                if isinstance(history, list)
                else {}
            ),
            **(
                {"artifacts": [artifact_10(x, f"{at}.artifacts").model_dump() for x in artifacts]}
                if isinstance(artifacts, list)
                else {}
            ),
            **({"metadata": task["metadata"]} if task.get("metadata") is not None else {}),
        },
    )
    return read


def event_10(value: Any) -> m.StreamResult:
    response = _object(value, "StreamResponse")
    keys = [k for k in ("task", "message", "statusUpdate", "artifactUpdate") if k in response]
    if len(keys) != 1:
        raise bad_response("stream event", "a StreamResponse has exactly one of its fields")
    key = keys[0]
    item = response[key]
    if key == "task":
        return task_10(item)
    if key == "message":
        return message_10(item)
    event = _object(item, key)
    common = {
        "taskId": event.get("taskId"),
        "contextId": event.get("contextId") or "",
        **({"metadata": event["metadata"]} if event.get("metadata") is not None else {}),
    }
    if key == "statusUpdate":
        status = status_10(event.get("status"), f"{key}.status")
        status_update: m.TaskStatusUpdateEvent = _read(
            key, m.TaskStatusUpdateEvent, {**common, "status": status.model_dump()}
        )
        return status_update
    artifact = artifact_10(event.get("artifact"), f"{key}.artifact")
    extra = {k: event[k] for k in ("append", "lastChunk") if event.get(k) is not None}
    update: m.TaskArtifactUpdateEvent = _read(
        key, m.TaskArtifactUpdateEvent, {**common, "artifact": artifact.model_dump(), **extra}
    )
    return update


def push_config_10(value: Any, at: str = "push config") -> m.TaskPushNotificationConfig:
    config = _read_v1(at, v1models.ProtoJSON(m.TaskPushNotificationConfig), value)
    return v1convert.push_config_in(config)


def _result_10(op: Operation, value: Any) -> Any:
    if op == "send":
        response = _object(value, "SendMessageResponse")
        if "task" in response:
            return task_10(response["task"])
        if "message" in response:
            return message_10(response["message"])
        raise bad_response("SendMessageResponse", "has neither 'task' nor 'message'")
    if op in ("get", "cancel"):
        return task_10(value)
    if op == "list":
        response = _object(value, "ListTasksResponse")
        tasks = response.get("tasks") or []
        return m.ListTasksResponse(
            tasks=[task_10(t, f"tasks.{i}") for i, t in enumerate(tasks)],
            next_page_token=str(response.get("nextPageToken") or ""),
            page_size=int(response.get("pageSize") or 0),
            total_size=int(response.get("totalSize") or 0),
        )
    if op in ("push_set", "push_get"):
        return push_config_10(value)
    if op == "push_list":
        response = _object(value, "ListTaskPushNotificationConfigsResponse")
        return [push_config_10(c) for c in response.get("configs") or []]
    if op == "extended_card":
        return _object(value, "extended card")
    return None


class JsonRpc:
    """Either version over JSON-RPC: one envelope, the version's method names and params (1.0
    also says its version in the `A2A-Version` header)."""

    binding: Binding = "JSONRPC"

    def __init__(self, version: Version) -> None:
        self.version = version
        self._methods = JSONRPC_10 if version == "1.0" else JSONRPC_03
        self._params = _params_10 if version == "1.0" else _params_03
        self._result = _result_10 if version == "1.0" else _result_03

    def request(self, call: Call, request_id: str) -> WireRequest:
        body = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": self._methods[call.op],
            "params": self._params(call),
        }
        headers = {VERSION_HEADER: "1.0"} if self.version == "1.0" else {}
        return WireRequest("POST", "", body, headers=headers)

    def result(self, op: Operation, body: Any) -> Any:
        return self._result(op, body)

    def event(self, body: Any) -> m.StreamResult:
        if self.version == "1.0":
            return event_10(body)
        return v03json.stream_result_in(_read("stream event", v03objects.StreamResult, body))


class Rest10:
    """A2A 1.0's HTTP+JSON: routes at the interface URL, bodies in 1.0 JSON."""

    version: Version = "1.0"
    binding: Binding = "HTTP+JSON"

    def request(self, call: Call, request_id: str) -> WireRequest:
        op = call.op
        headers = {VERSION_HEADER: "1.0"}
        task = _task_path(call.task_id)
        configs = f"{task}/pushNotificationConfigs"
        if op in ("send", "stream"):
            verb = "message:send" if op == "send" else "message:stream"
            return WireRequest("POST", f"/{verb}", _params_10(call), headers=headers)
        if op == "get":
            query = {}
            if call.history_length is not None:
                query["historyLength"] = str(call.history_length)
            return WireRequest("GET", task, query=query, headers=headers)
        if op == "cancel":
            return WireRequest("POST", f"{task}:cancel", {}, headers=headers)
        if op == "subscribe":
            return WireRequest("GET", f"{task}:subscribe", headers=headers)
        if op == "list":
            query = _list_query(call.list_params, "1.0")
            return WireRequest("GET", "/tasks", query=query, headers=headers)
        if op == "push_set":
            return WireRequest("POST", configs, _params_10(call), headers=headers)
        if op == "push_list":
            return WireRequest("GET", configs, headers=headers)
        if op in ("push_get", "push_delete"):
            path = f"{configs}/{quote(call.config_id or call.task_id, safe='')}"
            verb = "GET" if op == "push_get" else "DELETE"
            return WireRequest(verb, path, headers=headers)
        return WireRequest("GET", "/extendedAgentCard", headers=headers)

    def result(self, op: Operation, body: Any) -> Any:
        return _result_10(op, body)

    def event(self, body: Any) -> m.StreamResult:
        return event_10(body)
