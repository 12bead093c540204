"""A2A v1.0's methods, as both of its transports call them (JSON-RPC and HTTP+JSON).

Each turns its v1.0 request into the internal params with `convert.py`, calls the service and
writes the v1.0 result. `v10/jsonrpc.py` serves them by method name, `v10/rest.py` by route; the
stream events of both are `event_result`'s `StreamResponse`s. The service's rules are 1.0's; a
push config set here notifies in 1.0's form (`VERSION`).
"""

from __future__ import annotations

from typing import Any

from ..card import card_document
from ..errors import InvalidParamsError, UnsupportedOperationError
from ..models import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    TaskIdParams,
    TaskQueryParams,
)
from ..models import TaskPushNotificationConfig as InternalPushConfig
from ..service import StreamEvent
from ..transport import Call, Method, raw_message_parts
from ..versions import V10 as VERSION
from . import convert
from . import models as v10


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
    config = p.configuration or v10.SendMessageConfiguration()
    return p.model_copy(
        update={"configuration": config.model_copy(update={"return_immediately": True})}
    )


async def _get(p: v10.GetTaskRequest, c: Call) -> Any:
    params = TaskQueryParams(id=p.id, history_length=p.history_length)
    return convert.task_out(await c.service.get_task(params, c.caller))


async def _list(p: v10.ListTasksRequest, c: Call) -> Any:
    params = convert.list_params_in(p)
    return convert.list_result_out(await c.service.list_tasks(params, c.caller))


async def _cancel(p: v10.CancelTaskRequest, c: Call) -> Any:
    task = await c.service.cancel_task(TaskIdParams(id=p.id, metadata=p.metadata), c.caller)
    return convert.task_out(task)


async def _subscribe(p: v10.SubscribeToTaskRequest, c: Call) -> Any:
    return await c.service.resubscribe(
        TaskIdParams(id=p.id), c.caller, last_event_id=c.last_event_id, until_terminal=True
    )


async def _push_create(p: v10.TaskPushNotificationConfig, c: Call) -> Any:
    if not p.task_id:
        raise InvalidParamsError(
            data={"errors": [{"field": "taskId", "message": "Object missing required field"}]}
        )
    params = InternalPushConfig(
        task_id=p.task_id, push_notification_config=convert.push_config_in(p)
    )
    stored = await c.service.set_push_config(params, c.caller, webhook_version=VERSION)
    return convert.push_config_out(stored)


async def _push_get(p: v10.GetTaskPushNotificationConfigRequest, c: Call) -> Any:
    params = GetTaskPushNotificationConfigParams(id=p.task_id, push_notification_config_id=p.id)
    return convert.push_config_out(await c.service.get_push_config(params, c.caller))


async def _push_list(p: v10.ListTaskPushNotificationConfigsRequest, c: Call) -> Any:
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


async def _push_delete(p: v10.DeleteTaskPushNotificationConfigRequest, c: Call) -> Any:
    params = DeleteTaskPushNotificationConfigParams(id=p.task_id, push_notification_config_id=p.id)
    await c.service.delete_push_config(params, c.caller)
    return {}  # google.protobuf.Empty


async def _extended_card(_: v10.GetExtendedAgentCardRequest, c: Call) -> Any:
    if c.extended_card is None:
        # Spec 1.0 §3.3.4: a card without `extendedAgentCard: true` MUST answer this with
        # UnsupportedOperationError; ExtendedAgentCardNotConfigured (-32007) is for an agent
        # that declares one but has none for the caller (the builder raises it).
        raise UnsupportedOperationError(
            "This agent declares no extended agent card (capabilities.extendedAgentCard is false)"
        )
    return card_document(c.extended_card())


METHODS: dict[str, Method] = {
    "SendMessage": Method(
        v10.SendMessageRequest, _send, non_blocking=_non_blocking, raw_parts=raw_message_parts
    ),
    "SendStreamingMessage": Method(
        v10.SendMessageRequest, _stream, streaming=True, raw_parts=raw_message_parts
    ),
    "GetTask": Method(v10.GetTaskRequest, _get),
    "ListTasks": Method(v10.ListTasksRequest, _list, params_optional=True),
    "CancelTask": Method(v10.CancelTaskRequest, _cancel),
    "SubscribeToTask": Method(v10.SubscribeToTaskRequest, _subscribe, streaming=True),
    "CreateTaskPushNotificationConfig": Method(v10.TaskPushNotificationConfig, _push_create),
    "GetTaskPushNotificationConfig": Method(v10.GetTaskPushNotificationConfigRequest, _push_get),
    "ListTaskPushNotificationConfigs": Method(
        v10.ListTaskPushNotificationConfigsRequest, _push_list
    ),
    "DeleteTaskPushNotificationConfig": Method(
        v10.DeleteTaskPushNotificationConfigRequest, _push_delete
    ),
    "GetExtendedAgentCard": Method(
        v10.GetExtendedAgentCardRequest, _extended_card, params_optional=True
    ),
}
