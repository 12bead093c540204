"""Proto-JSON, the HTTP+JSON/REST transport's wire form, to and from our JSON-RPC wire form.

The REST transport (spec §3.2.3) speaks the proto3 JSON mapping of the messages in a2a.proto, as
the official a2a-sdk 0.3.26 sends and parses them (`google.protobuf.json_format` over its
`a2a.grpc.a2a_pb2`). Everything else in this package speaks the JSON-RPC wire form: the wire
models of `models.py` and their `dump()`. The functions here translate between the two, on plain
JSON values, written by hand so that the package needs no protobuf at run time.

- `to_*` functions take our JSON form (as `Model.model_dump()` returns it: camelCase names, `kind`
  discriminators, absent optionals left out) and return proto JSON. They trust their input.
- `from_*` functions take proto JSON from a client and return our JSON form, ready for the
  models' `model_validate` (which still checks everything the models constrain). They raise
  `InvalidParamsError` with `data.errors = [{field, message}]` (the spec's §9.5 shape) for
  anything the mapping itself cannot read.

Mapping, ours (models.py) -> proto JSON (a2a.proto as the SDK has it):

- `kind` on Task, Message, parts and events: not written; which field is set says the kind.
- TextPart `{kind: "text", text, metadata}` -> Part `{text, metadata}`.
- FilePart `{kind: "file", file: {uri | bytes, mimeType, name}, metadata}` ->
  Part `{file: {fileWithUri | fileWithBytes, mimeType, name}, metadata}` (bytes: see below).
- DataPart `{kind: "data", data, metadata}` -> Part `{data: {data: <object>}, metadata}` (the
  DataPart message wraps its Struct).
- Message `{messageId, contextId, taskId, role, parts, metadata, extensions}` ->
  `{messageId, contextId, taskId, role, content, metadata, extensions}`; role "user" / "agent"
  -> "ROLE_USER" / "ROLE_AGENT".
- TaskState "submitted", "input-required", ... -> "TASK_STATE_SUBMITTED",
  "TASK_STATE_INPUT_REQUIRED", ...; "canceled" -> "TASK_STATE_CANCELLED" (two Ls);
  "unknown" -> "TASK_STATE_UNSPECIFIED".
- TaskStatus `{state, message, timestamp}` -> the same names (proto field name of `message`:
  `update`); timestamp as a google.protobuf.Timestamp, RFC 3339 in UTC with a "Z".
- Task, Artifact, TaskStatusUpdateEvent, TaskArtifactUpdateEvent, PushNotificationConfig,
  AuthenticationInfo: the same field names.
- TaskPushNotificationConfig `{taskId, pushNotificationConfig}` ->
  `{name: "tasks/{taskId}/pushNotificationConfigs/{id}", pushNotificationConfig}`.
- MessageSendConfiguration -> SendMessageConfiguration, where `pushNotificationConfig` is
  called `pushNotification`.
- MessageSendParams `{message, configuration, metadata}` -> SendMessageRequest, same names
  (proto field name of `message`: `request`).
- message/send's result, a Task or a Message -> SendMessageResponse `{task}` or `{message}`
  (`message` is the json_name of field `msg`; "msg" is read too).
- A stream result (Task, Message, status or artifact update) -> StreamResponse `{task}`,
  `{message}`, `{statusUpdate}` or `{artifactUpdate}`.
- ListTasksResult `{tasks, totalSize, pageSize, nextPageToken}` -> ListTasksResponse with the
  same names (see the notes on pageSize).
- A push config list (a JSON array) -> ListTaskPushNotificationConfigResponse `{configs}`.
- `metadata` and DataPart `data` (JSON objects) -> google.protobuf.Struct: the same object.

Reading follows proto3 JSON: both the lowerCamelCase json names and the original proto field
names are accepted (`contextId` / `context_id`, `message` / `update`, …) but not both at once
(as protobuf's own parser refuses them), JSON `null` is the same as a field left out, enum
values may be names or numbers (JSON numbers, or strings of ASCII digits), integers may be JSON
strings of ASCII digits with an optional `-`, and unknown fields are ignored (as a
forward-compatible parser does; the models keep ours).
Optional strings of an object a client sends are absent when empty (proto3 strings have no
presence: `"taskId": ""` does not name a task).

Writing leaves out what our form leaves out and writes everything else, including `false` and
empty lists (`"artifacts": []` where `tasks/list` asked for artifacts, `"final": false`,
`"nextPageToken": ""`): proto3 parsers accept explicit defaults, and so the conversion loses
nothing but what is listed below.

Where a2a.proto (spec/a2a.proto) and the SDK's `a2a_pb2` disagree, the SDK wins, for interop:

- Message parts are `content` (a2a.proto: `parts`). `parts` is read too.
- Message `referenceTaskIds` is not in the SDK's Message, and its parser rejects unknown fields,
  so writing it would make a 0.3 client fail on the whole Task: it is NOT written (the one field
  the REST form loses), and it is read when a client sends it (a2a.proto field 8).
- `FilePart.fileWithBytes` is a proto `bytes` field, which proto JSON writes as base64. Our
  `file.bytes` is already the base64 text of the content; the SDK puts the UTF-8 of that text
  into the proto field, so on the wire it is base64 of base64. We do the same both ways, so an
  SDK client round-trips `file.bytes` unchanged.
- `AgentCapabilities.stateTransitionHistory` is not in the SDK's proto either; the card is never
  sent as proto JSON (GET /v1/card answers with our JSON card, which is what the 0.3.26 client
  reads there, with pydantic), so nothing is lost.

Other notes:

- ListTasksResponse in the 0.3 a2a.proto has no `pageSize`; we write it anyway, as ListTasksResult
  in the JSON schema (and the later A2A 1.0 proto) has it. No 0.3 SDK reads this response.
- Timestamps: ours are ISO 8601 strings; written as RFC 3339 in UTC with a "Z" (which proto
  Timestamp parsers require); one without a zone is taken as UTC and a string that is not a
  date-time at all is left out rather than breaking a client's parser. Read back as given.
- A TaskPushNotificationConfig whose config has no id (the service always gives it one) is named
  after its task alone, `tasks/{taskId}`.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import UTC, datetime
from typing import Any

from ..errors import InvalidParamsError
from ..models import TaskState
from ..sentinel import Sentinel

JSON = dict[str, Any]

# 0.3's proto names of the internal enums: the one table each direction is read from (and the
# OpenAPI document's lists). 0.3's a2a.proto spells CANCELLED with two Ls.
STATES: dict[TaskState, str] = {
    TaskState.SUBMITTED: "TASK_STATE_SUBMITTED",
    TaskState.WORKING: "TASK_STATE_WORKING",
    TaskState.INPUT_REQUIRED: "TASK_STATE_INPUT_REQUIRED",
    TaskState.COMPLETED: "TASK_STATE_COMPLETED",
    TaskState.CANCELED: "TASK_STATE_CANCELLED",
    TaskState.FAILED: "TASK_STATE_FAILED",
    TaskState.REJECTED: "TASK_STATE_REJECTED",
    TaskState.AUTH_REQUIRED: "TASK_STATE_AUTH_REQUIRED",
    TaskState.UNKNOWN: "TASK_STATE_UNSPECIFIED",
}
# The proto enum's numbers, which proto JSON parsers accept in place of names.
STATE_NUMBERS: dict[int, TaskState] = {
    0: TaskState.UNKNOWN,
    1: TaskState.SUBMITTED,
    2: TaskState.WORKING,
    3: TaskState.COMPLETED,
    4: TaskState.FAILED,
    5: TaskState.CANCELED,
    6: TaskState.INPUT_REQUIRED,
    7: TaskState.REJECTED,
    8: TaskState.AUTH_REQUIRED,
}
ROLES = {"user": "ROLE_USER", "agent": "ROLE_AGENT"}
ROLE_NUMBERS = {1: "user", 2: "agent"}
_STATE_NAMES = {name: state.value for state, name in STATES.items()}
_ROLE_NAMES = {name: role for role, name in ROLES.items()}

PUSH_CONFIG_COLLECTION = "pushNotificationConfigs"


# A field left out (proto3 JSON reads null as left out, so None cannot say it).
_ABSENT: Any = Sentinel("absent field")


# --- task states and resource names (also used for query parameters) --------------------------


def state_to_proto(state: str) -> str:
    return STATES[TaskState(state)]


def state_from_proto(value: Any, at: str) -> str:
    """A TaskState from its proto enum name or number; our form, e.g. "input-required"."""
    if isinstance(value, str) and value in _STATE_NAMES:
        return _STATE_NAMES[value]
    number = _enum_number(value)
    if number in STATE_NUMBERS:
        return STATE_NUMBERS[number].value
    raise _invalid(at, f"not a TaskState: {value!r} (expected e.g. 'TASK_STATE_WORKING')")


def task_name(task_id: str) -> str:
    return f"tasks/{task_id}"


def push_config_name(task_id: str, config_id: str | None) -> str:
    if config_id is None:
        return task_name(task_id)
    return f"tasks/{task_id}/{PUSH_CONFIG_COLLECTION}/{config_id}"


def parse_task_name(name: str, at: str) -> str:
    """The task id of a `tasks/{id}` resource name."""
    parts = name.split("/")
    if len(parts) != 2 or parts[0] != "tasks" or not parts[1]:
        raise _invalid(at, f"not a task resource name (tasks/{{id}}): {name!r}")
    return parts[1]


def parse_push_config_name(name: str, at: str) -> tuple[str, str | None]:
    """(task id, config id) of `tasks/{id}/pushNotificationConfigs/{configId}` or `tasks/{id}`."""
    parts = name.split("/")
    if len(parts) == 2:
        return parse_task_name(name, at), None
    if (
        len(parts) == 4
        and parts[0] == "tasks"
        and parts[2] == PUSH_CONFIG_COLLECTION
        and parts[1]
        and parts[3]
    ):
        return parts[1], parts[3]
    raise _invalid(
        at, f"not a push config resource name (tasks/{{id}}/{PUSH_CONFIG_COLLECTION}/{{configId}})"
    )


# --- ours -> proto JSON -------------------------------------------------------------------------


def to_part(part: JSON) -> JSON:
    kind = part.get("kind")
    out: JSON
    if kind == "text":
        out = {"text": part["text"]}
    elif kind == "file":
        file = part["file"]
        proto_file: JSON = {}
        if "uri" in file:
            proto_file["fileWithUri"] = file["uri"]
        else:
            # The SDK's double base64 (see the module docstring).
            proto_file["fileWithBytes"] = base64.b64encode(file["bytes"].encode()).decode()
        _copy(file, proto_file, "mimeType", "name")
        out = {"file": proto_file}
    elif kind == "data":
        out = {"data": {"data": part["data"]}}
    else:
        raise ValueError(f"not a Part: {part!r}")
    _copy(part, out, "metadata")
    return out


def to_message(message: JSON) -> JSON:
    out: JSON = {"messageId": message["messageId"]}
    _copy(message, out, "contextId", "taskId")
    out["role"] = ROLES[message["role"]]
    out["content"] = [to_part(p) for p in message["parts"]]
    # referenceTaskIds is not written: see the module docstring.
    _copy(message, out, "metadata", "extensions")
    return out


def to_task_status(status: JSON) -> JSON:
    out: JSON = {"state": state_to_proto(status["state"])}
    if status.get("message") is not None:
        out["message"] = to_message(status["message"])
    timestamp = to_timestamp(status.get("timestamp"))
    if timestamp is not None:
        out["timestamp"] = timestamp
    return out


def to_artifact(artifact: JSON) -> JSON:
    out: JSON = {"artifactId": artifact["artifactId"]}
    _copy(artifact, out, "name", "description")
    out["parts"] = [to_part(p) for p in artifact["parts"]]
    _copy(artifact, out, "metadata", "extensions")
    return out


def to_task(task: JSON) -> JSON:
    out: JSON = {"id": task["id"], "contextId": task["contextId"]}
    out["status"] = to_task_status(task["status"])
    if task.get("artifacts") is not None:
        out["artifacts"] = [to_artifact(a) for a in task["artifacts"]]
    if task.get("history") is not None:
        out["history"] = [to_message(m) for m in task["history"]]
    _copy(task, out, "metadata")
    return out


def to_status_update(event: JSON) -> JSON:
    out: JSON = {"taskId": event["taskId"], "contextId": event["contextId"]}
    out["status"] = to_task_status(event["status"])
    out["final"] = event["final"]
    _copy(event, out, "metadata")
    return out


def to_artifact_update(event: JSON) -> JSON:
    out: JSON = {"taskId": event["taskId"], "contextId": event["contextId"]}
    out["artifact"] = to_artifact(event["artifact"])
    _copy(event, out, "append", "lastChunk", "metadata")
    return out


def to_auth_info(info: JSON) -> JSON:
    out: JSON = {"schemes": list(info["schemes"])}
    _copy(info, out, "credentials")
    return out


def to_push_config(config: JSON) -> JSON:
    out: JSON = {}
    _copy(config, out, "id")
    out["url"] = config["url"]
    _copy(config, out, "token")
    if config.get("authentication") is not None:
        out["authentication"] = to_auth_info(config["authentication"])
    return out


def to_task_push_config(config: JSON) -> JSON:
    inner = config["pushNotificationConfig"]
    return {
        "name": push_config_name(config["taskId"], inner.get("id")),
        "pushNotificationConfig": to_push_config(inner),
    }


def to_push_config_list(configs: list[JSON]) -> JSON:
    """ListTaskPushNotificationConfigResponse (no paging: every config, no nextPageToken)."""
    return {"configs": [to_task_push_config(c) for c in configs]}


def to_send_config(config: JSON) -> JSON:
    out: JSON = {}
    _copy(config, out, "acceptedOutputModes")
    if config.get("pushNotificationConfig") is not None:
        out["pushNotification"] = to_push_config(config["pushNotificationConfig"])
    _copy(config, out, "historyLength", "blocking")
    return out


def to_send_params(params: JSON) -> JSON:
    out: JSON = {"message": to_message(params["message"])}
    if params.get("configuration") is not None:
        out["configuration"] = to_send_config(params["configuration"])
    _copy(params, out, "metadata")
    return out


def to_send_response(result: JSON) -> JSON:
    """SendMessageResponse for a Task or a Message."""
    if result.get("kind") == "message":
        return {"message": to_message(result)}
    return {"task": to_task(result)}


def to_stream_response(result: JSON) -> JSON:
    """StreamResponse for one stream result (Task, Message, status or artifact update)."""
    kind = result.get("kind")
    if kind == "task":
        return {"task": to_task(result)}
    if kind == "message":
        return {"message": to_message(result)}
    if kind == "status-update":
        return {"statusUpdate": to_status_update(result)}
    if kind == "artifact-update":
        return {"artifactUpdate": to_artifact_update(result)}
    raise ValueError(f"not a stream result: kind {kind!r}")


def to_list_tasks_result(result: JSON) -> JSON:
    return {
        "tasks": [to_task(t) for t in result["tasks"]],
        "nextPageToken": result["nextPageToken"],
        "pageSize": result["pageSize"],
        "totalSize": result["totalSize"],
    }


def to_timestamp(value: Any) -> str | None:
    """An ISO 8601 string as a proto Timestamp (RFC 3339, UTC, "Z"); None if it is not one."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    if moment.microsecond % 1000:
        text = moment.strftime("%Y-%m-%dT%H:%M:%S.%f")
    elif moment.microsecond:
        text = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}"
    else:
        text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    return text + "Z"


