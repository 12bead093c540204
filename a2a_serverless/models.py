"""The internal model, as msgspec Structs: what the service, the stores and the agents see.

Message content is A2A 1.0's (its a2a.proto's Part, Message, Task, Artifact, TaskStatus and
update events): a `Part` is one Struct holding exactly one of `text`, `raw`, `url` and `data`;
nothing carries a `kind`, and a status update no `final` (whether a status ends a stream is its
state's to say, `TaskState.ends_stream`). Each protocol version is a codec at the edge that
converts to and from these (`v10/`: 1.0's ProtoJSON; `v03/`: 0.3's JSON-RPC objects, in
`v03/jsonrpc_models.py`, and 0.3's HTTP+JSON); no wire form is this model's JSON. Its JSON is
the stores' record form (camelCase names, defaults left out); records written before it held
0.3's shapes, which the store layer still reads (`store/legacy.py`).

Class names are A2A 1.0's proto names, attributes the snake_case form of the JSON's camelCase
names. Build objects with keywords:

    message = Message(message_id="m-1", role="user", parts=[Part(text="hi")])
    request = GetTaskRequest.model_validate({"id": "t-1"})   # ValidationError if bad
    request = GetTaskRequest.model_validate_json(body_bytes)  # straight from bytes
    message.model_dump()             # {"messageId": "m-1", "role": "user", "parts": [...]}
    task.model_copy(update={"status": TaskStatus(state=TaskState.WORKING)})

`TextPart`, `FilePart` and `DataPart`, the parts of earlier releases, are deprecated
constructors that return a `Part` (with a DeprecationWarning); they go in the next release.

What every model does (the codec is `codec.py`):
- input is taken under the wire (camelCase) names, with JSON's types strictly (a string is a
  string, an integer never a bool or a float); unknown members are ignored;
- `model_dump()` / `model_dump_json()` serialise: wire names, fields left at their default
  (None) left out. The five methods are pydantic's names (`model_validate`,
  `model_validate_json`, `model_dump`, `model_dump_json`, `model_copy`), which a2a-sdk 0.3's
  models have too, so code moving between the two reads the same; `dump()` / `dump_json()`
  are the older names of the two serialisers, kept so existing code runs;
- `validate(tp, obj)` checks a value against a type: a model, a union of models, a list;
- `model_copy(update=...)` refuses a field name the model does not have.

The service's requests, their results and the push config are A2A 1.0's (`SendMessageRequest`,
`GetTaskRequest`, ..., `ListTasksResponse`, the flat `TaskPushNotificationConfig`), named as
1.0's proto names them: 1.0 decodes into them straight where its wire form is the same
(`v10/methods.py`), and 0.3's JSON-RPC params are converted into them at the edge
(`v03/jsonrpc_params.py`). `TaskState` and `Role` values ("working", "input-required", "user")
are no wire form but the records' storage encoding (the stores index and filter on them): each
codec maps its own names onto them (1.0: `TASK_STATE_WORKING`; 0.3 HTTP+JSON: its proto names;
0.3 JSON-RPC: these same strings).

The agent card is 1.0's (`AgentCard` with `supported_interfaces`,
`capabilities.extended_agent_card`, `security_requirements`; `SecurityScheme` is 1.0's oneof
of the scheme objects: `SecurityScheme.of(APIKeySecurityScheme(...))`). 0.3's card is the 0.3
codec's (`v03/card.py`); `card.py` serves both in one document.

Every Struct is `gc=False`: protocol objects come from JSON and hold no reference cycles, so the
garbage collector need not track them (a large heap of stored tasks made full collections stall
every connection under load).
"""

from __future__ import annotations

import base64
import binascii
import builtins
import warnings
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

import msgspec
from msgspec import Meta

from . import codec
from .codec import ValidationError as ValidationError

NonNegative = Annotated[int, Meta(ge=0)]
# Integers a Store can hold (SQLite INTEGER, DynamoDB and Firestore numbers): signed 64 bits.
Int64 = Annotated[int, Meta(ge=0, le=2**63 - 1)]


