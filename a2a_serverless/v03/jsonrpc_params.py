"""A2A 0.3's JSON-RPC params and results (spec/a2a.json of 0.3.0) <-> the internal requests.

The classes are 0.3's JSON-RPC shapes, as its schema names them: `v03/methods.py` validates a
request's params into them (so a `-32602` names 0.3's fields: `pushNotificationConfig.url`,
`lastUpdatedAfter`), converts them into the internal requests (`models.py`, 1.0's), and writes
the service's results back in these shapes. The client (`client/wire.py`) does the same the
other way round. The mapping:

- MessageSendParams -> SendMessageRequest; MessageSendConfiguration's `blocking` is 1.0's
  `returnImmediately` inverted (absent stays absent: both block by default), and its
  `pushNotificationConfig` is 1.0's `taskPushNotificationConfig`.
- PushNotificationConfig / TaskPushNotificationConfig `{taskId, pushNotificationConfig: {url,
  id, token, authentication: {schemes, credentials}}}` -> the flat TaskPushNotificationConfig
  `{taskId, url, id, token, authentication: {scheme, credentials}}`: of `schemes` the one
  notifications are sent with is kept (Bearer, then Basic, else the first:
  `AuthenticationInfo.of_schemes`), and one scheme goes out as a list of one (none as an empty
  list).
- TaskQueryParams -> GetTaskRequest; TaskIdParams -> CancelTaskRequest or
  SubscribeToTaskRequest; ListTasksParams -> ListTasksRequest (`lastUpdatedAfter`, epoch ms,
  is `statusTimestampAfter`); Get/List/DeleteTaskPushNotificationConfigParams -> their 1.0
  requests (`id` is the task's, `pushNotificationConfigId` the config's); ListTasksResponse ->
  ListTasksResult.

The message in a send request (and the tasks of a list) are 0.3's objects
(`jsonrpc_models.py`), converted by `jsonrpc_convert.py` (`message_in`, `task_in`, ...). The
server writes its results there too (`v03/jsonrpc.py`); a list of tasks is written here for
the client alone.
"""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from .. import codec
from .. import models as m
from ..models import A2AModel, Int64, NonNegative, TaskState
from . import jsonrpc_convert
from .jsonrpc_models import Message, Task

# --- 0.3's shapes -----------------------------------------------------------------------------


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


class MessageSendConfiguration(A2AModel):
    accepted_output_modes: list[str] | None = None
    blocking: bool | None = None
    history_length: NonNegative | None = None
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
    history_length: NonNegative | None = None
    metadata: dict[str, Any] | None = None


class ListTasksParams(A2AModel):
    context_id: str | None = None
    status: TaskState | None = None
    page_size: Annotated[int, Meta(ge=1, le=100)] | None = None
    page_token: str | None = None
    history_length: NonNegative | None = None
    last_updated_after: Int64 | None = None
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


# --- messages and tasks -----------------------------------------------------------------------


def message_in(message: Message) -> m.Message:
    return jsonrpc_convert.message_in(message)


def message_out(message: m.Message) -> Message:
    """The 0.3 message object of an internal message (a client's request)."""
    return codec.convert(jsonrpc_convert.message_out(message), Message)


def task_out(task: m.Task) -> Task:
    """The 0.3 task object of an internal task."""
    return codec.convert(jsonrpc_convert.task_out(task), Task)


def task_in(task: Task) -> m.Task:
    return jsonrpc_convert.task_in(task)


# --- 0.3 -> internal ----------------------------------------------------------------------------


def push_config_in(
    config: PushNotificationConfig, task_id: str | None = None
) -> m.TaskPushNotificationConfig:
    auth = config.authentication
    return m.TaskPushNotificationConfig(
        url=config.url,
        id=config.id,
        task_id=task_id,
        token=config.token,
        authentication=None
        if auth is None
        else m.AuthenticationInfo.of_schemes(auth.schemes, auth.credentials),
    )


def task_push_config_in(config: TaskPushNotificationConfig) -> m.TaskPushNotificationConfig:
    return push_config_in(config.push_notification_config, config.task_id)