# --- proto JSON -> ours -------------------------------------------------------------------------


def from_part(value: Any, at: str) -> JSON:
    part = _object(value, at)
    kinds = [name for name in ("text", "file", "data") if _get(part, name, name) is not _ABSENT]
    if len(kinds) != 1:
        raise _invalid(at, "a Part has exactly one of 'text', 'file' or 'data'")
    out: JSON
    if kinds == ["text"]:
        out = {"kind": "text", "text": _string(part["text"], f"{at}.text")}
    elif kinds == ["file"]:
        out = {"kind": "file", "file": _from_file(part["file"], f"{at}.file")}
    else:
        data = _object(part["data"], f"{at}.data")
        inner = _get(data, "data", "data")
        out = {"kind": "data", "data": {} if inner is _ABSENT else _object(inner, f"{at}.data")}
    _read(part, out, at, ("metadata", "metadata", _struct))
    return out


def _from_file(value: Any, at: str) -> JSON:
    file = _object(value, at)
    uri = _get(file, "fileWithUri", "file_with_uri")
    raw = _get(file, "fileWithBytes", "file_with_bytes")
    if (uri is _ABSENT) == (raw is _ABSENT):
        raise _invalid(at, "a FilePart has exactly one of 'fileWithUri' or 'fileWithBytes'")
    out: JSON = {}
    if uri is not _ABSENT:
        out["uri"] = _string(uri, f"{at}.fileWithUri")
    else:
        out["bytes"] = _proto_bytes(raw, f"{at}.fileWithBytes")
    _read(file, out, at, ("mimeType", "mime_type", _opt_string), ("name", "name", _opt_string))
    return out