class A2AModel(msgspec.Struct, kw_only=True, omit_defaults=True, rename="camel", gc=False):
    """Base of every protocol object."""

    @classmethod
    def model_validate(cls, obj: object) -> Self:
        """`obj` (a dict as JSON gives it) checked and converted; raises ValidationError."""
        return codec.convert(obj, cls)

    @classmethod
    def model_validate_json(cls, data: bytes | str) -> Self:
        """JSON text decoded and checked; raises ValidationError (or msgspec.DecodeError, a
        ValueError, if it is not JSON)."""
        return codec.decode(data, cls)

    def model_dump(self) -> dict[str, Any]:
        """The JSON-ready dict: wire names, defaults left out."""
        return codec.to_builtins(self)  # type: ignore[no-any-return]

    def model_dump_json(self) -> bytes:
        """The JSON text, as bytes."""
        return codec.encode(self)

    # The older names of the two above (before the vocabulary was pydantic's throughout).
    dump = model_dump
    dump_json = model_dump_json

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with some fields replaced (not validated); an unknown field name is a
        TypeError, never a stray key on the wire. `deep` copies nested objects too."""
        copied = codec.deep_copy(self) if deep else self
        return msgspec.structs.replace(copied, **(update or {}))


def validate(tp: Any, value: Any) -> Any:
    """`value` checked against a type: a model, a union of models, `list[Model]`, ..."""
    return codec.convert(value, tp)


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

    @property
    def ends_stream(self) -> bool:
        """A status in this state ends the turn and the stream that follows it: terminal or
        interrupted. The one rule the core asks; 0.3's `final` is this, computed at the edge."""
        return self in _STREAM_ENDING_STATES


TERMINAL_STATES = frozenset(
    {TaskState.COMPLETED, TaskState.CANCELED, TaskState.FAILED, TaskState.REJECTED}
)
_STREAM_ENDING_STATES = TERMINAL_STATES | {TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED}


_UNSET = msgspec.UNSET


class Part(A2AModel):
    """One piece of content (A2A 1.0's Part): exactly one of `text`, `raw` (the bytes, as
    standard base64 text), `url` (a file elsewhere) and `data` (any JSON value, `null` too,
    which is why `data` is told apart from absent by UNSET). `media_type` and `filename` say
    what the content is, whichever kind it is.

        Part(text="hello")
        Part(raw=base64.b64encode(png).decode(), media_type="image/png", filename="a.png")
        Part(url="https://example.com/report.pdf", media_type="application/pdf")
        Part(data={"temperature": 21})
    """

    text: str | None = None
    raw: str | None = None
    url: str | None = None
    data: Any = msgspec.UNSET
    metadata: dict[str, Any] | None = None
    filename: str | None = None
    media_type: str | None = None

    def __post_init__(self) -> None:
        # Text first and alone: the common part, checked in four comparisons (every stored
        # record read decodes its parts).
        if self.text is not None and self.raw is None and self.url is None and self.data is _UNSET:
            return
        kinds = (self.text is not None) + (self.raw is not None) + (self.url is not None)
        if kinds + (self.data is not _UNSET) != 1:
            present = [
                name
                for name, value in (("text", self.text), ("raw", self.raw), ("url", self.url))
                if value is not None
            ]
            if self.data is not _UNSET:
                present.append("data")
            found = ", ".join(present) or "none"
            raise ValueError(f"must have exactly one of text, raw, url and data (found {found})")
        if self.raw is not None and not is_base64(self.raw):
            raise ValueError("raw: must be base64 (RFC 4648)")

    @property
    def has_data(self) -> bool:
        """Whether the part is a `data` part (its `data` may be any JSON value, None too)."""
        return self.data is not _UNSET


def is_base64(text: str) -> bool:
    """Whether `text` is standard base64 (RFC 4648 §4), padded."""
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


# --- the parts of earlier releases, as deprecated constructors of a Part ---------------------


class FileWithBytes(msgspec.Struct, kw_only=True, gc=False):
    """Deprecated (with `FilePart`): a file's bytes as base64. Build `Part(raw=..., media_type=
    ..., filename=...)` instead."""

    bytes: str
    mime_type: str | None = None
    name: str | None = None


class FileWithUri(msgspec.Struct, kw_only=True, gc=False):
    """Deprecated (with `FilePart`): a file at a URL. Build `Part(url=..., media_type=...,
    filename=...)` instead."""

    uri: str
    mime_type: str | None = None
    name: str | None = None


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is deprecated and goes in the next release: build {new}",
        DeprecationWarning,
        stacklevel=3,
    )


