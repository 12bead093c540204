"""A2A v1.0 over JSON-RPC: the method table, and errors with `google.rpc.ErrorInfo` details.

The envelope, the limits, authentication and the method dispatch are `jsonrpc.handle`'s, the
same for both versions; this module gives it v1.0's `Protocol`: its eleven methods (each turns
its v1.0 request into the internal params with `convert.py`, calls the service, and writes the
v1.0 result), its error objects and its stream events (`StreamResponse`).

Errors (spec v1.0 §9.5): `error.data` is a list of details. The first is a
`google.rpc.ErrorInfo` whose `reason` names the A2A error (`TASK_NOT_FOUND`, ...), with domain
`a2a-protocol.org` and, as `metadata`, what the error's data says (string values, as ErrorInfo
has them); invalid params add a `google.rpc.BadRequest` listing each field. The reasons are the
official SDK's, so its clients raise their own typed errors for ours.
"""

from __future__ import annotations

import json
from typing import Any

from .. import limits
from ..card import card_document
from ..errors import (
    A2AError,
    AuthenticatedExtendedCardNotConfiguredError,
    InvalidParamsError,
    MethodNotFoundError,
)
from ..jsonrpc import V03, Call, Method, Protocol
from ..models import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    TaskIdParams,
    TaskQueryParams,
)
from ..models import TaskPushNotificationConfig as InternalPushConfig
from ..service import StreamEvent
from . import convert
from . import models as v1

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
DOMAIN = "a2a-protocol.org"

# JSON-RPC code -> ErrorInfo reason (the official SDK's names for them).
_REASONS = {
    -32001: "TASK_NOT_FOUND",
    -32002: "TASK_NOT_CANCELABLE",
    -32003: "PUSH_NOTIFICATION_NOT_SUPPORTED",
    -32004: "UNSUPPORTED_OPERATION",
    -32005: "CONTENT_TYPE_NOT_SUPPORTED",
    -32006: "INVALID_AGENT_RESPONSE",
    -32007: "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    -32008: "EXTENSION_SUPPORT_REQUIRED",
    -32009: "VERSION_NOT_SUPPORTED",
    -32700: "PARSE_ERROR",
    -32600: "INVALID_REQUEST",
    -32601: "METHOD_NOT_FOUND",
    -32602: "INVALID_PARAMS",
    -32603: "INTERNAL_ERROR",
    -32000: "PERMISSION_DENIED",
}


def code_of(error: A2AError) -> int:
    """The v1.0 code of `error` (a few errors have a code of their own only in v1.0)."""
    return getattr(error, "v1_code", error.code)


def error_object(error: A2AError) -> dict[str, Any]:
    code = code_of(error)
    info: dict[str, Any] = {
        "@type": ERROR_INFO,
        "reason": _REASONS.get(code, "UNKNOWN_ERROR"),
        "domain": DOMAIN,
    }
    details: list[dict[str, Any]] = [info]
    data = error.data
    if isinstance(data, dict):
        metadata = {
            key: value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
            for key, value in data.items()
            if key != "errors"
        }
        if metadata:
            info["metadata"] = metadata
        errors = data.get("errors")
        if isinstance(errors, list) and errors:
            details.append(
                {
                    "@type": BAD_REQUEST,
                    "fieldViolations": [
                        {"field": str(e.get("field", "")), "description": str(e.get("message", ""))}
                        for e in errors
                        if isinstance(e, dict)
                    ],
                }
            )
    return {"code": code, "message": error.message, "data": details}


def event_result(event: StreamEvent) -> dict[str, Any]:
    return convert.stream_response(event.payload)


def unknown_method(name: str) -> A2AError:
    if name in V03.methods:
        return MethodNotFoundError(
            f"{name!r} is an A2A 0.3 method; this request asked for A2A 1.0 (A2A-Version), "
            "whose methods are SendMessage, GetTask, ...",
            data={"method": name, "version": "1.0"},
        )
    return MethodNotFoundError(data={"method": name})


# --- methods -------------------------------------------------------------------------------------


async def _send(p: v1.SendMessageRequest, c: Call) -> Any:
    params = convert.send_params_in(p)
    limits.check_params(params, c.service.settings)
    return convert.send_result_out(await c.service.send_message(params, c.caller))


async def _stream(p: v1.SendMessageRequest, c: Call) -> Any:
    params = convert.send_params_in(p)
    limits.check_params(params, c.service.settings)
    return await c.service.stream_message(params, c.caller, last_event_id=c.last_event_id)


def _non_blocking(p: v1.SendMessageRequest) -> v1.SendMessageRequest:
    config = p.configuration or v1.SendMessageConfiguration()
    return p.model_copy(
        update={"configuration": config.model_copy(update={"return_immediately": True})}
    )


