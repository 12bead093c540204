"""A2A 0.3's methods, as both of its bindings call them (JSON-RPC and HTTP+JSON).

One table by JSON-RPC method name: the params type the request is validated into, the handler
that calls the service, and what the method needs besides (streaming, a non-blocking form for a
notification, the parts to count before validation). `v03/jsonrpc.py` serves it by name,
`v03/rest.py` by route (each route naming its entry here). A request's message is read in 0.3's
JSON-RPC shapes (`jsonrpc_models.py`) and converted for the service (`jsonrpc_convert.py`). The
result is an internal model: JSON-RPC writes it in 0.3's JSON-RPC shapes (`jsonrpc_convert.py`),
HTTP+JSON per route.

Where 0.3's rules differ from the service's (which are 1.0's), they are applied here, at the
edge: the refusals 0.3 names otherwise (`errors.py`, around every method), a context without
tasks listed as TaskNotFound (`_list`), and push configs set here notify in 0.3's form
(`VERSION`).
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from ..errors import AuthenticatedExtendedCardNotConfiguredError, TaskNotFoundError
from ..models import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    ListTasksParams,
    MessageSendConfiguration,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
)
from ..transport import Call, Method, raw_message_parts
from ..versions import V03 as VERSION
from .errors import in_v03_terms
from .jsonrpc_convert import send_params_in
from .jsonrpc_models import MessageSendParams


async def _send(p: MessageSendParams, c: Call) -> Any:
    return await c.service.send_message(send_params_in(p), c.caller, webhook_version=VERSION)


async def _stream(p: MessageSendParams, c: Call) -> Any:
    return await c.service.stream_message(
        send_params_in(p), c.caller, last_event_id=c.last_event_id, webhook_version=VERSION
    )


async def _get(p: TaskQueryParams, c: Call) -> Any:
    return await c.service.get_task(p, c.caller)


async def _list(p: ListTasksParams, c: Call) -> Any:
    result = await c.service.list_tasks(p, c.caller)
    # 0.3 answers a context without tasks as TaskNotFound; 1.0 lists no error for ListTasks
    # (spec 1.0 §3.1.4): an empty list, as the service answers.
    empty = p.context_id and result.total_size == 0 and not p.page_token
    if empty and p.context_id and not await c.service.context_has_tasks(p.context_id, c.caller):
        raise TaskNotFoundError(
            f"No tasks in context {p.context_id}", data={"contextId": p.context_id}
        )
    return result


async def _cancel(p: TaskIdParams, c: Call) -> Any:
    return await c.service.cancel_task(p, c.caller)


async def _resubscribe(p: TaskIdParams, c: Call) -> Any:
    return await c.service.resubscribe(p, c.caller, last_event_id=c.last_event_id)


async def _push_set(p: TaskPushNotificationConfig, c: Call) -> Any:
    return await c.service.set_push_config(p, c.caller, webhook_version=VERSION)


async def _push_get(p: GetTaskPushNotificationConfigParams, c: Call) -> Any:
    return await c.service.get_push_config(p, c.caller)


async def _push_list(p: ListTaskPushNotificationConfigParams, c: Call) -> Any:
    return await c.service.list_push_configs(p, c.caller)


async def _push_delete(p: DeleteTaskPushNotificationConfigParams, c: Call) -> Any:
    return await c.service.delete_push_config(p, c.caller)


async def _extended_card(_: None, c: Call) -> Any:
    if c.extended_card is None:
        raise AuthenticatedExtendedCardNotConfiguredError()
    return c.extended_card()


def _non_blocking(params: MessageSendParams) -> MessageSendParams:
    config = params.configuration or MessageSendConfiguration()
    return params.model_copy(
        update={"configuration": config.model_copy(update={"blocking": False})}
    )


_METHODS: dict[str, Method] = {
    "message/send": Method(
        MessageSendParams, _send, non_blocking=_non_blocking, raw_parts=raw_message_parts
    ),
    "message/stream": Method(
        MessageSendParams, _stream, streaming=True, raw_parts=raw_message_parts
    ),
    "tasks/get": Method(TaskQueryParams, _get),
    "tasks/list": Method(ListTasksParams, _list, params_optional=True),
    "tasks/cancel": Method(TaskIdParams, _cancel),
    "tasks/resubscribe": Method(TaskIdParams, _resubscribe, streaming=True),
    "tasks/pushNotificationConfig/set": Method(TaskPushNotificationConfig, _push_set),
    "tasks/pushNotificationConfig/get": Method(GetTaskPushNotificationConfigParams, _push_get),
    "tasks/pushNotificationConfig/list": Method(ListTaskPushNotificationConfigParams, _push_list),
    "tasks/pushNotificationConfig/delete": Method(
        DeleteTaskPushNotificationConfigParams, _push_delete
    ),
    "agent/getAuthenticatedExtendedCard": Method(None, _extended_card),
}

METHODS: dict[str, Method] = {
    name: replace(method, handler=in_v03_terms(method.handler)) for name, method in _METHODS.items()
}