def TextPart(*, text: str, metadata: dict[str, Any] | None = None) -> Part:
    """Deprecated: a `Part(text=...)`."""
    _deprecated("TextPart(text=...)", "Part(text=...)")
    return Part(text=text, metadata=metadata)


def FilePart(*, file: FileWithBytes | FileWithUri, metadata: dict[str, Any] | None = None) -> Part:
    """Deprecated: a `Part(raw=...)` or `Part(url=...)`, with the file's `mime_type` as
    `media_type` and its `name` as `filename`."""
    _deprecated("FilePart(file=...)", "Part(raw=...) or Part(url=...)")
    if isinstance(file, FileWithBytes):
        return Part(
            raw=file.bytes, media_type=file.mime_type, filename=file.name, metadata=metadata
        )
    return Part(url=file.uri, media_type=file.mime_type, filename=file.name, metadata=metadata)


def DataPart(*, data: dict[str, Any], metadata: dict[str, Any] | None = None) -> Part:
    """Deprecated: a `Part(data=...)`."""
    _deprecated("DataPart(data=...)", "Part(data=...)")
    return Part(data=data, metadata=metadata)


Role = Literal["user", "agent"]


class Message(A2AModel):
    message_id: str
    role: Role
    # A message that says nothing is a client bug, refused.
    parts: Annotated[list[Part], Meta(min_length=1)]
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
    id: str
    context_id: str
    status: TaskStatus
    artifacts: list[Artifact] | None = None
    history: list[Message] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatusUpdateEvent(A2AModel):
    """A task's new status. Whether it ends the stream is its state's to say
    (`TaskState.ends_stream`): a 1.0 stream just ends, 0.3's codec writes it as `final`."""

    task_id: str
    context_id: str
    status: TaskStatus
    metadata: dict[str, Any] | None = None


class TaskArtifactUpdateEvent(A2AModel):
    task_id: str
    context_id: str
    artifact: Artifact
    append: bool | None = None
    last_chunk: bool | None = None
    metadata: dict[str, Any] | None = None


# What a task's event log holds, and what a stream carries (told apart by their classes; the
# store writes the log's events tagged, `store/base.py`).
TaskEventPayload = TaskStatusUpdateEvent | TaskArtifactUpdateEvent
StreamResult = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent


# --- push notifications ------------------------------------------------------------------------


# How a webhook wants to be called: one HTTP auth scheme ("Bearer", "Basic") and its credentials.
# (Comments, not docstrings, on the models 1.0 decodes straight: a docstring would be their
# description in the OpenAPI document, scripts/openapi_gen.py.)
class AuthenticationInfo(A2AModel):
    scheme: str
    credentials: str | None = None

    @classmethod
    def of_schemes(cls, schemes: list[str], credentials: str | None) -> AuthenticationInfo:
        """The one scheme of a list (0.3's form, and push configs stored before 1.0's): the
        one a notification is sent with, Bearer over Basic, else the first ("" if none)."""
        named = {scheme.strip().lower(): scheme for scheme in schemes}
        scheme = named.get("bearer") or named.get("basic") or (schemes[0] if schemes else "")
        return cls(scheme=scheme, credentials=credentials)


# A push config, flat as 1.0 has it. `task_id` is absent in a send request's configuration (the
# task is the one the message makes); `id` absent is the task's default config (the service
# gives it the task's id).
class TaskPushNotificationConfig(A2AModel):
    url: str
    id: str | None = None
    task_id: str | None = None
    token: str | None = None
    authentication: AuthenticationInfo | None = None
    tenant: str | None = None


# --- method requests and results (1.0's) --------------------------------------------------------

PageSize = Annotated[int, Meta(ge=1, le=100)]


class SendMessageConfiguration(A2AModel):
    accepted_output_modes: list[str] | None = None
    task_push_notification_config: TaskPushNotificationConfig | None = None
    history_length: NonNegative | None = None
    # 1.0 blocks unless told to return at once (0.3's `blocking`, inverted).
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
    # 1.0's `statusTimestampAfter` (0.3's `lastUpdatedAfter`) as milliseconds since the epoch:
    # each codec reads its own form, so a refusal names the field its client sent.
    status_timestamp_after_ms: Int64 | None = None
    include_artifacts: bool | None = None
    tenant: str | None = None