def from_message(value: Any, at: str = "message") -> JSON:
    message = _object(value, at)
    out: JSON = {"kind": "message"}
    _read(
        message,
        out,
        at,
        ("messageId", "message_id", _string),
        ("contextId", "context_id", _opt_string),
        ("taskId", "task_id", _opt_string),
    )
    role = _get(message, "role", "role")
    if role is not _ABSENT:
        out["role"] = _role(role, f"{at}.role")
    parts = _get(message, "content", "parts")  # `parts`: a2a.proto's name for the field
    if parts is not _ABSENT:
        out["parts"] = [
            from_part(p, f"{at}.parts.{i}") for i, p in enumerate(_list(parts, f"{at}.parts"))
        ]
    _read(
        message,
        out,
        at,
        ("metadata", "metadata", _struct),
        ("extensions", "extensions", _strings),
        ("referenceTaskIds", "reference_task_ids", _strings),
    )
    return out


def from_task_status(value: Any, at: str) -> JSON:
    status = _object(value, at)
    out: JSON = {}
    state = _get(status, "state", "state")
    out["state"] = "unknown" if state is _ABSENT else state_from_proto(state, f"{at}.state")
    update = _get(status, "message", "update")
    if update is not _ABSENT:
        out["message"] = from_message(update, f"{at}.message")
    _read(status, out, at, ("timestamp", "timestamp", _opt_string))
    return out


