"""A2A v0.3 protocol objects, as wire models (`wire.py`).

Written by hand from `spec/a2a.json` (not generated): class names are the schema's definition
names, attributes are the snake_case form of the wire's camelCase names, and `kind` fields are
literals with defaults so that building an object in Python never needs to spell them out.

    message = Message(message_id="m-1", role="user", parts=[TextPart(text="hi")])
    params = MessageSendParams.model_validate(request["params"])   # ValidationError if bad
    params.dump()              # {"message": {"kind": "message", "messageId": "m-1", ...}}
    task.model_copy(update={"status": TaskStatus(state=TaskState.WORKING)})

What every model does (details in `wire.py`):
- input is accepted under the wire (camelCase) name or the attribute name, with JSON's types
  strictly (a string is a string, an integer never a bool or a float);
- unknown fields are kept (`model_extra`) and written back, so a newer client's fields survive a
  round trip through our store;
- `dump()` / `dump_json()` serialise: wire names, and absent optional fields left out;
- the unions (`Part`, `StreamResult`, `TaskEventPayload`, `SecurityScheme`) are told apart by
  their `kind` / `type`, which the input must carry; `FileWithBytes | FileWithUri` by which of
  `bytes` / `uri` it has. `wire.validate(StreamResult, obj)` checks a value against a union.

Importing this module costs little on a Lambda cold start (no dependency; declaring a class
only records its fields), and so does a first request: fast checking and dumping code is
generated for a model only once it has been used a few times.
"""

from enum import StrEnum
from typing import Any, Literal

from .wire import ValidationError as ValidationError
from .wire import WireModel, field
from .wire import validate as validate

PROTOCOL_VERSION = "0.3.0"


class A2AModel(WireModel):
    """Base of every protocol object."""


# --- tasks, messages, parts ------------------------------------------------------------------


class TaskState(StrEnum):
    SUBMITTED = "submitted"
    WORKING = "working"
    INPUT_REQUIRED = "input-required"
    COMPLETED = "completed"
    CANCELED = "canceled"
    FAILED = "failed"
    REJECTED = "rejected"
    AUTH_REQUIRED = "auth-required"
    UNKNOWN = "unknown"

    @property
    def is_terminal(self) -> bool:
        return self in TERMINAL_STATES

    @property
    def is_interrupted(self) -> bool:
        """The agent waits for the client: the stream ends, the task goes on with a new message."""
        return self in (TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED)


TERMINAL_STATES = frozenset(
    {TaskState.COMPLETED, TaskState.CANCELED, TaskState.FAILED, TaskState.REJECTED}
)


class TextPart(A2AModel):
    kind: Literal["text"] = "text"
    text: str
    metadata: dict[str, Any] | None = None


class FileWithBytes(A2AModel):
    bytes: str
    mime_type: str | None = None
    name: str | None = None


class FileWithUri(A2AModel):
    uri: str
    mime_type: str | None = None
    name: str | None = None


class FilePart(A2AModel):
    kind: Literal["file"] = "file"
    file: FileWithBytes | FileWithUri
    metadata: dict[str, Any] | None = None


class DataPart(A2AModel):
    kind: Literal["data"] = "data"
    data: dict[str, Any]
    metadata: dict[str, Any] | None = None


Part = TextPart | FilePart | DataPart


class Message(A2AModel):
    kind: Literal["message"] = "message"
    message_id: str
    role: Literal["user", "agent"]
    # The schema allows an empty list; a message that says nothing is a client bug, refused.
    parts: list[Part] = field(min_length=1)
    context_id: str | None = None
    task_id: str | None = None
    reference_task_ids: list[str] | None = None
    extensions: list[str] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatus(A2AModel):
    state: TaskState
    message: Message | None = None
    timestamp: str | None = None


class Artifact(A2AModel):
    artifact_id: str
    parts: list[Part]
    name: str | None = None
    description: str | None = None
    extensions: list[str] | None = None
    metadata: dict[str, Any] | None = None


class Task(A2AModel):
    kind: Literal["task"] = "task"
    id: str
    context_id: str
    status: TaskStatus
    artifacts: list[Artifact] | None = None
    history: list[Message] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatusUpdateEvent(A2AModel):
    kind: Literal["status-update"] = "status-update"
    task_id: str
    context_id: str
    status: TaskStatus
    final: bool
    metadata: dict[str, Any] | None = None


class TaskArtifactUpdateEvent(A2AModel):
    kind: Literal["artifact-update"] = "artifact-update"
    task_id: str
    context_id: str
    artifact: Artifact
    append: bool | None = None
    last_chunk: bool | None = None
    metadata: dict[str, Any] | None = None


TaskEventPayload = TaskStatusUpdateEvent | TaskArtifactUpdateEvent
StreamResult = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent


# --- push notifications ------------------------------------------------------------------------


class PushNotificationAuthenticationInfo(A2AModel):
    schemes: list[str]
    credentials: str | None = None


class PushNotificationConfig(A2AModel):
    url: str
    id: str | None = None
    token: str | None = None
    authentication: PushNotificationAuthenticationInfo | None = None


class TaskPushNotificationConfig(A2AModel):
    task_id: str
    push_notification_config: PushNotificationConfig


# --- method parameters and results -------------------------------------------------------------


class MessageSendConfiguration(A2AModel):
    accepted_output_modes: list[str] | None = None
    blocking: bool | None = None
    history_length: int | None = field(default=None, ge=0)
    push_notification_config: PushNotificationConfig | None = None


