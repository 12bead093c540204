"""A2A v1.0's methods, as both of its transports call them (JSON-RPC and HTTP+JSON).

Most requests are decoded straight into the internal requests (1.0's, `ProtoJSON`); a send
request and a task list's are turned into them by `convert.py`. Each calls the service and
writes the v1.0 result. `v10/jsonrpc.py` serves them by method name, `v10/rest.py` by route; the
stream events of both are `event_result`'s `StreamResponse`s. The service's rules are 1.0's; a
push config set here notifies in 1.0's form (`VERSION`).
"""

from __future__ import annotations

from typing import Any

from ..errors import UnsupportedOperationError
from ..models import (
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    SendMessageConfiguration,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
)
from ..service import StreamEvent
from ..transport import Call, Method, raw_message_parts
from ..versions import V10 as VERSION
from . import convert
from . import models as v10
from .models import ProtoJSON


def event_result(event: StreamEvent) -> dict[str, Any]:
    return convert.stream_response(event.payload)


async def _send(p: v10.SendMessageRequest, c: Call) -> Any:
    params = convert.send_params_in(p)
    result = await c.service.send_message(params, c.caller, webhook_version=VERSION)
    return convert.send_result_out(result)


async def _stream(p: v10.SendMessageRequest, c: Call) -> Any:
    params = convert.send_params_in(p)
    return await c.service.stream_message(
        params, c.caller, last_event_id=c.last_event_id, webhook_version=VERSION
    )


def _non_blocking(p: v10.SendMessageRequest) -> v10.SendMessageRequest:
    config = p.configuration or SendMessageConfiguration()
    return p.model_copy(
        update={"configuration": config.model_copy(update={"return_immediately": True})}
    )


async def _get(p: GetTaskRequest, c: Call) -> Any:
    return convert.task_out(await c.service.get_task(p, c.caller))


async def _list(p: v10.ListTasksRequest, c: Call) -> Any:
    params = convert.list_params_in(p)
    return convert.list_result_out(await c.service.list_tasks(params, c.caller))


async def _cancel(p: CancelTaskRequest, c: Call) -> Any:
    return convert.task_out(await c.service.cancel_task(p, c.caller))


async def _subscribe(p: SubscribeToTaskRequest, c: Call) -> Any:
    return await c.service.resubscribe(
        p, c.caller, last_event_id=c.last_event_id, until_terminal=True
    )


async def _push_create(p: TaskPushNotificationConfig, c: Call) -> Any:
    params = convert.push_config_in(p)
    stored = await c.service.set_push_config(params, c.caller, webhook_version=VERSION)
    return convert.push_config_out(stored)


async def _push_get(p: GetTaskPushNotificationConfigRequest, c: Call) -> Any:
    return convert.push_config_out(await c.service.get_push_config(p, c.caller))


async def _push_list(p: ListTaskPushNotificationConfigsRequest, c: Call) -> Any:
    listed = await c.service.list_push_configs(p, c.caller)
    return {
        "configs": [convert.push_config_out(x) for x in listed.configs],
        "nextPageToken": listed.next_page_token,
    }


async def _push_delete(p: DeleteTaskPushNotificationConfigRequest, c: Call) -> Any:
    await c.service.delete_push_config(p, c.caller)
    return {}  # google.protobuf.Empty


async def _extended_card(_: GetExtendedAgentCardRequest, c: Call) -> Any:
    if c.extended_card is None:
        # Spec 1.0 §3.3.4: a card without `extendedAgentCard: true` MUST answer this with
        # UnsupportedOperationError; ExtendedAgentCardNotConfigured (-32007) is for an agent
        # that declares one but has none for the caller (the builder raises it).
        raise UnsupportedOperationError(
            "This agent declares no extended agent card (capabilities.extendedAgentCard is false)"
        )
    from ..card import card_document  # on the first call: a message's cold path has no card

    return card_document(c.extended_card())


METHODS: dict[str, Method] = {
    "SendMessage": Method(
        v10.SendMessageRequest, _send, non_blocking=_non_blocking, raw_parts=raw_message_parts
    ),
    "SendStreamingMessage": Method(
        v10.SendMessageRequest, _stream, streaming=True, raw_parts=raw_message_parts
    ),
    "GetTask": Method(ProtoJSON(GetTaskRequest), _get),
    "ListTasks": Method(v10.ListTasksRequest, _list, params_optional=True),
    "CancelTask": Method(ProtoJSON(CancelTaskRequest), _cancel),
    "SubscribeToTask": Method(ProtoJSON(SubscribeToTaskRequest), _subscribe, streaming=True),
    "CreateTaskPushNotificationConfig": Method(ProtoJSON(TaskPushNotificationConfig), _push_create),
    "GetTaskPushNotificationConfig": Method(
        ProtoJSON(GetTaskPushNotificationConfigRequest), _push_get
    ),
    "ListTaskPushNotificationConfigs": Method(
        ProtoJSON(ListTaskPushNotificationConfigsRequest), _push_list
    ),
    "DeleteTaskPushNotificationConfig": Method(
        ProtoJSON(DeleteTaskPushNotificationConfigRequest), _push_delete
    ),
    "GetExtendedAgentCard": Method(
        ProtoJSON(GetExtendedAgentCardRequest), _extended_card, params_optional=True
    ),
}