async def _get(p: v1.GetTaskRequest, c: Call) -> Any:
    params = TaskQueryParams(id=p.id, history_length=p.history_length)
    return convert.task_out(await c.service.get_task(params, c.caller))


async def _list(p: v1.ListTasksRequest, c: Call) -> Any:
    params = convert.list_params_in(p)
    limits.check_params(params, c.service.settings)
    return convert.list_result_out(await c.service.list_tasks(params, c.caller))


async def _cancel(p: v1.CancelTaskRequest, c: Call) -> Any:
    task = await c.service.cancel_task(TaskIdParams(id=p.id, metadata=p.metadata), c.caller)
    return convert.task_out(task)


async def _subscribe(p: v1.SubscribeToTaskRequest, c: Call) -> Any:
    return await c.service.resubscribe(
        TaskIdParams(id=p.id), c.caller, last_event_id=c.last_event_id, refuse_finished=True
    )


async def _push_create(p: v1.TaskPushNotificationConfig, c: Call) -> Any:
    if not p.task_id:
        raise InvalidParamsError(
            data={"errors": [{"field": "taskId", "message": "Object missing required field"}]}
        )
    params = InternalPushConfig(
        task_id=p.task_id, push_notification_config=convert.push_config_in(p)
    )
    limits.check_params(params, c.service.settings)
    return convert.push_config_out(await c.service.set_push_config(params, c.caller))


async def _push_get(p: v1.GetTaskPushNotificationConfigRequest, c: Call) -> Any:
    params = GetTaskPushNotificationConfigParams(id=p.task_id, push_notification_config_id=p.id)
    return convert.push_config_out(await c.service.get_push_config(params, c.caller))


async def _push_list(p: v1.ListTaskPushNotificationConfigsRequest, c: Call) -> Any:
    params = ListTaskPushNotificationConfigParams(id=p.task_id)
    configs = await c.service.list_push_configs(params, c.caller)
    # A task has a handful of configs at most (A2A_PUSH_MAX_CONFIGS_PER_TASK): pages are slices,
    # their tokens the signed position, so a token is only good for the task it was made for.
    start = 0
    if p.page_token:
        start, task_id = c.service.page_tokens.decode(p.page_token)
        if task_id != p.task_id:
            raise InvalidParamsError(
                data={"errors": [{"field": "pageToken", "message": "not a token of this task"}]}
            )
    size = p.page_size or len(configs) or 1
    page = configs[start : start + size]
    end = start + len(page)
    token = c.service.page_tokens.encode(end, p.task_id) if end < len(configs) else ""
    return {"configs": [convert.push_config_out(x) for x in page], "nextPageToken": token}


async def _push_delete(p: v1.DeleteTaskPushNotificationConfigRequest, c: Call) -> Any:
    params = DeleteTaskPushNotificationConfigParams(id=p.task_id, push_notification_config_id=p.id)
    await c.service.delete_push_config(params, c.caller)
    return {}  # google.protobuf.Empty


async def _extended_card(_: v1.GetExtendedAgentCardRequest, c: Call) -> Any:
    if c.extended_card is None:
        raise AuthenticatedExtendedCardNotConfiguredError(
            "This agent has no extended agent card for this caller"
        )
    return card_document(c.extended_card())


def _raw_parts(raw: dict[str, Any]) -> int:
    return limits.raw_parts_count(raw.get("message"), "parts")


METHODS: dict[str, Method] = {
    "SendMessage": Method(
        v1.SendMessageRequest, _send, non_blocking=_non_blocking, raw_parts=_raw_parts
    ),
    "SendStreamingMessage": Method(
        v1.SendMessageRequest, _stream, streaming=True, raw_parts=_raw_parts
    ),
    "GetTask": Method(v1.GetTaskRequest, _get),
    "ListTasks": Method(v1.ListTasksRequest, _list, params_optional=True),
    "CancelTask": Method(v1.CancelTaskRequest, _cancel),
    "SubscribeToTask": Method(v1.SubscribeToTaskRequest, _subscribe, streaming=True),
    "CreateTaskPushNotificationConfig": Method(v1.TaskPushNotificationConfig, _push_create),
    "GetTaskPushNotificationConfig": Method(v1.GetTaskPushNotificationConfigRequest, _push_get),
    "ListTaskPushNotificationConfigs": Method(
        v1.ListTaskPushNotificationConfigsRequest, _push_list
    ),
    "DeleteTaskPushNotificationConfig": Method(
        v1.DeleteTaskPushNotificationConfigRequest, _push_delete
    ),
    "GetExtendedAgentCard": Method(
        v1.GetExtendedAgentCardRequest, _extended_card, params_optional=True
    ),
}

V10 = Protocol(
    version="1.0",
    methods=METHODS,
    error_object=error_object,
    event_result=event_result,
    unknown_method=unknown_method,
)
