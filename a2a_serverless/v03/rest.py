"""A2A 0.3 over HTTP+JSON/REST: routes, parameters, bodies, status codes (spec §3.2.3, §3.5.6).

`handle(request, route, service, caller)` answers one request on a 0.3 route (`routepaths.
v03_route` says which route a path under `/v1/` names) with a `RestReply` (an HTTP status and a
JSON body) or a `RestStreamReply` (SSE events, for message:stream and :subscribe). It never
raises: every failure becomes an error reply, and unexpected ones are logged and answered with
500 without internals. The transport (rest/transport.py) reads the request and writes the reply.

One table (`ROUTES`) says, per route and verb, which 0.3 method it is (`methods.py`, the
method table JSON-RPC serves by name: the same service call, limits and results), how the
method's params are read from the path, query and body, and how its result is written in
proto JSON (its bodies read into `models.py`'s Structs, translated by `convert.py`).

Routes (the `google.api.http` options of a2a.proto):

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
                                                    and 1.0's (rest/openapi.py; served by
                                                    asgi.py, public)

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
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, TypeVar

from .. import httpjson, limits
from ..codec import ValidationError
from ..errors import (
    A2AError,
    InvalidParamsError,
    invalid_params_from_validation,
)
from ..extensions import HEADER as EXTENSIONS_HEADER
from ..httpjson import (
    Headers,
    HttpRequest,
    RestBinding,
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
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    TaskState,
)
from ..routepaths import Route
from ..service import Caller, StreamEvent, TaskService
from ..transport import ExtendedCard, Method, render
from . import convert
from . import jsonrpc_params as rpc
from . import models as wire
from .methods import METHODS

if TYPE_CHECKING:
    from ..config import Settings

log = logging.getLogger("a2a_serverless.rest")

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
    return convert.stream_response(event.payload)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


# --- the route table ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RouteCall:
    """One request on a route, as its params reader sees it."""

    request: HttpRequest
    params: dict[str, str]
    query: dict[str, list[str]]
    settings: Settings


@dataclass(frozen=True, slots=True)
class Operation:
    """One verb on one route: the 0.3 method it is, and how HTTP+JSON carries it."""

    # The 0.3 method (methods.py's METHODS) it calls.
    method: str
    # Its params, read from the path, the query and the body (validated).
    params: Callable[[RouteCall], Any]
    # Its result as the reply's body: the internal model's JSON, in proto JSON where a2a.proto
    # has a message for it (unused for a stream).
    result: Callable[[Any], Any] = render
    # The query parameters it takes (json names; proto field names are accepted too).
    query: tuple[str, ...] = ()
    headers: Headers = field(default_factory=list)


def _read_params(
    request: HttpRequest, route: Route, operation: Operation, method: Method, service: TaskService
) -> Any:
    query = parse_query(request.query_string, operation.query)
    return operation.params(RouteCall(request, route.params, query, service.settings))


async def handle(
    request: HttpRequest,
    route: Route,
    service: TaskService,
    caller: Caller,
    *,
    extended_card: ExtendedCard | None = None,
) -> RestReply | RestStreamReply:
    return await httpjson.handle(
        BINDING, request, route, service, caller, extended_card=extended_card
    )


# --- request parts ------------------------------------------------------------------------------


def _body(call: RouteCall, *, required: bool, typed: bool = False) -> dict[str, Any] | None:
    return json_body(call.request, call.settings.max_json_depth, required=required, typed=typed)


def _validate(model: type[_M], value: dict[str, Any]) -> _M:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise invalid_params_from_validation(exc) from None


def _check_task_name(body: dict[str, Any] | None, task_id: str) -> None:
    """A CancelTaskRequest / TaskSubscriptionRequest body names the task of the URL, if any."""
    if body is None:
        return
    name = wire.read(wire.TaskRequest, body, "").name
    if not name:
        return
    if convert.parse_task_name(name, "name") != task_id:
        raise InvalidParamsError(
            data={"errors": [{"field": "name", "message": f"must be tasks/{task_id} or absent"}]}
        )


# --- message:send, message:stream ----------------------------------------------------------------


def _send_params(call: RouteCall) -> SendMessageRequest:
    body = _body(call, required=True)
    assert body is not None
    # Before the conversion and validation, which would otherwise build every part first.
    message = body.get("message", body.get("request"))
    limits.check_parts_count(limits.raw_parts_count(message, "content", "parts"), call.settings)
    params = convert.send_params_in(wire.read(wire.SendMessageRequest, body, ""))
    # proto3 defaults (see the module docstring): blocking left out is false, historyLength 0
    # (or left out) is the whole history.
    config = params.configuration or SendMessageConfiguration()
    update: dict[str, Any] = {}
    if config.return_immediately is None:
        update["return_immediately"] = True
    if config.history_length == 0:
        update["history_length"] = None
    if update or params.configuration is None:
        config = config.model_copy(update=update)
        params = params.model_copy(update={"configuration": config})
    return params


# --- tasks ----------------------------------------------------------------------------------------


def _get_params(call: RouteCall) -> GetTaskRequest:
    raw: dict[str, Any] = {"id": call.params["id"]}
    history_length = query_int(call.query, "historyLength")
    if history_length is not None:
        raw["historyLength"] = history_length
    return rpc.get_task_in(_validate(rpc.TaskQueryParams, raw))


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


def _list_params(call: RouteCall) -> ListTasksRequest:
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
    return rpc.list_tasks_in(_validate(rpc.ListTasksParams, raw))


def _list_status(value: str) -> str | None:
    """A status filter: proto enum name or number, or our name; None for "unspecified"."""
    try:
        state = convert.state_in(value, "status")
    except InvalidParamsError:
        # Our JSON-RPC names ("working"), or a bad value that validation will report
        # exactly as it does over JSON-RPC.
        return value
    return None if state is TaskState.UNKNOWN else state.value


def _cancel_params(call: RouteCall) -> CancelTaskRequest:
    _check_task_name(_body(call, required=False, typed=True), call.params["id"])
    return CancelTaskRequest(id=call.params["id"])


def _subscribe_params(call: RouteCall) -> SubscribeToTaskRequest:
    if call.request.method == "POST":
        _check_task_name(_body(call, required=False), call.params["id"])
    return SubscribeToTaskRequest(id=call.params["id"])


# --- push notification configs --------------------------------------------------------------------


def _push_set_params(call: RouteCall) -> TaskPushNotificationConfig:
    body = _body(call, required=True)
    assert body is not None
    task_id = call.params["id"]
    config_id = query_value(call.query, "configId")
    _check_config_id(config_id, "configId")
    config: wire.TaskPushNotificationConfig | None
    at = ""
    if any(key in body for key in ("config", "parent", "configId", "config_id")):
        # The SDK's CreateTaskPushNotificationConfigRequest.
        request = wire.read(wire.CreateTaskPushNotificationConfigRequest, body, "")
        if request.parent and convert.parse_task_name(request.parent, "parent") != task_id:
            raise InvalidParamsError(
                data={"errors": [{"field": "parent", "message": f"must be tasks/{task_id}"}]}
            )
        if request.config_id:
            _check_config_id(request.config_id, "configId")
            config_id = request.config_id
        config, at = request.config, "config"
    else:
        config = wire.read(wire.TaskPushNotificationConfig, body, "")
    if config is None or config.push_notification_config is None:
        raise InvalidParamsError(
            data={"errors": [{"field": "pushNotificationConfig", "message": "Field required"}]}
        )
    result = convert.task_push_config_in(config, at, task_id=task_id)
    if config_id and result.id is None:
        result = result.model_copy(update={"id": config_id})
    return result


def _check_config_id(config_id: str | None, field: str) -> None:
    """A config id names a resource under /v1/tasks/{id}/pushNotificationConfigs/: no "/"."""
    if config_id and "/" in config_id:
        raise InvalidParamsError(
            data={"errors": [{"field": field, "message": "Must not contain '/'"}]}
        )


def _push_get_params(call: RouteCall) -> GetTaskPushNotificationConfigRequest:
    return GetTaskPushNotificationConfigRequest(
        task_id=call.params["id"], id=call.params["configId"]
    )


def _push_list_params(call: RouteCall) -> ListTaskPushNotificationConfigsRequest:
    return ListTaskPushNotificationConfigsRequest(task_id=call.params["id"])


def _push_delete_params(call: RouteCall) -> DeleteTaskPushNotificationConfigRequest:
    return DeleteTaskPushNotificationConfigRequest(
        task_id=call.params["id"], id=call.params["configId"]
    )


def _no_params(call: RouteCall) -> None:
    return None


def _empty(result: Any) -> dict[str, Any]:
    return {}  # google.protobuf.Empty


_SUBSCRIBE = Operation("tasks/resubscribe", _subscribe_params)

ROUTES: dict[str, dict[str, Operation]] = {
    "message:send": {"POST": Operation("message/send", _send_params, convert.send_result_out)},
    "message:stream": {"POST": Operation("message/stream", _send_params)},
    "tasks": {
        "GET": Operation("tasks/list", _list_params, convert.list_result_out, query=_LIST_QUERY)
    },
    "task": {
        "GET": Operation("tasks/get", _get_params, convert.task_out, query=("historyLength",))
    },
    "task:cancel": {"POST": Operation("tasks/cancel", _cancel_params, convert.task_out)},
    "task:subscribe": {"GET": _SUBSCRIBE, "POST": _SUBSCRIBE},
    "pushConfigs": {
        "GET": Operation(
            "tasks/pushNotificationConfig/list",
            _push_list_params,
            convert.push_config_list_out,
        ),
        "POST": Operation(
            "tasks/pushNotificationConfig/set",
            _push_set_params,
            convert.task_push_config_out,
            query=("configId",),
        ),
    },
    "pushConfig": {
        "GET": Operation(
            "tasks/pushNotificationConfig/get",
            _push_get_params,
            convert.task_push_config_out,
        ),
        "DELETE": Operation("tasks/pushNotificationConfig/delete", _push_delete_params, _empty),
    },
    # As agent/getAuthenticatedExtendedCard over JSON-RPC (-32007, 404, when there is none). It
    # goes out as 0.3's JSON card (`card.py`, as over JSON-RPC), which is what the 0.3.26 SDK's REST
    # client reads here (pydantic, not proto JSON); for this caller only: never kept by a
    # shared cache.
    "card": {
        "GET": Operation(
            "agent/getAuthenticatedExtendedCard",
            _no_params,
            headers=[(b"cache-control", b"private, no-store")],
        )
    },
}

BINDING = RestBinding(
    routes=ROUTES,
    methods=METHODS,
    params=_read_params,
    error_reply=error_reply,
    extensions_headers=(EXTENSIONS_HEADER,),
    log=log,
)
