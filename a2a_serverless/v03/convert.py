"""A2A 0.3's HTTP+JSON (proto JSON, `v03/models.py`) <-> the internal model (`models.py`).

The 0.3 HTTP+JSON binding speaks the proto3 JSON mapping of 0.3's a2a.proto. `*_in` functions
take bodies read into `v03/models.py`'s Structs and return internal models, checked as over
JSON-RPC (a `-32602` names the field: a message's parts are `message.parts.0`): each reader
writes 0.3's JSON-RPC form, which is checked as that (`jsonrpc_models.py` for parts, messages,
tasks and events, `jsonrpc_params.py` for requests and push configs, so a refusal names the
same field as over JSON-RPC) and converted by `jsonrpc_convert.py` and `jsonrpc_params.py`
(push configs: `schemes` <-> one `scheme`, as there), so both bindings read one way. `*_out`
functions take internal models and return proto JSON values (dicts ready to encode). The server
reads requests and writes results with them, the client (client/wire.py) the other way round.

Mapping, in 0.3's JSON-RPC terms (`jsonrpc_convert.py` maps those to the internal model's) ->
proto JSON (a2a.proto as the SDK has it):

- `kind` on Task, Message, parts and events: not written; which field is set says the kind.
- TextPart `{kind: "text", text, metadata}` -> Part `{text, metadata}` (internal: a Part's
  `text`).
- FilePart `{kind: "file", file: {uri | bytes, mimeType, name}, metadata}` ->
  Part `{file: {fileWithUri | fileWithBytes, mimeType, name}, metadata}` (bytes: see below;
  internal: a Part's `url` or `raw`, `media_type`, `filename`).
- DataPart `{kind: "data", data, metadata}` -> Part `{data: {data: <object>}, metadata}` (the
  DataPart message wraps its Struct; internal: a Part's `data`, which when it is no object goes
  as `{"value": <it>}` with `metadata.data_part_compat`, as over JSON-RPC).
- Message `{messageId, contextId, taskId, role, parts, metadata, extensions}` ->
  `{messageId, contextId, taskId, role, content, metadata, extensions}`; role "user" / "agent"
  -> "ROLE_USER" / "ROLE_AGENT".
- TaskState "submitted", "input-required", ... -> "TASK_STATE_SUBMITTED",
  "TASK_STATE_INPUT_REQUIRED", ...; "canceled" -> "TASK_STATE_CANCELLED" (two Ls);
  "unknown" -> "TASK_STATE_UNSPECIFIED" (the tables are `v03/models.py`'s).
- TaskStatus `{state, message, timestamp}` -> the same names (proto field name of `message`:
  `update`); timestamp as a google.protobuf.Timestamp, RFC 3339 in UTC with a "Z".
- Task, Artifact, TaskStatusUpdateEvent, TaskArtifactUpdateEvent, PushNotificationConfig,
  AuthenticationInfo: the same field names.
- TaskPushNotificationConfig `{taskId, pushNotificationConfig}` ->
  `{name: "tasks/{taskId}/pushNotificationConfigs/{id}", pushNotificationConfig}`.
- SendMessageConfiguration: `taskPushNotificationConfig` is called `pushNotification`, and
  `returnImmediately` is `blocking` inverted.
- MessageSendParams `{message, configuration, metadata}` -> SendMessageRequest, same names
  (proto field name of `message`: `request`).
- message/send's result, a Task or a Message -> SendMessageResponse `{task}` or `{message}`
  (`message` is the json_name of field `msg`; "msg" is read too).
- A stream result (Task, Message, status or artifact update) -> StreamResponse `{task}`,
  `{message}`, `{statusUpdate}` or `{artifactUpdate}`.
- ListTasksResult `{tasks, totalSize, pageSize, nextPageToken}` -> ListTasksResponse with the
  same names (see the notes on pageSize).
- A push config list -> ListTaskPushNotificationConfigResponse `{configs}`.
- `metadata` and DataPart `data` (JSON objects) -> google.protobuf.Struct: the same object.

Reading (`v03/models.py` says how a body is read): optional strings are absent when empty
(proto3 strings have no presence: `"taskId": ""` does not name a task); a TaskStatus without a
state is "unknown", a status update without `final` is not final, an artifact without parts has
none.

Writing leaves out what the internal model leaves out and writes everything else, including
`false` and empty lists (`"artifacts": []` where `tasks/list` asked for artifacts, `"final":
false`, `"nextPageToken": ""`): proto3 parsers accept explicit defaults, and so the conversion
loses nothing but what is listed below.

Where a2a.proto (spec/a2a.proto) and the SDK's `a2a_pb2` disagree, the SDK wins, for interop:

- Message parts are `content` (a2a.proto: `parts`). `parts` is read too.
- Message `referenceTaskIds` is not in the SDK's Message, and its parser rejects unknown fields,
  so writing it would make a 0.3 client fail on the whole Task: it is NOT written (the one field
  the HTTP+JSON form loses), and it is read when a client sends it (a2a.proto field 8).
- `FilePart.fileWithBytes` is a proto `bytes` field, which proto JSON writes as base64. Our
  `file.bytes` is already the base64 text of the content; the SDK puts the UTF-8 of that text
  into the proto field, so on the wire it is base64 of base64. We do the same both ways, so an
  SDK client round-trips `file.bytes` unchanged.
- `AgentCapabilities.stateTransitionHistory` is not in the SDK's proto either; the card is never
  sent as proto JSON (GET /v1/card answers with 0.3's JSON card, `card.py`'s, which is what
  the 0.3.26 client reads there, with pydantic), so nothing is lost.

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
from typing import Any, TypeVar

from .. import models as m
from ..codec import ValidationError
from ..errors import invalid_params_from_validation
from . import jsonrpc_convert
from . import jsonrpc_models as objects
from . import jsonrpc_params as rpc
from . import models as v03
from .models import PUSH_CONFIG_COLLECTION, ROLE_NUMBERS, ROLES, STATE_NUMBERS, STATES, invalid

JSON = dict[str, Any]
_M = TypeVar("_M")

_STATE_NAMES = {name: state for state, name in STATES.items()}
_ROLE_NAMES = {name: role for role, name in ROLES.items()}


# --- task states and resource names (also used for query parameters) --------------------------


def state_out(state: m.TaskState) -> str:
    return STATES[state]


def state_in(value: Any, at: str) -> m.TaskState:
    """A TaskState from its proto enum name or number."""
    if isinstance(value, str) and value in _STATE_NAMES:
        return _STATE_NAMES[value]
    number = _enum_number(value)
    if number in STATE_NUMBERS:
        return STATE_NUMBERS[number]
    raise invalid(at, f"not a TaskState: {value!r} (expected e.g. 'TASK_STATE_WORKING')")


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
        raise invalid(at, f"not a task resource name (tasks/{{id}}): {name!r}")
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
    raise invalid(
        at, f"not a push config resource name (tasks/{{id}}/{PUSH_CONFIG_COLLECTION}/{{configId}})"
    )


# --- internal -> proto JSON ---------------------------------------------------------------------


def part_out(part: m.Part) -> JSON:
    # The part as 0.3's JSON-RPC writes it (the data_part_compat convention included), in proto
    # JSON.
    rpc = jsonrpc_convert.part_out(part)
    out: JSON
    if part.text is not None:
        out = {"text": part.text}
    elif part.raw is not None or part.url is not None:
        file = rpc["file"]
        proto_file: JSON
        if part.url is not None:
            proto_file = {"fileWithUri": part.url}
        else:
            # The SDK's double base64 (see the module docstring).
            proto_file = {"fileWithBytes": base64.b64encode(file["bytes"].encode()).decode()}
        if part.media_type is not None:
            proto_file["mimeType"] = part.media_type
        if part.filename is not None:
            proto_file["name"] = part.filename
        out = {"file": proto_file}
    else:
        out = {"data": {"data": rpc["data"]}}
    if "metadata" in rpc:
        out["metadata"] = rpc["metadata"]
    return out


def message_out(message: m.Message) -> JSON:
    out: JSON = {"messageId": message.message_id}
    if message.context_id is not None:
        out["contextId"] = message.context_id
    if message.task_id is not None:
        out["taskId"] = message.task_id
    out["role"] = ROLES[message.role]
    out["content"] = [part_out(p) for p in message.parts]
    # referenceTaskIds is not written: see the module docstring.
    if message.metadata is not None:
        out["metadata"] = message.metadata
    if message.extensions is not None:
        out["extensions"] = message.extensions
    return out


def status_out(status: m.TaskStatus) -> JSON:
    out: JSON = {"state": STATES[status.state]}
    if status.message is not None:
        out["message"] = message_out(status.message)
    timestamp = timestamp_out(status.timestamp)
    if timestamp is not None:
        out["timestamp"] = timestamp
    return out


def artifact_out(artifact: m.Artifact) -> JSON:
    out: JSON = {"artifactId": artifact.artifact_id}
    if artifact.name is not None:
        out["name"] = artifact.name
    if artifact.description is not None:
        out["description"] = artifact.description
    out["parts"] = [part_out(p) for p in artifact.parts]
    if artifact.metadata is not None:
        out["metadata"] = artifact.metadata
    if artifact.extensions is not None:
        out["extensions"] = artifact.extensions
    return out


def task_out(task: m.Task) -> JSON:
    out: JSON = {"id": task.id, "contextId": task.context_id, "status": status_out(task.status)}
    if task.artifacts is not None:
        out["artifacts"] = [artifact_out(a) for a in task.artifacts]
    if task.history is not None:
        out["history"] = [message_out(h) for h in task.history]
    if task.metadata is not None:
        out["metadata"] = task.metadata
    return out


def status_update_out(event: m.TaskStatusUpdateEvent) -> JSON:
    out: JSON = {
        "taskId": event.task_id,
        "contextId": event.context_id,
        "status": status_out(event.status),
        # 0.3's `final`, from the state as every status's (the internal event's is the same).
        "final": event.status.state.ends_stream,
    }
    if event.metadata is not None:
        out["metadata"] = event.metadata
    return out


def artifact_update_out(event: m.TaskArtifactUpdateEvent) -> JSON:
    out: JSON = {
        "taskId": event.task_id,
        "contextId": event.context_id,
        "artifact": artifact_out(event.artifact),
    }
    if event.append is not None:
        out["append"] = event.append
    if event.last_chunk is not None:
        out["lastChunk"] = event.last_chunk
    if event.metadata is not None:
        out["metadata"] = event.metadata
    return out


def push_config_out(config: m.TaskPushNotificationConfig) -> JSON:
    """PushNotificationConfig (the config without its task): one scheme is a list of one."""
    out: JSON = {}
    if config.id is not None:
        out["id"] = config.id
    out["url"] = config.url
    if config.token is not None:
        out["token"] = config.token
    auth = config.authentication
    if auth is not None:
        out["authentication"] = {"schemes": [auth.scheme] if auth.scheme else []}
        if auth.credentials is not None:
            out["authentication"]["credentials"] = auth.credentials
    return out


def task_push_config_out(config: m.TaskPushNotificationConfig) -> JSON:
    return {
        "name": push_config_name(config.task_id or "", config.id),
        "pushNotificationConfig": push_config_out(config),
    }


def push_config_list_out(configs: list[m.TaskPushNotificationConfig]) -> JSON:
    """ListTaskPushNotificationConfigResponse (no paging: every config, no nextPageToken)."""
    return {"configs": [task_push_config_out(c) for c in configs]}


def send_config_out(config: m.SendMessageConfiguration) -> JSON:
    out: JSON = {}
    if config.accepted_output_modes is not None:
        out["acceptedOutputModes"] = config.accepted_output_modes
    if config.task_push_notification_config is not None:
        out["pushNotification"] = push_config_out(config.task_push_notification_config)
    if config.history_length is not None:
        out["historyLength"] = config.history_length
    if config.return_immediately is not None:
        out["blocking"] = not config.return_immediately
    return out


def send_params_out(params: m.SendMessageRequest) -> JSON:
    out: JSON = {"message": message_out(params.message)}
    if params.configuration is not None:
        out["configuration"] = send_config_out(params.configuration)
    if params.metadata is not None:
        out["metadata"] = params.metadata
    return out


def send_result_out(result: m.Task | m.Message) -> JSON:
    """SendMessageResponse for a Task or a Message."""
    if isinstance(result, m.Message):
        return {"message": message_out(result)}
    return {"task": task_out(result)}


def stream_response(result: m.StreamResult) -> JSON:
    """StreamResponse for one stream result (Task, Message, status or artifact update)."""
    if isinstance(result, m.Task):
        return {"task": task_out(result)}
    if isinstance(result, m.Message):
        return {"message": message_out(result)}
    if isinstance(result, m.TaskStatusUpdateEvent):
        return {"statusUpdate": status_update_out(result)}
    return {"artifactUpdate": artifact_update_out(result)}


def list_result_out(result: m.ListTasksResponse) -> JSON:
    return {
        "tasks": [task_out(t) for t in result.tasks],
        "nextPageToken": result.next_page_token,
        "pageSize": result.page_size,
        "totalSize": result.total_size,
    }


def timestamp_out(value: str | None) -> str | None:
    """An ISO 8601 string as a proto Timestamp (RFC 3339, UTC, "Z"); None if it is not one."""
    if value is None:
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


# --- proto JSON -> internal ---------------------------------------------------------------------
#
# Each reader writes 0.3's JSON-RPC form; the public `*_in` functions check it as its object
# (`jsonrpc_models.py`) and convert that to the internal model (`_checked`), so a field the
# JSON-RPC form requires is refused as over JSON-RPC.


def part_in(part: v03.Part, at: str = "part") -> m.Part:
    return _checked(m.Part, _part(part, at), at)


def message_in(message: v03.Message, at: str = "message") -> m.Message:
    return _checked(m.Message, _message(message, at), at)


def status_in(status: v03.TaskStatus, at: str = "status") -> m.TaskStatus:
    return _checked(m.TaskStatus, _status(status, at), at)


def artifact_in(artifact: v03.Artifact, at: str = "artifact") -> m.Artifact:
    return _checked(m.Artifact, _artifact(artifact, at), at)


def task_in(task: v03.Task, at: str = "task") -> m.Task:
    return _checked(m.Task, _task(task, at), at)


def status_update_in(
    event: v03.TaskStatusUpdateEvent, at: str = "statusUpdate"
) -> m.TaskStatusUpdateEvent:
    return _checked(m.TaskStatusUpdateEvent, _status_update(event, at), at)


def artifact_update_in(
    event: v03.TaskArtifactUpdateEvent, at: str = "artifactUpdate"
) -> m.TaskArtifactUpdateEvent:
    return _checked(m.TaskArtifactUpdateEvent, _artifact_update(event, at), at)


def push_config_in(
    config: v03.PushNotificationConfig, at: str = "config"
) -> m.TaskPushNotificationConfig:
    """The config without its task (checked as 0.3's JSON-RPC form, so errors read alike)."""
    return rpc.push_config_in(_checked(rpc.PushNotificationConfig, _push_config(config, at), at))


def task_push_config_in(
    config: v03.TaskPushNotificationConfig, at: str = "response", *, task_id: str | None = None
) -> m.TaskPushNotificationConfig:
    """A TaskPushNotificationConfig; `task_id` (from the URL) when the name is left out (a name
    naming another task is refused)."""
    checked = _checked(rpc.TaskPushNotificationConfig, _task_push_config(config, at, task_id), at)
    return rpc.task_push_config_in(checked)


def push_config_list_in(
    response: v03.ListTaskPushNotificationConfigResponse, at: str = "response"
) -> list[m.TaskPushNotificationConfig]:
    configs = response.configs or []
    return [task_push_config_in(c, f"{at}.configs.{i}") for i, c in enumerate(configs)]


def send_config_in(
    config: v03.SendMessageConfiguration, at: str = "configuration"
) -> m.SendMessageConfiguration:
    return rpc.send_config_in(_checked(rpc.MessageSendConfiguration, _send_config(config, at), at))


def send_params_in(request: v03.SendMessageRequest) -> m.SendMessageRequest:
    """SendMessageRequest: the body of POST /v1/message:send and /v1/message:stream."""
    return rpc.send_request_in(_checked(rpc.MessageSendParams, _send_params(request, ""), ""))


def send_result_in(response: v03.SendMessageResponse, at: str = "response") -> m.Task | m.Message:
    if response.task is not None:
        return task_in(response.task, f"{at}.task")
    assert response.message is not None
    return message_in(response.message, f"{at}.message")


def stream_result_in(response: v03.StreamResponse, at: str = "event") -> m.StreamResult:
    if response.task is not None:
        return task_in(response.task, f"{at}.task")
    if response.message is not None:
        return message_in(response.message, f"{at}.message")
    if response.status_update is not None:
        return status_update_in(response.status_update, f"{at}.statusUpdate")
    assert response.artifact_update is not None
    return artifact_update_in(response.artifact_update, f"{at}.artifactUpdate")


def list_result_in(response: v03.ListTasksResponse, at: str = "response") -> m.ListTasksResponse:
    tasks = response.tasks or []
    out: JSON = {"tasks": [_task(t, f"{at}.tasks.{i}") for i, t in enumerate(tasks)]}
    out["totalSize"] = _int(response.total_size or 0, f"{at}.totalSize")
    out["pageSize"] = _int(response.page_size or 0, f"{at}.pageSize")
    out["nextPageToken"] = response.next_page_token or ""
    return rpc.list_result_in(_checked(rpc.ListTasksResult, out, at))


# The internal models whose content 0.3's JSON-RPC form writes in its own shapes: the object the
# readers' JSON is checked as, and its conversion. Any other model is checked as itself.
_JSONRPC_FORMS: dict[Any, tuple[Any, Any]] = {
    m.Part: (objects.Part, jsonrpc_convert.part_in),
    m.Message: (objects.Message, jsonrpc_convert.message_in),
    m.TaskStatus: (objects.TaskStatus, jsonrpc_convert.status_in),
    m.Artifact: (objects.Artifact, jsonrpc_convert.artifact_in),
    m.Task: (objects.Task, jsonrpc_convert.task_in),
    m.TaskStatusUpdateEvent: (objects.TaskStatusUpdateEvent, jsonrpc_convert.stream_result_in),
    m.TaskArtifactUpdateEvent: (objects.TaskArtifactUpdateEvent, jsonrpc_convert.stream_result_in),
}


def _checked(model: type[_M], value: JSON, at: str) -> _M:
    """The internal model of its JSON-RPC form (the value at `at`); invalid params naming the
    field if it is not one."""
    form = _JSONRPC_FORMS.get(model)
    try:
        if form is None:
            return m.validate(model, value)  # type: ignore[no-any-return]
        checked, convert = form
        return convert(m.validate(checked, value))  # type: ignore[no-any-return]
    except ValidationError as exc:
        if not at:
            raise invalid_params_from_validation(exc) from None
        raise invalid(".".join([at, *map(str, exc.loc)]), exc.msg) from None


def _join(at: str, name: str) -> str:
    return f"{at}.{name}" if at else name


def _part(part: v03.Part, at: str) -> JSON:
    out: JSON
    if part.text is not None:
        out = {"kind": "text", "text": part.text}
    elif part.file is not None:
        out = {"kind": "file", "file": _file(part.file, f"{at}.file")}
    else:
        assert part.data is not None
        data = part.data.data
        if data is not None and not isinstance(data, dict):
            raise invalid(f"{at}.data", "must be a JSON object")
        out = {"kind": "data", "data": {} if data is None else data}
    if part.metadata is not None:
        out["metadata"] = part.metadata
    return out


def _file(file: v03.FilePart, at: str) -> JSON:
    if (file.file_with_uri is None) == (file.file_with_bytes is None):
        raise invalid(at, "a FilePart has exactly one of 'fileWithUri' or 'fileWithBytes'")
    out: JSON
    if file.file_with_uri is not None:
        out = {"uri": file.file_with_uri}
    else:
        assert file.file_with_bytes is not None  # checked above
        out = {"bytes": _proto_bytes(file.file_with_bytes, f"{at}.fileWithBytes")}
    if file.mime_type:
        out["mimeType"] = file.mime_type
    if file.name:
        out["name"] = file.name
    return out


def _message(message: v03.Message, at: str) -> JSON:
    out: JSON = {"kind": "message"}
    if message.message_id is not None:
        out["messageId"] = message.message_id
    if message.context_id:
        out["contextId"] = message.context_id
    if message.task_id:
        out["taskId"] = message.task_id
    if message.role is not None:
        out["role"] = _role(message.role, f"{at}.role")
    if message.content is not None:
        out["parts"] = [_part(p, f"{at}.parts.{i}") for i, p in enumerate(message.content)]
    if message.metadata is not None:
        out["metadata"] = message.metadata
    if message.extensions is not None:
        out["extensions"] = message.extensions
    if message.reference_task_ids is not None:
        out["referenceTaskIds"] = message.reference_task_ids
    return out


def _status(status: v03.TaskStatus | None, at: str) -> JSON:
    if status is None:
        return {"state": m.TaskState.UNKNOWN.value}
    state = m.TaskState.UNKNOWN if status.state is None else state_in(status.state, f"{at}.state")
    out: JSON = {"state": state.value}
    if status.message is not None:
        out["message"] = _message(status.message, f"{at}.message")
    if status.timestamp:
        out["timestamp"] = status.timestamp
    return out


def _artifact(artifact: v03.Artifact, at: str) -> JSON:
    out: JSON = {}
    if artifact.artifact_id is not None:
        out["artifactId"] = artifact.artifact_id
    if artifact.name:
        out["name"] = artifact.name
    if artifact.description:
        out["description"] = artifact.description
    parts = artifact.parts or []
    out["parts"] = [_part(p, f"{at}.parts.{i}") for i, p in enumerate(parts)]
    if artifact.metadata is not None:
        out["metadata"] = artifact.metadata
    if artifact.extensions is not None:
        out["extensions"] = artifact.extensions
    return out


def _task(task: v03.Task, at: str) -> JSON:
    out: JSON = {"kind": "task"}
    if task.id is not None:
        out["id"] = task.id
    if task.context_id is not None:
        out["contextId"] = task.context_id
    out["status"] = _status(task.status, f"{at}.status")
    if task.artifacts is not None:
        out["artifacts"] = [
            _artifact(a, f"{at}.artifacts.{i}") for i, a in enumerate(task.artifacts)
        ]
    if task.history is not None:
        out["history"] = [_message(h, f"{at}.history.{i}") for i, h in enumerate(task.history)]
    if task.metadata is not None:
        out["metadata"] = task.metadata
    return out


def _status_update(event: v03.TaskStatusUpdateEvent, at: str) -> JSON:
    out: JSON = {"kind": "status-update"}
    if event.task_id is not None:
        out["taskId"] = event.task_id
    if event.context_id is not None:
        out["contextId"] = event.context_id
    out["status"] = _status(event.status, f"{at}.status")
    out["final"] = bool(event.final)
    if event.metadata is not None:
        out["metadata"] = event.metadata
    return out


def _artifact_update(event: v03.TaskArtifactUpdateEvent, at: str) -> JSON:
    out: JSON = {"kind": "artifact-update"}
    if event.task_id is not None:
        out["taskId"] = event.task_id
    if event.context_id is not None:
        out["contextId"] = event.context_id
    if event.artifact is not None:
        out["artifact"] = _artifact(event.artifact, f"{at}.artifact")
    if event.append is not None:
        out["append"] = event.append
    if event.last_chunk is not None:
        out["lastChunk"] = event.last_chunk
    if event.metadata is not None:
        out["metadata"] = event.metadata
    return out


def _task_push_config(config: v03.TaskPushNotificationConfig, at: str, task_id: str | None) -> JSON:
    named_task: str | None = None
    if config.name:
        named_task, _ = parse_push_config_name(config.name, _join(at, "name"))
    if task_id is not None and named_task is not None and named_task != task_id:
        raise invalid(_join(at, "name"), f"names task {named_task!r}, not task {task_id!r}")
    out: JSON = {}
    owner = task_id or named_task
    if owner is not None:
        out["taskId"] = owner
    inner = config.push_notification_config
    if inner is not None:
        out["pushNotificationConfig"] = _push_config(inner, f"{at}.pushNotificationConfig")
    return out


def _push_config(config: v03.PushNotificationConfig, at: str) -> JSON:
    out: JSON = {}
    if config.id:
        out["id"] = config.id
    if config.url is not None:
        out["url"] = config.url
    if config.token:
        out["token"] = config.token
    auth = config.authentication
    if auth is not None:
        out["authentication"] = {"schemes": auth.schemes or []}
        if auth.credentials:
            out["authentication"]["credentials"] = auth.credentials
    return out


def _send_config(config: v03.SendMessageConfiguration, at: str) -> JSON:
    out: JSON = {}
    if config.accepted_output_modes is not None:
        out["acceptedOutputModes"] = config.accepted_output_modes
    if config.push_notification is not None:
        push = _push_config(config.push_notification, f"{at}.pushNotification")
        out["pushNotificationConfig"] = push
    if config.history_length is not None:
        out["historyLength"] = _int(config.history_length, f"{at}.historyLength")
    if config.blocking is not None:
        out["blocking"] = config.blocking
    return out


def _send_params(request: v03.SendMessageRequest, at: str) -> JSON:
    out: JSON = {}
    if request.message is not None:
        out["message"] = _message(request.message, _join(at, "message"))
    if request.configuration is not None:
        out["configuration"] = _send_config(request.configuration, _join(at, "configuration"))
    if request.metadata is not None:
        out["metadata"] = request.metadata
    return out


# --- values -------------------------------------------------------------------------------------

_INTEGER_TEXT = re.compile(r"-?[0-9]{1,20}")


def _int(value: v03.ProtoInt, at: str) -> int:
    """An int32/int64 field: a JSON integer, or a string of one (proto JSON allows both)."""
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value):
        return int(value)
    raise invalid(at, "must be an integer")


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


def _role(value: v03.ProtoEnum, at: str) -> str:
    if isinstance(value, str) and value in _ROLE_NAMES:
        return _ROLE_NAMES[value]
    number = _enum_number(value)
    if number in ROLE_NUMBERS:
        return ROLE_NUMBERS[number]
    raise invalid(at, f"not a Role: {value!r} (expected 'ROLE_USER' or 'ROLE_AGENT')")


def _proto_bytes(text: str, at: str) -> str:
    """A proto `bytes` value (standard or URL-safe base64) holding UTF-8 text: that text."""
    try:
        raw = base64.b64decode(
            text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4), validate=True
        )
        return raw.decode("utf-8")
    except (binascii.Error, ValueError):
        raise invalid(at, "must be base64 (of the base64 text of the file's bytes)") from None