class MessageSendParams(A2AModel):
    message: Message
    configuration: MessageSendConfiguration | None = None
    metadata: dict[str, Any] | None = None


class TaskIdParams(A2AModel):
    id: str
    metadata: dict[str, Any] | None = None


class TaskQueryParams(A2AModel):
    id: str
    history_length: int | None = field(default=None, ge=0)
    metadata: dict[str, Any] | None = None


class ListTasksParams(A2AModel):
    context_id: str | None = None
    status: TaskState | None = None
    page_size: int | None = field(default=None, ge=1, le=100)
    page_token: str | None = None
    history_length: int | None = field(default=None, ge=0)
    last_updated_after: int | None = field(default=None, ge=0)
    include_artifacts: bool | None = None
    metadata: dict[str, Any] | None = None


class ListTasksResult(A2AModel):
    tasks: list[Task]
    total_size: int
    page_size: int
    next_page_token: str


class GetTaskPushNotificationConfigParams(A2AModel):
    id: str
    push_notification_config_id: str | None = None
    metadata: dict[str, Any] | None = None


class ListTaskPushNotificationConfigParams(A2AModel):
    id: str
    metadata: dict[str, Any] | None = None


class DeleteTaskPushNotificationConfigParams(A2AModel):
    id: str
    push_notification_config_id: str
    metadata: dict[str, Any] | None = None


# --- agent card --------------------------------------------------------------------------------


class TransportProtocol(StrEnum):
    JSONRPC = "JSONRPC"
    GRPC = "GRPC"
    HTTP_JSON = "HTTP+JSON"


class AgentProvider(A2AModel):
    organization: str
    url: str


class AgentExtension(A2AModel):
    uri: str
    description: str | None = None
    params: dict[str, Any] | None = None
    required: bool | None = None


class AgentCapabilities(A2AModel):
    streaming: bool | None = None
    push_notifications: bool | None = None
    state_transition_history: bool | None = None
    extensions: list[AgentExtension] | None = None


class AgentSkill(A2AModel):
    id: str
    name: str
    description: str
    tags: list[str]
    examples: list[str] | None = None
    input_modes: list[str] | None = None
    output_modes: list[str] | None = None
    security: list[dict[str, list[str]]] | None = None


class AgentInterface(A2AModel):
    transport: str
    url: str


class AgentCardSignature(A2AModel):
    protected: str
    signature: str
    header: dict[str, Any] | None = None


class APIKeySecurityScheme(A2AModel):
    type: Literal["apiKey"] = "apiKey"
    name: str
    # `in` is a Python keyword, so the attribute is `in_`.
    in_: Literal["query", "header", "cookie"] = field(wire="in")
    description: str | None = None


class HTTPAuthSecurityScheme(A2AModel):
    type: Literal["http"] = "http"
    scheme: str
    bearer_format: str | None = None
    description: str | None = None


class AuthorizationCodeOAuthFlow(A2AModel):
    authorization_url: str
    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class ClientCredentialsOAuthFlow(A2AModel):
    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class ImplicitOAuthFlow(A2AModel):
    authorization_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class PasswordOAuthFlow(A2AModel):
    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class OAuthFlows(A2AModel):
    authorization_code: AuthorizationCodeOAuthFlow | None = None
    client_credentials: ClientCredentialsOAuthFlow | None = None
    implicit: ImplicitOAuthFlow | None = None
    password: PasswordOAuthFlow | None = None


class OAuth2SecurityScheme(A2AModel):
    type: Literal["oauth2"] = "oauth2"
    flows: OAuthFlows
    oauth2_metadata_url: str | None = None
    description: str | None = None


class OpenIdConnectSecurityScheme(A2AModel):
    type: Literal["openIdConnect"] = "openIdConnect"
    open_id_connect_url: str
    description: str | None = None


class MutualTLSSecurityScheme(A2AModel):
    type: Literal["mutualTLS"] = "mutualTLS"
    description: str | None = None


SecurityScheme = (
    APIKeySecurityScheme
    | HTTPAuthSecurityScheme
    | OAuth2SecurityScheme
    | OpenIdConnectSecurityScheme
    | MutualTLSSecurityScheme
)


class AgentCard(A2AModel):
    name: str
    description: str
    url: str
    version: str
    protocol_version: str = PROTOCOL_VERSION
    capabilities: AgentCapabilities
    default_input_modes: list[str]
    default_output_modes: list[str]
    skills: list[AgentSkill]
    preferred_transport: str | None = TransportProtocol.JSONRPC.value
    additional_interfaces: list[AgentInterface] | None = None
    provider: AgentProvider | None = None
    documentation_url: str | None = None
    icon_url: str | None = None
    security_schemes: dict[str, SecurityScheme] | None = None
    security: list[dict[str, list[str]]] | None = None
    supports_authenticated_extended_card: bool | None = None
    signatures: list[AgentCardSignature] | None = None


# --- JSON-RPC envelopes ------------------------------------------------------------------------

JSONRPCId = str | int | None


class JSONRPCError(A2AModel):
    code: int
    message: str
    data: Any | None = None


class JSONRPCRequest(A2AModel):
    jsonrpc: Literal["2.0"]
    method: str
    id: JSONRPCId = None
    params: dict[str, Any] | None = None


class JSONRPCSuccessResponse(A2AModel):
    jsonrpc: Literal["2.0"] = "2.0"
    id: JSONRPCId
    result: Any


class JSONRPCErrorResponse(A2AModel):
    jsonrpc: Literal["2.0"] = "2.0"
    id: JSONRPCId
    error: JSONRPCError
