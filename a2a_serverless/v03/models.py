"""A2A 0.3's HTTP+JSON bodies, as msgspec Structs (the proto JSON of 0.3's a2a.proto).

What the 0.3 HTTP+JSON binding reads, requests on the server and answers in the client, is
decoded into these by `read` and turned into the internal model (`models.py`, 0.3's JSON-RPC
form) by `convert.py`, which also writes the internal model as proto JSON. The form is the
proto3 JSON mapping of the messages of a2a.proto as the official a2a-sdk 0.3.26 sends and parses
them (`google.protobuf.json_format` over its `a2a.grpc.a2a_pb2`); how it differs from the
JSON-RPC form is `convert.py`'s docstring.

Reading follows proto3 JSON, so every field is optional here (what the internal model requires
it checks after the conversion, naming the field as over JSON-RPC): a field may come under its
json name (`contextId`) or its proto field name (`context_id`) but not both at once (as
protobuf's own parser refuses them); JSON `null` is a field left out; enum values may be names
or numbers (JSON numbers, or strings of ASCII digits) and integers JSON strings of digits (both
read by `convert.py`); unknown fields are ignored, as a forward-compatible parser does. Where
a2a.proto and the SDK's `a2a_pb2` name a field differently both names are read (a message's
`content` is a2a.proto's `parts`; the SDK's `msg` and `request` are `message`).

An error names the field by the json names of the path to it, with a message's `content` as
`parts` (its name over JSON-RPC and in a2a.proto): `message.parts.0.text`.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any, ClassVar, TypeVar

import msgspec

from .. import codec
from ..codec import ValidationError
from ..errors import InvalidParamsError
from ..models import TaskState

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

PUSH_CONFIG_COLLECTION = "pushNotificationConfigs"

# An enum value: its name, or its number (a JSON number or a string of digits).
ProtoEnum = str | int | float
# An int32/int64: a JSON number, or a string of digits.
ProtoInt = int | float | str

T = TypeVar("T", bound="ProtoModel")


class ProtoModel(msgspec.Struct, kw_only=True, rename="camel", gc=False):
    """A 0.3 proto JSON object. `aliases`: the other names a field is read under (besides its
    proto field name, the snake_case of its json name), by json name."""

    aliases: ClassVar[dict[str, tuple[str, ...]]] = {}


class FilePart(ProtoModel):
    # Exactly one of these two (convert.py checks it, once the Part's own rule has held).
    file_with_uri: str | None = None
    # A proto `bytes` field holding the UTF-8 of our base64 text (convert.py).
    file_with_bytes: str | None = None
    mime_type: str | None = None
    name: str | None = None


class DataPart(ProtoModel):
    # A google.protobuf.Struct, checked (a JSON object) by convert.py, which names it as the
    # part's `data`, as the JSON-RPC form has it.
    data: Any = None


class Part(ProtoModel):
    text: str | None = None
    file: FilePart | None = None
    data: DataPart | None = None
    metadata: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        kinds = (self.text is not None) + (self.file is not None) + (self.data is not None)
        if kinds != 1:
            raise ValueError("a Part has exactly one of 'text', 'file' or 'data'")


class Message(ProtoModel):
    aliases = {"content": ("parts",)}  # a2a.proto's name

    message_id: str | None = None
    context_id: str | None = None
    task_id: str | None = None
    role: ProtoEnum | None = None
    content: list[Part] | None = None
    metadata: dict[str, Any] | None = None
    extensions: list[str] | None = None
    # Not in the SDK's Message (a2a.proto field 8): read, never written (convert.py).
    reference_task_ids: list[str] | None = None


class TaskStatus(ProtoModel):
    aliases = {"message": ("update",)}  # the proto field name

    state: ProtoEnum | None = None
    message: Message | None = None
    timestamp: str | None = None


class Artifact(ProtoModel):
    artifact_id: str | None = None
    name: str | None = None
    description: str | None = None
    parts: list[Part] | None = None
    metadata: dict[str, Any] | None = None
    extensions: list[str] | None = None


class Task(ProtoModel):
    id: str | None = None
    context_id: str | None = None
    status: TaskStatus | None = None
    artifacts: list[Artifact] | None = None
    history: list[Message] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatusUpdateEvent(ProtoModel):
    task_id: str | None = None
    context_id: str | None = None
    status: TaskStatus | None = None
    final: bool | None = None
    metadata: dict[str, Any] | None = None


class TaskArtifactUpdateEvent(ProtoModel):
    task_id: str | None = None
    context_id: str | None = None
    artifact: Artifact | None = None
    append: bool | None = None
    last_chunk: bool | None = None
    metadata: dict[str, Any] | None = None


class AuthenticationInfo(ProtoModel):
    schemes: list[str] | None = None
    credentials: str | None = None


class PushNotificationConfig(ProtoModel):
    id: str | None = None
    url: str | None = None
    token: str | None = None
    authentication: AuthenticationInfo | None = None


class TaskPushNotificationConfig(ProtoModel):
    # `tasks/{taskId}/pushNotificationConfigs/{configId}` (or `tasks/{taskId}`).
    name: str | None = None
    push_notification_config: PushNotificationConfig | None = None


class CreateTaskPushNotificationConfigRequest(ProtoModel):
    """What the SDK sends to POST .../pushNotificationConfigs."""

    parent: str | None = None
    config_id: str | None = None
    config: TaskPushNotificationConfig | None = None


class SendMessageConfiguration(ProtoModel):
    accepted_output_modes: list[str] | None = None
    push_notification: PushNotificationConfig | None = None
    history_length: ProtoInt | None = None
    blocking: bool | None = None


class SendMessageRequest(ProtoModel):
    aliases = {"message": ("request",)}  # the proto field name

    message: Message | None = None
    configuration: SendMessageConfiguration | None = None
    metadata: dict[str, Any] | None = None


class TaskRequest(ProtoModel):
    """A CancelTaskRequest or TaskSubscriptionRequest body: `tasks/{id}`, or nothing."""

    name: str | None = None


class SendMessageResponse(ProtoModel):
    aliases = {"message": ("msg",)}  # the proto field name

    task: Task | None = None
    message: Message | None = None

    def __post_init__(self) -> None:
        if (self.task is None) == (self.message is None):
            raise ValueError("a SendMessageResponse has exactly one of 'task' or 'message'")


class StreamResponse(ProtoModel):
    aliases = {"message": ("msg",)}  # the proto field name

    task: Task | None = None
    message: Message | None = None
    status_update: TaskStatusUpdateEvent | None = None
    artifact_update: TaskArtifactUpdateEvent | None = None

    def __post_init__(self) -> None:
        present = (self.task, self.message, self.status_update, self.artifact_update)
        if sum(item is not None for item in present) != 1:
            raise ValueError(
                "a StreamResponse has exactly one of 'task', 'message', 'statusUpdate', "
                "'artifactUpdate'"
            )


class ListTasksResponse(ProtoModel):
    tasks: list[Task] | None = None
    total_size: ProtoInt | None = None
    page_size: ProtoInt | None = None
    next_page_token: str | None = None


class ListTaskPushNotificationConfigResponse(ProtoModel):
    configs: list[TaskPushNotificationConfig] | None = None


# --- reading ------------------------------------------------------------------------------------


def read(tp: type[T], value: Any, at: str) -> T:
    """A client's proto JSON `value` as `tp`; an `InvalidParamsError` naming the field (under
    `at`, the path of `value` itself) if it cannot be read."""
    try:
        # The common case first, in one pass in C: json names only, nothing unknown (what the
        # SDK's clients send). A body with proto names or unknown fields, or one that does not
        # fit, is read again below: renamed, then converted and refused with its field named.
        return msgspec.convert(value, _strict(tp))  # type: ignore[return-value]
    except msgspec.ValidationError:
        pass
    try:
        return codec.convert(_json_names(tp, value), tp)
    except ValidationError as exc:
        loc = [_FIELD_NAMES.get(step, step) if isinstance(step, str) else step for step in exc.loc]
        raise invalid(".".join([at, *map(str, loc)] if at else map(str, loc)), exc.msg) from None


def invalid(field: str, message: str) -> InvalidParamsError:
    """The refusal of a value the mapping cannot read, naming its field."""
    return InvalidParamsError(data={"errors": [{"field": field or "body", "message": message}]})


# The json name of a field in an error, where it is not its wire name.
_FIELD_NAMES = {"content": "parts"}


@functools.cache
def _strict(tp: type[ProtoModel]) -> type[ProtoModel]:
    """`tp` refusing unknown fields (at any depth): a value it takes needs no renaming."""
    namespace: dict[str, Any] = {"__annotations__": {}}
    for field in msgspec.structs.fields(tp):
        namespace["__annotations__"][field.name] = _strict_type(field.type)
        namespace[field.name] = field.default
    return types.new_class(
        tp.__name__, (tp,), {"forbid_unknown_fields": True}, lambda ns: ns.update(namespace)
    )


def _strict_type(tp: Any) -> Any:
    struct, is_list = _holds(tp)
    if struct is None:
        return tp
    strict = _strict(struct)
    return (list[strict] if is_list else strict) | None  # type: ignore[valid-type]


def _json_names(tp: type[ProtoModel], value: Any) -> Any:
    """`value` with the other names of `tp`'s fields (at any depth) renamed to their json
    names; a field given under two names is refused. Free-form JSON is left as it is."""
    if not isinstance(value, dict):
        return value
    names, fields = _plan(tp)
    renamed: dict[str, Any] = {}
    for key, field_value in value.items():
        name = names.get(key)
        if name is None:
            continue  # unknown: ignored
        if name != key and name in value:
            # Named by its json name alone, as it has always been.
            raise invalid(name, f"give '{name}' or '{key}', not both")
        struct, is_list = fields[name]
        if struct is not None:
            if is_list and isinstance(field_value, list):
                field_value = [_json_names(struct, item) for item in field_value]
            elif not is_list:
                field_value = _json_names(struct, field_value)
        renamed[name] = field_value
    return renamed


@functools.cache
def _plan(
    struct: type[ProtoModel],
) -> tuple[dict[str, str], dict[str, tuple[type[ProtoModel] | None, bool]]]:
    """Every name a field of `struct` is read under -> its json name; and per json name, the
    Struct it holds (or a list of), if any."""
    names: dict[str, str] = {}
    fields: dict[str, tuple[type[ProtoModel] | None, bool]] = {}
    for field in msgspec.structs.fields(struct):
        fields[field.encode_name] = _holds(field.type)
        for name in (field.encode_name, field.name, *struct.aliases.get(field.encode_name, ())):
            names[name] = field.encode_name
    return names, fields


def _holds(tp: Any) -> tuple[type[ProtoModel] | None, bool]:
    """The Struct a field's type holds (or None), and whether as a list of them."""
    tp = _unwrap(tp)
    is_list = typing.get_origin(tp) is list
    if is_list:
        tp = typing.get_args(tp)[0]
    if isinstance(tp, type) and issubclass(tp, ProtoModel):
        return tp, is_list
    return None, False


def _unwrap(tp: Any) -> Any:
    """`tp` without `| None`."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return tp