def from_artifact(value: Any, at: str) -> JSON:
    artifact = _object(value, at)
    out: JSON = {}
    _read(
        artifact,
        out,
        at,
        ("artifactId", "artifact_id", _string),
        ("name", "name", _opt_string),
        ("description", "description", _opt_string),
    )
    parts = _get(artifact, "parts", "parts")
    out["parts"] = (
        []
        if parts is _ABSENT
        else [from_part(p, f"{at}.parts.{i}") for i, p in enumerate(_list(parts, f"{at}.parts"))]
    )
    _read(
        artifact,
        out,
        at,
        ("metadata", "metadata", _struct),
        ("extensions", "extensions", _strings),
    )
    return out


def from_task(value: Any, at: str = "task") -> JSON:
    task = _object(value, at)
    out: JSON = {"kind": "task"}
    _read(task, out, at, ("id", "id", _string), ("contextId", "context_id", _string))
    out["status"] = from_task_status(_get(task, "status", "status", {}), f"{at}.status")
    artifacts = _get(task, "artifacts", "artifacts")
    if artifacts is not _ABSENT:
        out["artifacts"] = [
            from_artifact(a, f"{at}.artifacts.{i}")
            for i, a in enumerate(_list(artifacts, f"{at}.artifacts"))
        ]
    history = _get(task, "history", "history")
    if history is not _ABSENT:
        out["history"] = [
            from_message(m, f"{at}.history.{i}")
            for i, m in enumerate(_list(history, f"{at}.history"))
        ]
    _read(task, out, at, ("metadata", "metadata", _struct))
    return out


