"""The HTTP+JSON/REST transport: routes, parameters, bodies, status codes (spec §3.2.3, §3.5.6).

`handle(request, service, caller)` turns one HTTP request under `/v1/` into a `RestReply` (an HTTP
status and a JSON body) or a `RestStreamReply` (SSE events, for message:stream and :subscribe). It
never raises: every failure becomes an error reply, and unexpected ones are logged and answered
with 500 without internals. The ASGI app (asgi.py) reads the body and writes the reply.

Routes (the `google.api.http` options of a2a.proto; bodies and results are proto JSON, see
`proto_json.py`):

    POST   /v1/message:send                         SendMessageRequest -> SendMessageResponse
    POST   /v1/message:stream                       SendMessageRequest -> SSE of StreamResponse
    GET    /v1/tasks/{id}?historyLength=N           -> Task
    GET    /v1/tasks?contextId=&status=&pageSize=&pageToken=&historyLength=
                  &lastUpdatedAfter=&lastUpdatedTime=&includeArtifacts=   -> ListTasksResponse
    POST   /v1/tasks/{id}:cancel                    CancelTaskRequest (optional) -> Task
    GET    /v1/tasks/{id}:subscribe                 -> SSE of StreamResponse   (a2a.proto, SDK)
    POST   /v1/tasks/{id}:subscribe                 (optional body) -> SSE     (spec's §3.5.6 table)
    POST   /v1/tasks/{id}/pushNotificationConfigs   -> TaskPushNotificationConfig
    GET    /v1/tasks/{id}/pushNotificationConfigs   -> ListTaskPushNotificationConfigResponse
    GET    /v1/tasks/{id}/pushNotificationConfigs/{configId}    -> TaskPushNotificationConfig
    DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}    -> {} (google.protobuf.Empty)
    GET    /v1/card                                 the authenticated extended card
    GET    /v1/openapi.json                         an OpenAPI 3.1 document of these routes
                                                    (rest/openapi.py; served by asgi.py, public)

Request details:

- Bodies are JSON objects with `Content-Type: application/json` (any parameters, e.g. charset).
  A body of another type is refused with 415; cancel and subscribe take an empty body too, and
  cancel's must still say `application/json` (what another origin cannot send unasked).
  Query parameters take the json name or the proto field name (`contextId` / `context_id`); ones
  a route does not know are refused (400), so a misspelt filter never silently lists everything.
- Query values: integers as ASCII decimal digits (an optional `-`; nothing else), booleans as
  `true`/`false` (also `True`/`False`, `1`/`0`), `status` as the proto enum name
  (`TASK_STATE_WORKING`), its number, or our JSON-RPC name (`working`);
  `TASK_STATE_UNSPECIFIED` means no filter. `lastUpdatedAfter` is milliseconds since the epoch
  (as over JSON-RPC, at most 2^63-1); `lastUpdatedTime` (a2a.proto's name) the same moment as an
  RFC 3339 date-time (`2025-01-31T12:00:00Z`, an offset or `Z` required); a time before the
  epoch filters nothing out.
- Bodies are parsed strictly and checked against the configured limits before anything is
  stored (`limits.py`: UTF-8 only, no NaN/Infinity or lone surrogates, `max_json_depth`,
  `max_message_parts`, `max_file_bytes`, `max_message_file_bytes`); a refusal's `data` names the
  limit. Oversized files are 413, the other limits 400.
- POST .../pushNotificationConfigs takes what the SDK sends, the whole
  CreateTaskPushNotificationConfigRequest `{parent, configId, config: TaskPushNotificationConfig}`,
  and what the a2a.proto rule (`body: "config"`) describes, a bare TaskPushNotificationConfig
  (with `?configId=`). The config's id is `pushNotificationConfig.id`, else `configId`, else the
  service's default (the task id). The id part of `name` is never used: the 0.3.26 SDK writes
  `.../pushNotificationConfigs/None` there when the config has no id.
- proto3 defaults apply where our JSON-RPC form has "absent": SendMessageConfiguration
  `blocking` left out is `false` (non-blocking; the SDK leaves it out exactly when it polls), and
  `historyLength` 0 or left out is the whole history (a2a.proto: "if 0, the history will be
  unlimited"). On GET /v1/tasks/{id}, `historyLength=0` means no history, as over JSON-RPC and
  in the SDK's own REST server.
- `Last-Event-ID` resumes message:stream and :subscribe after that event, as over JSON-RPC.
- `X-A2A-Extensions` activates extensions, as over JSON-RPC, and is echoed on success.

Responses:

- Success: 200 with the proto JSON result (`Content-Type: application/json`); streams: 200,
  `text/event-stream`, each event `id: <event log position>` and `data: <StreamResponse>`, the
  same ids and Last-Event-ID replay as JSON-RPC. An error after the stream began is sent as one
  `event: error` whose data is the error body below, and the stream ends.
- Errors: the status is the A2A error's `http_status` (errors.py) and the body always

      {"error": {"code": <A2A/JSON-RPC code>, "status": "<HTTP reason phrase>",
                 "message": "...", "data": <as over JSON-RPC, left out when there is none>}}

  so a client gets the same code, message and data as over JSON-RPC:

      JSONParseError -32700, InvalidRequestError -32600, InvalidParamsError -32602    400
      ContentTypeNotSupportedError -32005                                             415
      PushNotificationNotSupportedError -32003, UnsupportedOperationError -32004      400
      TaskNotFoundError -32001, AuthenticatedExtendedCardNotConfiguredError -32007    404
      MethodNotFoundError -32601 (no such route)                                      404
      TaskNotCancelableError -32002                                                   409
      InternalError -32603                                                            500
      InvalidAgentResponseError -32006                                                502

  PushNotificationNotSupported and UnsupportedOperation (streaming off) are 400, not 501: the
  card tells the client these capabilities are absent, so asking is the client's mistake and
  retrying will not help. (The SDK's own server uses 501 there and 422 for invalid params; its
  clients only look at the status class.) Transport-level refusals keep an A2A code too:
  405 (wrong verb for a route; `Allow` lists the right ones) is -32601, 415 (request body not
  JSON) and 413 (body over `max_body_bytes`) are -32600.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, TypeVar

from .. import limits
from ..codec import ValidationError
from ..errors import (
    A2AError,
    AuthenticatedExtendedCardNotConfiguredError,
    InternalError,
    InvalidParamsError,
    MethodNotAllowedError,
    MethodNotFoundError,
    invalid_params_from_validation,
)
from ..extensions import HEADER as EXTENSIONS_HEADER
from ..extensions import echo_headers
from ..httpjson import (
    Headers,
    HttpRequest,
    RestReply,
    RestStreamReply,
    json_body,
    parse_query,
    query_bool,
    query_int,
    query_value,
)
from ..models import (
    A2AModel,
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    ListTasksParams,
    MessageSendConfiguration,
    MessageSendParams,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
)
from ..observability import correlated
from ..routepaths import REST_PREFIX, custom_method
from ..service import Caller, StreamEvent, TaskService
from ..store.base import StoreUnavailable
from ..transport import ExtendedCard, a2a_error, parse_last_event_id
from . import proto_json

log = logging.getLogger("a2a_serverless.rest")

PREFIX = REST_PREFIX

_M = TypeVar("_M", bound=A2AModel)


# --- the rendering of results, events and errors --------------------------------------------


def error_body(error: A2AError) -> dict[str, Any]:
    body: dict[str, Any] = {
        "code": error.code,
        "status": _reason(error.rest_status),
        "message": error.message,
    }
    if error.data is not None:
        body["data"] = error.data
    return {"error": body}


def error_reply(error: A2AError, headers: Headers | None = None) -> RestReply:
    return RestReply(error.rest_status, error_body(error), [*error.headers, *(headers or [])])


def stream_event_body(event: StreamEvent) -> dict[str, Any]:
    """The data of one SSE event: a StreamResponse."""
    return proto_json.to_stream_response(event.payload.dump())


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


# --- routing ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Call:
    request: HttpRequest
    service: TaskService
    caller: Caller
    params: dict[str, str]
    query: dict[str, list[str]]
    extended_card: ExtendedCard | None = None


Handler = Callable[[_Call], Awaitable[RestReply | RestStreamReply]]


@dataclass(frozen=True, slots=True)
class _Route:
    methods: dict[str, Handler]
    # The query parameters each verb takes (json names; proto field names are accepted too).
    query: dict[str, tuple[str, ...]] = field(default_factory=dict)


async def handle(
    request: HttpRequest,
    service: TaskService,
    caller: Caller,
    *,
    extended_card: ExtendedCard | None = None,
) -> RestReply | RestStreamReply:
    try:
        route, params = _match(request.method, request.path)
        handler = route.methods.get(request.method)
        if handler is None:
            raise MethodNotAllowedError(request.method, request.path, list(route.methods))
        query = parse_query(request.query_string, route.query.get(request.method, ()))
        caller = service.activate_extensions(caller, request.headers.get(EXTENSIONS_HEADER))
        call = _Call(request, service, caller, params, query, extended_card)
        with correlated():
            reply = await handler(call)
    except MethodNotAllowedError as error:
        return error_reply(error, [(b"allow", ", ".join(error.allowed).encode())])
    except (A2AError, StoreUnavailable) as error:
        return error_reply(a2a_error(error))
    except Exception:
        log.exception("unexpected error serving %s %s", request.method, request.path)
        return error_reply(InternalError())
    echo = echo_headers(caller.extensions)
    if isinstance(reply, RestStreamReply):
        return RestStreamReply(reply.events, reply.headers + echo)
    return RestReply(reply.status, reply.body, reply.headers + echo)


def _match(method: str, path: str) -> tuple[_Route, dict[str, str]]:
    if path.startswith(PREFIX):
        segments = path[len(PREFIX) :].split("/")
        match segments:
            case ["message:send"]:
                return _SEND, {}
            case ["message:stream"]:
                return _STREAM, {}
            case ["card"]:
                return _CARD, {}
            case ["tasks"]:
                return _TASKS, {}
            case ["tasks", task] if task:
                task_id, verb = custom_method(task)
                if verb == "cancel" and task_id:
                    return _CANCEL, {"id": task_id}
                if verb == "subscribe" and task_id:
                    return _SUBSCRIBE, {"id": task_id}
                return _TASK, {"id": task}
            case ["tasks", task, proto_json.PUSH_CONFIG_COLLECTION] if task:
                return _PUSH_CONFIGS, {"id": task}
            case ["tasks", task, proto_json.PUSH_CONFIG_COLLECTION, config] if task and config:
                return _PUSH_CONFIG, {"id": task, "configId": config}
    raise MethodNotFoundError(f"No REST endpoint at {path}", data={"method": method, "path": path})


# --- request parts ------------------------------------------------------------------------------


def _body(call: _Call, *, required: bool, typed: bool = False) -> dict[str, Any] | None:
    return json_body(
        call.request, call.service.settings.max_json_depth, required=required, typed=typed
    )


def _validate(model: type[_M], value: dict[str, Any]) -> _M:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise invalid_params_from_validation(exc) from None


def _check_task_name(body: dict[str, Any] | None, task_id: str) -> None:
    """A CancelTaskRequest / TaskSubscriptionRequest body names the task of the URL, if any."""
    if body is None:
        return
    name = body.get("name")
    if name in (None, ""):
        return
    if not isinstance(name, str) or proto_json.parse_task_name(name, "name") != task_id:
        raise InvalidParamsError(
            data={"errors": [{"field": "name", "message": f"must be tasks/{task_id} or absent"}]}
        )


def _last_event_id(call: _Call) -> int | None:
    return parse_last_event_id(call.request.headers.get("last-event-id"))


def _ok(body: Any) -> RestReply:
    return RestReply(200, body)


# --- message:send, message:stream ----------------------------------------------------------------


def _send_params(call: _Call) -> MessageSendParams:
    body = _body(call, required=True)
    assert body is not None
    settings = call.service.settings
    # Before the conversion and validation, which would otherwise build every part first.
    message = body.get("message", body.get("request"))
    limits.check_parts_count(limits.raw_parts_count(message, "content", "parts"), settings)
    params = _validate(MessageSendParams, proto_json.from_send_params(body))
    # proto3 defaults (see the module docstring): blocking left out is false, historyLength 0
    # (or left out) is the whole history.
    config = params.configuration or MessageSendConfiguration()
    update: dict[str, Any] = {}
    if config.blocking is None:
        update["blocking"] = False
    if config.history_length == 0:
        update["history_length"] = None
    if update or params.configuration is None:
        config = config.model_copy(update=update)
        params = params.model_copy(update={"configuration": config})
    return params


async def _message_send(call: _Call) -> RestReply:
    params = _send_params(call)
    task = await call.service.send_message(params, call.caller)
    return _ok(proto_json.to_send_response(task.dump()))


async def _message_stream(call: _Call) -> RestStreamReply:
    params = _send_params(call)
    last_event_id = _last_event_id(call)
    events = await call.service.stream_message(params, call.caller, last_event_id=last_event_id)
    return RestStreamReply(events)


# --- tasks ----------------------------------------------------------------------------------------


async def _get_task(call: _Call) -> RestReply:
    raw: dict[str, Any] = {"id": call.params["id"]}
    history_length = query_int(call.query, "historyLength")
    if history_length is not None:
        raw["historyLength"] = history_length
    params = _validate(TaskQueryParams, raw)
    task = await call.service.get_task(params, call.caller)
    return _ok(proto_json.to_task(task.dump()))


_LIST_QUERY = (
    "contextId",
    "status",
    "pageSize",
    "pageToken",
    "historyLength",
    "lastUpdatedAfter",
    "lastUpdatedTime",
    "includeArtifacts",
)


async def _list_tasks(call: _Call) -> RestReply:
    raw: dict[str, Any] = {}
    for name in ("contextId", "pageToken"):
        value = query_value(call.query, name)
        if value is not None:
            raw[name] = value
    for name in ("pageSize", "historyLength", "lastUpdatedAfter"):
        number = query_int(call.query, name)
        if number is not None:
            raw[name] = number
    status = query_value(call.query, "status")
    if status is not None:
        state = _list_status(status)
        if state is not None:
            raw["status"] = state
    include_artifacts = query_bool(call.query, "includeArtifacts")
    if include_artifacts is not None:
        raw["includeArtifacts"] = include_artifacts
    updated_time = query_value(call.query, "lastUpdatedTime")
    if updated_time is not None:
        if "lastUpdatedAfter" in raw:
            raise InvalidParamsError(
                "Give lastUpdatedAfter (milliseconds) or lastUpdatedTime (RFC 3339), not both"
            )
        raw["lastUpdatedAfter"] = limits.timestamp_ms(updated_time, "lastUpdatedTime")
    params = _validate(ListTasksParams, raw)
    result = await call.service.list_tasks(params, call.caller)
    return _ok(proto_json.to_list_tasks_result(result.dump()))


def _list_status(value: str) -> str | None:
    """A status filter: proto enum name or number, or our name; None for "unspecified"."""
    try:
        state = proto_json.state_from_proto(value, "status")
    except InvalidParamsError:
        # Our JSON-RPC names ("working"), or a bad value that validation will report
        # exactly as it does over JSON-RPC.
        return value
    return None if state == "unknown" else state


async def _cancel_task(call: _Call) -> RestReply:
    _check_task_name(_body(call, required=False, typed=True), call.params["id"])
    task = await call.service.cancel_task(TaskIdParams(id=call.params["id"]), call.caller)
    return _ok(proto_json.to_task(task.dump()))


async def _subscribe(call: _Call) -> RestStreamReply:
    if call.request.method == "POST":
        _check_task_name(_body(call, required=False), call.params["id"])
    params = TaskIdParams(id=call.params["id"])
    last_event_id = _last_event_id(call)
    events = await call.service.resubscribe(params, call.caller, last_event_id=last_event_id)
    return RestStreamReply(events)


# --- push notification configs --------------------------------------------------------------------


async def _set_push_config(call: _Call) -> RestReply:
    body = _body(call, required=True)
    assert body is not None
    task_id = call.params["id"]
    config_id = query_value(call.query, "configId")
    _check_config_id(config_id, "configId")
    if any(key in body for key in ("config", "parent", "configId", "config_id")):
        # The SDK's CreateTaskPushNotificationConfigRequest.
        parent = body.get("parent")
        if parent not in (None, "") and (
            not isinstance(parent, str) or proto_json.parse_task_name(parent, "parent") != task_id
        ):
            raise InvalidParamsError(
                data={"errors": [{"field": "parent", "message": f"must be tasks/{task_id}"}]}
            )
        if "configId" in body and "config_id" in body:
            raise InvalidParamsError(
                data={"errors": [{"field": "configId", "message": "give configId or config_id"}]}
            )
        body_config_id = body.get("configId", body.get("config_id"))
        if isinstance(body_config_id, str) and body_config_id:
            _check_config_id(body_config_id, "configId")
            config_id = body_config_id
        elif body_config_id not in (None, ""):
            raise InvalidParamsError(
                data={"errors": [{"field": "configId", "message": "must be a string"}]}
            )
        raw = proto_json.from_task_push_config(body.get("config") or {}, "config", task_id=task_id)
    else:
        raw = proto_json.from_task_push_config(body, "", task_id=task_id)
    inner = raw.get("pushNotificationConfig")
    if inner is None:
        raise InvalidParamsError(
            data={"errors": [{"field": "pushNotificationConfig", "message": "Field required"}]}
        )
    if config_id and "id" not in inner:
        inner["id"] = config_id
    params = _validate(TaskPushNotificationConfig, raw)
    result = await call.service.set_push_config(params, call.caller)
    return _ok(proto_json.to_task_push_config(result.dump()))


def _check_config_id(config_id: str | None, field: str) -> None:
    """A config id names a resource under /v1/tasks/{id}/pushNotificationConfigs/: no "/"."""
    if config_id and "/" in config_id:
        raise InvalidParamsError(
            data={"errors": [{"field": field, "message": "Must not contain '/'"}]}
        )


async def _get_push_config(call: _Call) -> RestReply:
    params = GetTaskPushNotificationConfigParams(
        id=call.params["id"], push_notification_config_id=call.params["configId"]
    )
    result = await call.service.get_push_config(params, call.caller)
    return _ok(proto_json.to_task_push_config(result.dump()))


async def _list_push_configs(call: _Call) -> RestReply:
    params = ListTaskPushNotificationConfigParams(id=call.params["id"])
    configs = await call.service.list_push_configs(params, call.caller)
    return _ok(proto_json.to_push_config_list([c.dump() for c in configs]))


async def _delete_push_config(call: _Call) -> RestReply:
    params = DeleteTaskPushNotificationConfigParams(
        id=call.params["id"], push_notification_config_id=call.params["configId"]
    )
    await call.service.delete_push_config(params, call.caller)
    return _ok({})


# --- the authenticated extended card ------------------------------------------------------------


async def _extended_card(call: _Call) -> RestReply:
    # As agent/getAuthenticatedExtendedCard over JSON-RPC (-32007, 404, when there is none). It
    # goes out in our JSON card form (`AgentCard.dump()`), which is what the 0.3.26 SDK's REST
    # client reads here (pydantic, not proto JSON).
    if call.extended_card is None:
        raise AuthenticatedExtendedCardNotConfiguredError()
    return RestReply(200, call.extended_card().dump(), [(b"cache-control", b"private, no-store")])


_SEND = _Route({"POST": _message_send})
_STREAM = _Route({"POST": _message_stream})
_TASKS = _Route({"GET": _list_tasks}, {"GET": _LIST_QUERY})
_TASK = _Route({"GET": _get_task}, {"GET": ("historyLength",)})
_CANCEL = _Route({"POST": _cancel_task})
_SUBSCRIBE = _Route({"GET": _subscribe, "POST": _subscribe})
_PUSH_CONFIGS = _Route(
    {"GET": _list_push_configs, "POST": _set_push_config}, {"POST": ("configId",)}
)
_PUSH_CONFIG = _Route({"GET": _get_push_config, "DELETE": _delete_push_config})
_CARD = _Route({"GET": _extended_card})
