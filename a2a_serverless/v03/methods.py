"""A2A 0.3's methods, as both of its bindings call them (JSON-RPC and HTTP+JSON).

`METHODS`, by JSON-RPC method name: the handler that calls the service with an internal request
(1.0's, `models.py`) and returns its internal result, and what the method needs besides
(streaming, a non-blocking form for a notification). `v03/rest.py` serves it by route: its
readers make the internal requests from proto JSON and its writers the replies (`convert.py`).
`JSONRPC_METHODS`, the same methods as `v03/jsonrpc.py` serves them: the params are validated
into 0.3's JSON-RPC shapes (`jsonrpc_params.py`, so a `-32602` names 0.3's fields; the parts
counted before; a message's parts are 0.3's objects, `jsonrpc_models.py`), converted into the
internal requests, and the results written back in 0.3's shapes (tasks, messages and task lists
by `jsonrpc_convert.py`, as `v03/jsonrpc.py` renders them; push configs here).

Where 0.3's rules differ from the service's (which are 1.0's), they are applied here, at the
edge: the refusals 0.3 names otherwise (`errors.py`, around every method), a context without
tasks listed as TaskNotFound (`_list`), a push config asked for without its id being the task's
default one, else its first (`_rpc_push_get`), and push configs set here notify in 0.3's form
(`VERSION`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from ..errors import (
    AuthenticatedExtendedCardNotConfiguredError,
    PushConfigNotFoundError,
    TaskNotFoundError,
)
from ..models import (
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
)
from ..transport import Call, Handler, Method, raw_message_parts
from ..versions import V03 as VERSION
from . import jsonrpc_params as rpc
from .errors import in_v03_terms

# --- over the internal requests -----------------------------------------------------------------


async def _send(p: SendMessageRequest, c: Call) -> Any:
    return await c.service.send_message(p, c.caller, webhook_version=VERSION)


async def _stream(p: SendMessageRequest, c: Call) -> Any:
    return await c.service.stream_message(
        p, c.caller, last_event_id=c.last_event_id, webhook_version=VERSION
    )


async def _get(p: GetTaskRequest, c: Call) -> Any:
    return await c.service.get_task(p, c.caller)


async def _list(p: ListTasksRequest, c: Call) -> Any:
    result = await c.service.list_tasks(p, c.caller)
    # 0.3 answers a context without tasks as TaskNotFound; 1.0 lists no error for ListTasks
    # (spec 1.0 §3.1.4): an empty list, as the service answers.
    empty = p.context_id and result.total_size == 0 and not p.page_token
    if empty and p.context_id and not await c.service.context_has_tasks(p.context_id, c.caller):
        raise TaskNotFoundError(
            f"No tasks in context {p.context_id}", data={"contextId": p.context_id}
        )
    return result


async def _cancel(p: CancelTaskRequest, c: Call) -> Any:
    return await c.service.cancel_task(p, c.caller)


async def _resubscribe(p: SubscribeToTaskRequest, c: Call) -> Any:
    return await c.service.resubscribe(p, c.caller, last_event_id=c.last_event_id)


async def _push_set(p: TaskPushNotificationConfig, c: Call) -> Any:
    return await c.service.set_push_config(p, c.caller, webhook_version=VERSION)


async def _push_get(p: GetTaskPushNotificationConfigRequest, c: Call) -> Any:
    return await c.service.get_push_config(p, c.caller)


async def _push_list(p: ListTaskPushNotificationConfigsRequest, c: Call) -> Any:
    # 0.3 has no pages of configs: the request asks for none, so the one page is all of them.
    return (await c.service.list_push_configs(p, c.caller)).configs


async def _push_delete(p: DeleteTaskPushNotificationConfigRequest, c: Call) -> Any:
    return await c.service.delete_push_config(p, c.caller)


async def _extended_card(_: None, c: Call) -> Any:
    if c.extended_card is None:
        raise AuthenticatedExtendedCardNotConfiguredError()
    from . import card  # on the first call: a message's cold path has no card to write

    return card.card(c.extended_card())


def _non_blocking(params: SendMessageRequest) -> SendMessageRequest:
    config = params.configuration or SendMessageConfiguration()
    return params.model_copy(
        update={"configuration": config.model_copy(update={"return_immediately": True})}
    )


_METHODS: dict[str, Method] = {
    "message/send": Method(
        SendMessageRequest, _send, non_blocking=_non_blocking, raw_parts=raw_message_parts
    ),
    "message/stream": Method(
        SendMessageRequest, _stream, streaming=True, raw_parts=raw_message_parts
    ),
    "tasks/get": Method(GetTaskRequest, _get),
    "tasks/list": Method(ListTasksRequest, _list, params_optional=True),
    "tasks/cancel": Method(CancelTaskRequest, _cancel),
    "tasks/resubscribe": Method(SubscribeToTaskRequest, _resubscribe, streaming=True),
    "tasks/pushNotificationConfig/set": Method(TaskPushNotificationConfig, _push_set),
    "tasks/pushNotificationConfig/get": Method(GetTaskPushNotificationConfigRequest, _push_get),
    "tasks/pushNotificationConfig/list": Method(ListTaskPushNotificationConfigsRequest, _push_list),
    "tasks/pushNotificationConfig/delete": Method(
        DeleteTaskPushNotificationConfigRequest, _push_delete
    ),
    "agent/getAuthenticatedExtendedCard": Method(None, _extended_card),
}

METHODS: dict[str, Method] = {
    name: replace(method, handler=in_v03_terms(method.handler)) for name, method in _METHODS.items()
}


# --- over JSON-RPC: 0.3's params and results ----------------------------------------------------


def _over_rpc(
    name: str, request_in: Callable[[Any], Any], result_out: Callable[[Any], Any] | None = None
) -> Handler:
    """Method `name`'s handler for 0.3's JSON-RPC params: converted in, and its result out."""
    handler = _METHODS[name].handler

    async def handle(params: Any, call: Call) -> Any:
        result = await handler(request_in(params), call)
        return result if result_out is None else result_out(result)

    return handle


def _push_configs_out(configs: list[TaskPushNotificationConfig]) -> list[Any]:
    return [rpc.task_push_config_out(config) for config in configs]


async def _rpc_push_get(p: rpc.GetTaskPushNotificationConfigParams, c: Call) -> Any:
    """0.3's get names its config optionally: without an id, the task's default config (its
    id the task's), else the first it has."""
    request = GetTaskPushNotificationConfigRequest(
        task_id=p.id, id=p.push_notification_config_id or p.id
    )
    try:
        config = await _push_get(request, c)
    except PushConfigNotFoundError:
        if p.push_notification_config_id is not None:
            raise
        listed = await c.service.list_push_configs(
            ListTaskPushNotificationConfigsRequest(task_id=p.id), c.caller
        )
        if not listed.configs:
            raise
        config = listed.configs[0]
    return rpc.task_push_config_out(config)


def _rpc_non_blocking(params: rpc.MessageSendParams) -> rpc.MessageSendParams:
    config = params.configuration or rpc.MessageSendConfiguration()
    return params.model_copy(
        update={"configuration": config.model_copy(update={"blocking": False})}
    )


_JSONRPC_METHODS: dict[str, Method] = {
    "message/send": Method(
        rpc.MessageSendParams,
        _over_rpc("message/send", rpc.send_request_in),
        non_blocking=_rpc_non_blocking,
        raw_parts=raw_message_parts,
    ),
    "message/stream": Method(
        rpc.MessageSendParams,
        _over_rpc("message/stream", rpc.send_request_in),
        streaming=True,
        raw_parts=raw_message_parts,
    ),
    "tasks/get": Method(rpc.TaskQueryParams, _over_rpc("tasks/get", rpc.get_task_in)),
    "tasks/list": Method(
        rpc.ListTasksParams,
        _over_rpc("tasks/list", rpc.list_tasks_in),
        params_optional=True,
    ),
    "tasks/cancel": Method(rpc.TaskIdParams, _over_rpc("tasks/cancel", rpc.cancel_task_in)),
    "tasks/resubscribe": Method(
        rpc.TaskIdParams, _over_rpc("tasks/resubscribe", rpc.subscribe_in), streaming=True
    ),
    "tasks/pushNotificationConfig/set": Method(
        rpc.TaskPushNotificationConfig,
        _over_rpc(
            "tasks/pushNotificationConfig/set", rpc.task_push_config_in, rpc.task_push_config_out
        ),
    ),
    "tasks/pushNotificationConfig/get": Method(
        rpc.GetTaskPushNotificationConfigParams, _rpc_push_get
    ),
    "tasks/pushNotificationConfig/list": Method(
        rpc.ListTaskPushNotificationConfigParams,
        _over_rpc("tasks/pushNotificationConfig/list", rpc.list_push_configs_in, _push_configs_out),
    ),
    "tasks/pushNotificationConfig/delete": Method(
        rpc.DeleteTaskPushNotificationConfigParams,
        _over_rpc("tasks/pushNotificationConfig/delete", rpc.delete_push_config_in),
    ),
    "agent/getAuthenticatedExtendedCard": _METHODS["agent/getAuthenticatedExtendedCard"],
}

JSONRPC_METHODS: dict[str, Method] = {
    name: replace(method, handler=in_v03_terms(method.handler))
    for name, method in _JSONRPC_METHODS.items()
}