def from_status_update(value: Any, at: str = "statusUpdate") -> JSON:
    event = _object(value, at)
    out: JSON = {"kind": "status-update"}
    _read(event, out, at, ("taskId", "task_id", _string), ("contextId", "context_id", _string))
    out["status"] = from_task_status(_get(event, "status", "status", {}), f"{at}.status")
    final = _get(event, "final", "final")
    out["final"] = False if final is _ABSENT else _bool(final, f"{at}.final")
    _read(event, out, at, ("metadata", "metadata", _struct))
    return out


def from_artifact_update(value: Any, at: str = "artifactUpdate") -> JSON:
    event = _object(value, at)
    out: JSON = {"kind": "artifact-update"}
    _read(event, out, at, ("taskId", "task_id", _string), ("contextId", "context_id", _string))
    artifact = _get(event, "artifact", "artifact")
    if artifact is not _ABSENT:
        out["artifact"] = from_artifact(artifact, f"{at}.artifact")
    _read(
        event,
        out,
        at,
        ("append", "append", _bool),
        ("lastChunk", "last_chunk", _bool),
        ("metadata", "metadata", _struct),
    )
    return out


def from_auth_info(value: Any, at: str) -> JSON:
    info = _object(value, at)
    out: JSON = {}
    schemes = _get(info, "schemes", "schemes")
    out["schemes"] = [] if schemes is _ABSENT else _strings(schemes, f"{at}.schemes")
    _read(info, out, at, ("credentials", "credentials", _opt_string))
    return out


