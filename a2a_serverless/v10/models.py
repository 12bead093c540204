"""A2A v1.0 request objects, as msgspec Structs (ProtoJSON of the v1.0 a2a.proto).

The internal requests are 1.0's (`models.py`): a request whose form is the same is decoded
straight into its internal model (`ProtoJSON(model)`, which reads the proto names too). Only
what differs is declared here: the message and its parts, the send request that carries them,
and ListTasksRequest (1.0's enum names, an RFC 3339 time); `convert.py` turns them into the
internal models, and writes responses from the internal models straight to v1.0 JSON.

Names are the proto's json names (camelCase); enums are their names (`ROLE_USER`,
`TASK_STATE_WORKING`); JSON `null` counts as a field left out, as ProtoJSON has it; unknown
fields are ignored. A field may also be sent under its proto name (`message_id`,
`history_length`): ProtoJSON parsers accept both, and the official SDKs' servers do. A
`ValidationError` names the v1.0 field (`message.parts.0`), so a v1.0 client reads its own
field names in `-32602` errors.
"""

from __future__ import annotations

import functools
import types
import typing
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, Self, TypeVar

import msgspec
from msgspec import Meta

from .. import codec
from ..models import A2AModel, Int64, NonNegative, SendMessageConfiguration
from ..models import TaskState as InternalState

# 1.0's names of the internal enums: the one table each direction is read from (convert.py),
# and what a request may name (the Literals below are built from it).
ROLES: dict[str, str] = {"user": "ROLE_USER", "agent": "ROLE_AGENT"}
STATES: dict[InternalState, str] = {
    InternalState.SUBMITTED: "TASK_STATE_SUBMITTED",
    InternalState.WORKING: "TASK_STATE_WORKING",
    InternalState.COMPLETED: "TASK_STATE_COMPLETED",
    InternalState.FAILED: "TASK_STATE_FAILED",
    InternalState.CANCELED: "TASK_STATE_CANCELED",
    InternalState.INPUT_REQUIRED: "TASK_STATE_INPUT_REQUIRED",
    InternalState.REJECTED: "TASK_STATE_REJECTED",
    InternalState.AUTH_REQUIRED: "TASK_STATE_AUTH_REQUIRED",
    # The proto3 default, never a value a request filters by.
    InternalState.UNKNOWN: "TASK_STATE_UNSPECIFIED",
}
UNSPECIFIED = STATES[InternalState.UNKNOWN]

if TYPE_CHECKING:
    Role = str
    TaskState = str
else:
    Role = Literal[tuple(ROLES.values())]
    TaskState = Literal[tuple(name for name in STATES.values() if name != UNSPECIFIED)]
PageSize = Annotated[int, Meta(ge=1, le=100)]


_M = TypeVar("_M", bound=A2AModel)


class ProtoModel(A2AModel):
    """A v1.0 request object: read from ProtoJSON, where each field may come under its json
    name or its proto name."""

    @classmethod
    def model_validate(cls, obj: object) -> Self:
        return codec.convert(_json_names(cls, obj), cls)


class ProtoJSON(Generic[_M]):
    """The reader of an internal model from 1.0's ProtoJSON, where each field (at any depth)
    may come under its json name or its proto name: a method's params type."""

    def __init__(self, model: type[_M]) -> None:
        self.model = model

    def model_validate(self, obj: object) -> _M:
        return codec.convert(_json_names(self.model, obj), self.model)


# How a value of a field is walked to rename its fields: a Struct's fields (`(struct, None)`),
# or a list's items (`(None, how each item is walked)`); None where there is nothing to rename.
_Walk = tuple[type[A2AModel] | None, "_Walk | None"]


def _json_names(tp: type[A2AModel], value: Any) -> Any:
    """`value` with the proto names of `tp`'s fields (at any depth) renamed to their json names;
    a field given under both keeps its json name's value. Maps and free-form JSON (`metadata`,
    a part's `data`) are left as they are, as are values of another shape than their field's
    (converting refuses them)."""
    return _walked((tp, None), value)


def _walked(walk: _Walk, value: Any) -> Any:
    struct, item = walk
    if struct is None:
        assert item is not None
        return [_walked(item, v) for v in value] if isinstance(value, list) else value
    if not isinstance(value, dict):
        return value
    aliases, children = _plan(struct)
    renamed: dict[str, Any] = {}
    for key, field_value in value.items():
        name = aliases.get(key) or key
        if name != key and name in value:
            continue
        child = children.get(name)
        renamed[name] = field_value if child is None else _walked(child, field_value)
    return renamed


@functools.cache
def _plan(struct: type[A2AModel]) -> tuple[dict[str, str], dict[str, _Walk]]:
    """`struct`'s proto names -> json names, and per json name how its value is walked (the
    field types read once per Struct, not per request)."""
    fields = msgspec.structs.fields(struct)
    aliases = {f.name: f.encode_name for f in fields if f.name != f.encode_name}
    children: dict[str, _Walk] = {}
    for f in fields:
        walk = _walk_of(f.type)
        if walk is not None:
            children[f.encode_name] = walk
    return aliases, children


def _walk_of(tp: Any) -> _Walk | None:
    tp = _unwrap(tp)
    if typing.get_origin(tp) is list:
        item = _walk_of(typing.get_args(tp)[0])
        return None if item is None else (None, item)
    if isinstance(tp, type) and issubclass(tp, A2AModel):
        return (tp, None)
    return None


def _unwrap(tp: Any) -> Any:
    """`tp` without Annotated and `| None`."""
    while True:
        origin = typing.get_origin(tp)
        if origin is Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(args) != 1:
                return tp
            tp = args[0]
        else:
            return tp


class Part(ProtoModel):
    """One piece of content: exactly one of `text`, `raw` (base64), `url` or `data` (any JSON
    value, `null` included, which is why `data` is told apart from absent by UNSET)."""

    text: str | None = None
    raw: str | None = None
    url: str | None = None
    data: Any = msgspec.UNSET
    metadata: dict[str, Any] | None = None
    filename: str | None = None
    media_type: str | None = None

    def __post_init__(self) -> None:
        present = [
            name
            for name, value in (("text", self.text), ("raw", self.raw), ("url", self.url))
            if value is not None
        ]
        if self.data is not msgspec.UNSET:
            present.append("data")
        if len(present) != 1:
            found = ", ".join(present) or "none"
            raise ValueError(f"must have exactly one of text, raw, url and data (found {found})")


class Message(ProtoModel):
    message_id: Annotated[str, Meta(min_length=1)]
    role: Role
    parts: Annotated[list[Part], Meta(min_length=1)]
    context_id: str | None = None
    task_id: str | None = None
    metadata: dict[str, Any] | None = None
    extensions: list[str] | None = None
    reference_task_ids: list[str] | None = None


class SendMessageRequest(ProtoModel):
    message: Message
    # The internal model's: 1.0 decodes it straight.
    configuration: SendMessageConfiguration | None = None
    metadata: dict[str, Any] | None = None
    tenant: str | None = None


class ListTasksRequest(ProtoModel):
    context_id: str | None = None
    status: TaskState | None = None
    page_size: PageSize | None = None
    page_token: str | None = None
    history_length: NonNegative | None = None
    # RFC 3339 (google.protobuf.Timestamp in ProtoJSON); checked by convert.py.
    status_timestamp_after: str | None = None
    include_artifacts: bool | None = None
    tenant: str | None = None


__all__ = [
    "Int64",
    "ListTasksRequest",
    "Message",
    "Part",
    "ProtoJSON",
    "SendMessageRequest",
]
