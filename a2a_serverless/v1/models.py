"""A2A v1.0 request objects, as msgspec Structs (ProtoJSON of the v1.0 a2a.proto).

Only what clients send is declared here: requests are decoded into these, checked, and turned
into the internal (v0.3) models by `convert.py`; responses are written from the internal models
straight to v1.0 JSON there too. Names are the proto's json names (camelCase); enums are their
names (`ROLE_USER`, `TASK_STATE_WORKING`); JSON `null` counts as a field left out, as ProtoJSON
has it; unknown fields are ignored. A `ValidationError` names the v1.0 field
(`message.parts.0`), so a v1.0 client reads its own field names in `-32602` errors.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from ..models import A2AModel, Int64, NonNegative

Role = Literal["ROLE_USER", "ROLE_AGENT"]
TaskState = Literal[
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_AUTH_REQUIRED",
]
PageSize = Annotated[int, Meta(ge=1, le=100)]


class Part(A2AModel):
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


class Message(A2AModel):
    message_id: Annotated[str, Meta(min_length=1)]
    role: Role
    parts: Annotated[list[Part], Meta(min_length=1)]
    context_id: str | None = None
    task_id: str | None = None
    metadata: dict[str, Any] | None = None
    extensions: list[str] | None = None
    reference_task_ids: list[str] | None = None


class AuthenticationInfo(A2AModel):
    scheme: str
    credentials: str | None = None


class TaskPushNotificationConfig(A2AModel):
    url: str
    id: str | None = None
    task_id: str | None = None
    token: str | None = None
    authentication: AuthenticationInfo | None = None
    tenant: str | None = None


class SendMessageConfiguration(A2AModel):
    accepted_output_modes: list[str] | None = None
    task_push_notification_config: TaskPushNotificationConfig | None = None
    history_length: NonNegative | None = None
    return_immediately: bool | None = None


class SendMessageRequest(A2AModel):
    message: Message
    configuration: SendMessageConfiguration | None = None
    metadata: dict[str, Any] | None = None
    tenant: str | None = None


class GetTaskRequest(A2AModel):
    id: str
    history_length: NonNegative | None = None
    tenant: str | None = None


class CancelTaskRequest(A2AModel):
    id: str
    metadata: dict[str, Any] | None = None
    tenant: str | None = None


class SubscribeToTaskRequest(A2AModel):
    id: str
    tenant: str | None = None


class ListTasksRequest(A2AModel):
    context_id: str | None = None
    status: TaskState | None = None
    page_size: PageSize | None = None
    page_token: str | None = None
    history_length: NonNegative | None = None
    # RFC 3339 (google.protobuf.Timestamp in ProtoJSON); checked by convert.py.
    status_timestamp_after: str | None = None
    include_artifacts: bool | None = None
    tenant: str | None = None


class GetTaskPushNotificationConfigRequest(A2AModel):
    task_id: str
    id: str
    tenant: str | None = None


DeleteTaskPushNotificationConfigRequest = GetTaskPushNotificationConfigRequest


class ListTaskPushNotificationConfigsRequest(A2AModel):
    task_id: str
    page_size: Annotated[int, Meta(ge=0, le=100)] | None = None
    page_token: str | None = None
    tenant: str | None = None


class GetExtendedAgentCardRequest(A2AModel):
    tenant: str | None = None


__all__ = [
    "AuthenticationInfo",
    "CancelTaskRequest",
    "DeleteTaskPushNotificationConfigRequest",
    "GetExtendedAgentCardRequest",
    "GetTaskPushNotificationConfigRequest",
    "GetTaskRequest",
    "Int64",
    "ListTaskPushNotificationConfigsRequest",
    "ListTasksRequest",
    "Message",
    "Part",
    "SendMessageConfiguration",
    "SendMessageRequest",
    "SubscribeToTaskRequest",
    "TaskPushNotificationConfig",
]