def from_push_config(value: Any, at: str) -> JSON:
    config = _object(value, at)
    out: JSON = {}
    _read(
        config,
        out,
        at,
        ("id", "id", _opt_string),
        ("url", "url", _string),
        ("token", "token", _opt_string),
    )
    auth = _get(config, "authentication", "authentication")
    if auth is not _ABSENT:
        out["authentication"] = from_auth_info(auth, f"{at}.authentication")
    return out


def from_task_push_config(value: Any, at: str, *, task_id: str | None = None) -> JSON:
    """TaskPushNotificationConfig; `task_id` (from the URL) when the name is left out."""
    config = _object(value, at)
    name = _get(config, "name", "name")
    named_task: str | None = None
    if name is not _ABSENT and name != "":
        named_task, _ = parse_push_config_name(_string(name, f"{at}.name"), f"{at}.name")
    if task_id is not None and named_task is not None and named_task != task_id:
        raise _invalid(f"{at}.name", f"names task {named_task!r}, not task {task_id!r}")
    out: JSON = {}
    owner = task_id or named_task
    if owner is not None:
        out["taskId"] = owner
    inner = _get(config, "pushNotificationConfig", "push_notification_config")
    if inner is not _ABSENT:
        out["pushNotificationConfig"] = from_push_config(inner, f"{at}.pushNotificationConfig")
    return out


def from_push_config_list(value: Any, at: str = "response") -> list[JSON]:
    response = _object(value, at)
    configs = _get(response, "configs", "configs", [])
    return [
        from_task_push_config(c, f"{at}.configs.{i}")
        for i, c in enumerate(_list(configs, f"{at}.configs"))
    ]


def from_send_config(value: Any, at: str = "configuration") -> JSON:
    config = _object(value, at)
    out: JSON = {}
    _read(config, out, at, ("acceptedOutputModes", "accepted_output_modes", _strings))
    push = _get(config, "pushNotification", "push_notification")
    if push is not _ABSENT:
        out["pushNotificationConfig"] = from_push_config(push, f"{at}.pushNotification")
    _read(
        config,
        out,
        at,
        ("historyLength", "history_length", _int),
        ("blocking", "blocking", _bool),
    )
    return out


def from_send_params(value: Any, at: str = "") -> JSON:
    """SendMessageRequest: the body of POST /v1/message:send and /v1/message:stream."""
    request = _object(value, at or "body")
    out: JSON = {}
    message = _get(request, "message", "request")
    if message is not _ABSENT:
        out["message"] = from_message(message, _join(at, "message"))
    configuration = _get(request, "configuration", "configuration")
    if configuration is not _ABSENT:
        out["configuration"] = from_send_config(configuration, _join(at, "configuration"))
    _read(request, out, at, ("metadata", "metadata", _struct))
    return out


def from_send_response(value: Any, at: str = "response") -> JSON:
    response = _object(value, at)
    task = _get(response, "task", "task")
    message = _get(response, "message", "msg")
    if (task is _ABSENT) == (message is _ABSENT):
        raise _invalid(at, "a SendMessageResponse has exactly one of 'task' or 'message'")
    if task is not _ABSENT:
        return from_task(task, f"{at}.task")
    return from_message(message, f"{at}.message")


def from_stream_response(value: Any, at: str = "event") -> JSON:
    response = _object(value, at)
    found = [
        (key, item)
        for key, proto_name, read in _STREAM_FIELDS
        if (item := _get(response, key, proto_name)) is not _ABSENT
    ]
    if len(found) != 1:
        names = ", ".join(repr(key) for key, _, _ in _STREAM_FIELDS)
        raise _invalid(at, f"a StreamResponse has exactly one of {names}")
    key, item = found[0]
    read = {k: r for k, _, r in _STREAM_FIELDS}[key]
    result: JSON = read(item, f"{at}.{key}")
    return result


_STREAM_FIELDS: list[tuple[str, str, Any]] = [
    ("task", "task", from_task),
    ("message", "msg", from_message),
    ("statusUpdate", "status_update", from_status_update),
    ("artifactUpdate", "artifact_update", from_artifact_update),
]