class ListTasksResponse(A2AModel):
    tasks: list[Task]
    next_page_token: str
    page_size: int
    total_size: int


class GetTaskPushNotificationConfigRequest(A2AModel):
    task_id: str
    id: str
    tenant: str | None = None


# 1.0's proto has two messages of this one shape: one model (and one OpenAPI schema) for both.
DeleteTaskPushNotificationConfigRequest = GetTaskPushNotificationConfigRequest


class ListTaskPushNotificationConfigsRequest(A2AModel):
    task_id: str
    page_size: Annotated[int, Meta(ge=0, le=100)] | None = None
    page_token: str | None = None
    tenant: str | None = None


class ListTaskPushNotificationConfigsResponse(A2AModel):
    configs: list[TaskPushNotificationConfig]
    next_page_token: str


class GetExtendedAgentCardRequest(A2AModel):
    tenant: str | None = None


# --- agent card --------------------------------------------------------------------------------
# A2A 1.0's AgentCard (a2a.proto), whose `model_dump()` is 1.0's card but for one rule of the
# oneofs (`card.py` writes a scheme's flows as 1.0's oneof). 0.3's card (`url`,
# `preferredTransport`, `type`-tagged schemes, `security`, ...) is the 0.3 codec's
# (`v03/card.py`), made from this one.


class TransportProtocol(StrEnum):
    """The bindings an `AgentInterface.protocol_binding` names (1.0 takes any string)."""

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
    extensions: list[AgentExtension] | None = None
    extended_agent_card: bool | None = None


class StringList(A2AModel):
    # 1.0 names its one member `list`: the builtin is spelt out beside it.
    list: builtins.list[str]


class SecurityRequirement(A2AModel):
    """One alternative: every scheme named, each with the scopes it must grant.
    `SecurityRequirement.of({"bearer": ["reports:write"]})` makes one from the plain form."""

    schemes: dict[str, StringList]

    @classmethod
    def of(cls, scopes: Mapping[str, Iterable[str]]) -> SecurityRequirement:
        return cls(schemes={name: StringList(list=list(s)) for name, s in scopes.items()})

    def scopes(self) -> dict[str, list[str]]:
        """The plain form: scheme name -> the scopes it must grant."""
        return {name: list(scopes.list) for name, scopes in self.schemes.items()}


class AgentSkill(A2AModel):
    id: str
    name: str
    description: str
    tags: list[str]
    examples: list[str] | None = None
    input_modes: list[str] | None = None
    output_modes: list[str] | None = None
    security_requirements: list[SecurityRequirement] | None = None
    # Deprecated, removed in the next release: 0.3's form of the requirements (alternatives of
    # scheme -> scopes), taken into `security_requirements` when the skill is made (so it is
    # never kept, compared or written). `skill(..., security=...)` takes the plain form.
    security: list[dict[str, list[str]]] | None = None

    def __post_init__(self) -> None:
        if self.security is not None:
            warnings.warn(
                "AgentSkill(security=...) is deprecated: use security_requirements="
                "[SecurityRequirement.of({...})], or skill(..., security=...)",
                DeprecationWarning,
                stacklevel=2,
            )
            if self.security_requirements is None:
                self.security_requirements = [SecurityRequirement.of(r) for r in self.security]
            self.security = None

    def requirements(self) -> list[dict[str, list[str]]] | None:
        """`security_requirements` in the plain form (None: the card's own apply)."""
        if self.security_requirements is None:
            return None
        return [r.scopes() for r in self.security_requirements]


class AgentInterface(A2AModel):
    url: str
    protocol_binding: str
    protocol_version: str
    tenant: str | None = None


class AgentCardSignature(A2AModel):
    protected: str
    signature: str
    header: dict[str, Any] | None = None


class APIKeySecurityScheme(A2AModel):
    name: str
    location: Literal["query", "header", "cookie"]
    description: str | None = None


class HTTPAuthSecurityScheme(A2AModel):
    scheme: str
    bearer_format: str | None = None
    description: str | None = None


class AuthorizationCodeOAuthFlow(A2AModel):
    authorization_url: str
    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None
    pkce_required: bool | None = None