def send_request_in(params: MessageSendParams) -> m.SendMessageRequest:
    config = params.configuration
    return m.SendMessageRequest(
        message=message_in(params.message),
        configuration=None if config is None else send_config_in(config),
        metadata=params.metadata,
    )


def send_config_in(config: MessageSendConfiguration) -> m.SendMessageConfiguration:
    push = config.push_notification_config
    return m.SendMessageConfiguration(
        accepted_output_modes=config.accepted_output_modes,
        task_push_notification_config=None if push is None else push_config_in(push),
        history_length=config.history_length,
        return_immediately=None if config.blocking is None else not config.blocking,
    )


def get_task_in(params: TaskQueryParams) -> m.GetTaskRequest:
    return m.GetTaskRequest(id=params.id, history_length=params.history_length)


def cancel_task_in(params: TaskIdParams) -> m.CancelTaskRequest:
    return m.CancelTaskRequest(id=params.id, metadata=params.metadata)


def subscribe_in(params: TaskIdParams) -> m.SubscribeToTaskRequest:
    return m.SubscribeToTaskRequest(id=params.id)


def list_tasks_in(params: ListTasksParams) -> m.ListTasksRequest:
    return m.ListTasksRequest(
        context_id=params.context_id,
        status=params.status,
        page_size=params.page_size,
        page_token=params.page_token,
        history_length=params.history_length,
        status_timestamp_after_ms=params.last_updated_after,
        include_artifacts=params.include_artifacts,
    )


def list_push_configs_in(
    params: ListTaskPushNotificationConfigParams,
) -> m.ListTaskPushNotificationConfigsRequest:
    return m.ListTaskPushNotificationConfigsRequest(task_id=params.id)


def delete_push_config_in(
    params: DeleteTaskPushNotificationConfigParams,
) -> m.DeleteTaskPushNotificationConfigRequest:
    return m.DeleteTaskPushNotificationConfigRequest(
        task_id=params.id, id=params.push_notification_config_id
    )


def list_result_in(result: ListTasksResult) -> m.ListTasksResponse:
    return m.ListTasksResponse(
        tasks=[task_in(task) for task in result.tasks],
        next_page_token=result.next_page_token,
        page_size=result.page_size,
        total_size=result.total_size,
    )


# --- internal -> 0.3 ----------------------------------------------------------------------------


def push_config_out(config: m.TaskPushNotificationConfig) -> PushNotificationConfig:
    auth = config.authentication
    return PushNotificationConfig(
        url=config.url,
        id=config.id,
        token=config.token,
        authentication=None
        if auth is None
        else PushNotificationAuthenticationInfo(
            schemes=[auth.scheme] if auth.scheme else [], credentials=auth.credentials
        ),
    )


def task_push_config_out(config: m.TaskPushNotificationConfig) -> TaskPushNotificationConfig:
    return TaskPushNotificationConfig(
        task_id=config.task_id or "", push_notification_config=push_config_out(config)
    )


def send_request_out(request: m.SendMessageRequest) -> MessageSendParams:
    config = request.configuration
    return MessageSendParams(
        message=message_out(request.message),
        configuration=None if config is None else send_config_out(config),
        metadata=request.metadata,
    )


def send_config_out(config: m.SendMessageConfiguration) -> MessageSendConfiguration:
    push = config.task_push_notification_config
    returns = config.return_immediately
    return MessageSendConfiguration(
        accepted_output_modes=config.accepted_output_modes,
        blocking=None if returns is None else not returns,
        history_length=config.history_length,
        push_notification_config=None if push is None else push_config_out(push),
    )


def list_tasks_out(request: m.ListTasksRequest) -> ListTasksParams:
    return ListTasksParams(
        context_id=request.context_id,
        status=request.status,
        page_size=request.page_size,
        page_token=request.page_token,
        history_length=request.history_length,
        last_updated_after=request.status_timestamp_after_ms,
        include_artifacts=request.include_artifacts,
    )


def list_result_out(result: m.ListTasksResponse) -> ListTasksResult:
    return ListTasksResult(
        tasks=[task_out(task) for task in result.tasks],
        total_size=result.total_size,
        page_size=result.page_size,
        next_page_token=result.next_page_token,
    )