def from_list_tasks_result(value: Any, at: str = "response") -> JSON:
    response = _object(value, at)
    tasks = _get(response, "tasks", "tasks", [])
    out: JSON = {
        "tasks": [
            from_task(t, f"{at}.tasks.{i}") for i, t in enumerate(_list(tasks, f"{at}.tasks"))
        ]
    }
    out["totalSize"] = _int(_get(response, "totalSize", "total_size", 0), f"{at}.totalSize")
    out["pageSize"] = _int(_get(response, "pageSize", "page_size", 0), f"{at}.pageSize")
    token = _get(response, "nextPageToken", "next_page_token", "")
    out["nextPageToken"] = _string(token, f"{at}.nextPageToken")
    return out


# --- helpers ------------------------------------------------------------------------------------


def _invalid(field: str, message: str) -> InvalidParamsError:
    return InvalidParamsError(data={"errors": [{"field": field or "body", "message": message}]})


def _join(at: str, name: str) -> str:
    return f"{at}.{name}" if at else name


def _get(obj: JSON, json_name: str, proto_name: str, default: Any = _ABSENT) -> Any:
    """A field by its json name or its proto field name; `default` when absent or null."""
    value = obj.get(json_name)
    if proto_name != json_name and proto_name in obj:
        if json_name in obj:
            raise _invalid(json_name, f"give '{json_name}' or '{proto_name}', not both")
        value = obj[proto_name]
    return default if value is None else value


def _read(obj: JSON, out: JSON, at: str, *fields: tuple[str, str, Any]) -> None:
    """Copy fields that are present, each read by its reader (which may drop it: _ABSENT)."""
    for json_name, proto_name, reader in fields:
        value = _get(obj, json_name, proto_name)
        if value is _ABSENT:
            continue
        value = reader(value, _join(at, json_name))
        if value is not _ABSENT:
            out[json_name] = value


def _copy(source: JSON, out: JSON, *names: str) -> None:
    for name in names:
        if source.get(name) is not None:
            out[name] = source[name]


def _object(value: Any, at: str) -> JSON:
    if not isinstance(value, dict):
        raise _invalid(at, "must be a JSON object")
    return value


def _list(value: Any, at: str) -> list[Any]:
    if not isinstance(value, list):
        raise _invalid(at, "must be a JSON array")
    return value


def _string(value: Any, at: str) -> str:
    if not isinstance(value, str):
        raise _invalid(at, "must be a string")
    return value


def _opt_string(value: Any, at: str) -> Any:
    """An optional string: empty is the same as absent (proto3 strings have no presence)."""
    text = _string(value, at)
    return text if text else _ABSENT


def _strings(value: Any, at: str) -> list[str]:
    return [_string(item, f"{at}.{i}") for i, item in enumerate(_list(value, at))]


def _struct(value: Any, at: str) -> JSON:
    return _object(value, at)


def _bool(value: Any, at: str) -> bool:
    if not isinstance(value, bool):
        raise _invalid(at, "must be true or false")
    return value


_INTEGER_TEXT = re.compile(r"-?[0-9]{1,20}")


def _int(value: Any, at: str) -> int:
    """An int32/int64 field: a JSON integer, or a string of one (proto JSON allows both)."""
    if isinstance(value, bool):
        raise _invalid(at, "must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value):
        return int(value)
    raise _invalid(at, "must be an integer")


def _enum_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**31:
        return int(value)
    # ASCII digits, and few of them: str.isdigit() also takes "²", and int() of thousands of
    # digits raises.
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 9:
        return int(value)
    return None


def _role(value: Any, at: str) -> str:
    if isinstance(value, str) and value in _ROLE_NAMES:
        return _ROLE_NAMES[value]
    number = _enum_number(value)
    if number in ROLE_NUMBERS:
        return ROLE_NUMBERS[number]
    raise _invalid(at, f"not a Role: {value!r} (expected 'ROLE_USER' or 'ROLE_AGENT')")


def _proto_bytes(value: Any, at: str) -> str:
    """A proto `bytes` value (standard or URL-safe base64) holding UTF-8 text: that text."""
    text = _string(value, at)
    try:
        raw = base64.b64decode(
            text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4), validate=True
        )
        return raw.decode("utf-8")
    except (binascii.Error, ValueError):
        raise _invalid(at, "must be base64 (of the base64 text of the file's bytes)") from None