class ClientCredentialsOAuthFlow(A2AModel):
    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


# 1.0 deprecates these two flows and makes their members optional; they stay required here, as
# 0.3 has them, so that every flow an agent declares is one 0.3's card can carry.
class ImplicitOAuthFlow(A2AModel):
    authorization_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class PasswordOAuthFlow(A2AModel):
    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class DeviceCodeOAuthFlow(A2AModel):
    device_authorization_url: str
    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class OAuthFlows(A2AModel):
    """1.0's flows are a oneof; these keep every flow the agent declares (0.3's card lists them
    all), and 1.0's form carries the first (`card.py`)."""

    authorization_code: AuthorizationCodeOAuthFlow | None = None
    client_credentials: ClientCredentialsOAuthFlow | None = None
    implicit: ImplicitOAuthFlow | None = None
    password: PasswordOAuthFlow | None = None
    device_code: DeviceCodeOAuthFlow | None = None


class OAuth2SecurityScheme(A2AModel):
    flows: OAuthFlows
    oauth2_metadata_url: str | None = None
    description: str | None = None


class OpenIdConnectSecurityScheme(A2AModel):
    open_id_connect_url: str
    description: str | None = None


class MutualTLSSecurityScheme(A2AModel):
    description: str | None = None


# One scheme's own object, as an authenticator declares it.
SchemeModel = (
    APIKeySecurityScheme
    | HTTPAuthSecurityScheme
    | OAuth2SecurityScheme
    | OpenIdConnectSecurityScheme
    | MutualTLSSecurityScheme
)


class SecurityScheme(A2AModel):
    """1.0's oneof: exactly one member set. `SecurityScheme.of(scheme)` wraps a scheme object."""

    api_key_security_scheme: APIKeySecurityScheme | None = None
    http_auth_security_scheme: HTTPAuthSecurityScheme | None = None
    oauth2_security_scheme: OAuth2SecurityScheme | None = None
    open_id_connect_security_scheme: OpenIdConnectSecurityScheme | None = None
    mtls_security_scheme: MutualTLSSecurityScheme | None = None

    def __post_init__(self) -> None:
        if sum(value is not None for value in msgspec.structs.astuple(self)) != 1:
            raise ValueError("a security scheme must have exactly one member")

    @classmethod
    def of(cls, scheme: SchemeModel) -> SecurityScheme:
        if isinstance(scheme, APIKeySecurityScheme):
            return cls(api_key_security_scheme=scheme)
        if isinstance(scheme, HTTPAuthSecurityScheme):
            return cls(http_auth_security_scheme=scheme)
        if isinstance(scheme, OAuth2SecurityScheme):
            return cls(oauth2_security_scheme=scheme)
        if isinstance(scheme, OpenIdConnectSecurityScheme):
            return cls(open_id_connect_security_scheme=scheme)
        if isinstance(scheme, MutualTLSSecurityScheme):
            return cls(mtls_security_scheme=scheme)
        raise TypeError(f"not a security scheme: {type(scheme).__name__}")

    @property
    def scheme(self) -> SchemeModel:
        """The one scheme object it holds."""
        for value in msgspec.structs.astuple(self):
            if value is not None:
                return value  # type: ignore[no-any-return]
        raise AssertionError("unreachable: checked when made")


class AgentCard(A2AModel, kw_only=True):
    name: str
    description: str
    # In order of preference, each version's interfaces (1.0 may list 0.3's).
    supported_interfaces: list[AgentInterface]
    provider: AgentProvider | None = None
    version: str
    documentation_url: str | None = None
    capabilities: AgentCapabilities
    security_schemes: dict[str, SecurityScheme] | None = None
    security_requirements: list[SecurityRequirement] | None = None
    default_input_modes: list[str]
    default_output_modes: list[str]
    skills: list[AgentSkill]
    signatures: list[AgentCardSignature] | None = None
    icon_url: str | None = None


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


class JSONRPCSuccessResponse(A2AModel, kw_only=True, omit_defaults=False):
    jsonrpc: Literal["2.0"] = "2.0"
    id: JSONRPCId
    result: Any


class JSONRPCErrorResponse(A2AModel, kw_only=True, omit_defaults=False):
    jsonrpc: Literal["2.0"] = "2.0"
    id: JSONRPCId
    error: JSONRPCError
