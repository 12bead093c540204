"""0.3's JSON-RPC params <-> the internal (1.0) requests: `v03/jsonrpc_params.py`'s mapping.

What differs: `blocking` is `returnImmediately` inverted (absent stays absent), the push config
nests under `pushNotificationConfig` with a list of `schemes` (the one notifications are sent
with is kept: Bearer, then Basic, else the first; one goes out as a list of one, none as an
empty list), `lastUpdatedAfter` is `statusTimestampAfter` in
milliseconds, and the task's id is `id` in the push config methods. The 0.3 JSON written back
is what 0.3 clients have always read (key for key).
"""

from __future__ import annotations

from typing import Any

import pytest

from a2a_serverless import models as m
from a2a_serverless.v03 import jsonrpc_params as rpc

MESSAGE = {
    "kind": "message",
    "messageId": "m-1",
    "role": "user",
    "parts": [{"kind": "text", "text": "hi"}],
}


@pytest.mark.parametrize(
    ("blocking", "return_immediately"), [(None, None), (True, False), (False, True)]
)
def test_blocking_is_return_immediately_inverted(
    blocking: bool | None, return_immediately: bool | None
) -> None:
    configuration = {} if blocking is None else {"blocking": blocking}
    params = rpc.MessageSendParams.model_validate(
        {"message": MESSAGE, "configuration": configuration}
    )
    request = rpc.send_request_in(params)
    assert request.configuration is not None
    assert request.configuration.return_immediately is return_immediately
    assert rpc.send_request_out(request).model_dump() == params.model_dump()


def test_a_send_requests_push_config_is_1_0s_and_comes_back_as_it_was_sent() -> None:
    raw: dict[str, Any] = {
        "message": MESSAGE,
        "configuration": {
            "acceptedOutputModes": ["text/plain"],
            "blocking": False,
            "historyLength": 2,
            "pushNotificationConfig": {
                "url": "https://hooks.example.com/a2a",
                "id": "c-1",
                "token": "t",
                "authentication": {"schemes": ["Bearer"], "credentials": "secret"},
            },
        },
        "metadata": {"k": 1},
    }
    request = rpc.send_request_in(rpc.MessageSendParams.model_validate(raw))
    assert request.configuration is not None
    assert request.configuration.task_push_notification_config == m.TaskPushNotificationConfig(
        url="https://hooks.example.com/a2a",
        id="c-1",
        token="t",
        authentication=m.AuthenticationInfo(scheme="Bearer", credentials="secret"),
    )
    assert rpc.send_request_out(request).model_dump() == raw


@pytest.mark.parametrize(
    ("schemes", "scheme", "written"),
    [
        (["Bearer"], "Bearer", ["Bearer"]),
        (["Basic", "Bearer"], "Bearer", ["Bearer"]),
        (["Digest", "basic"], "basic", ["basic"]),
        (["Digest", "Other"], "Digest", ["Digest"]),
        ([], "", []),
    ],
)
def test_of_the_schemes_the_one_notifications_are_sent_with_is_kept(
    schemes: list[str], scheme: str, written: list[str]
) -> None:
    wire = {
        "taskId": "t-1",
        "pushNotificationConfig": {
            "url": "https://h.example/x",
            "authentication": {"schemes": schemes},
        },
    }
    config = rpc.task_push_config_in(rpc.TaskPushNotificationConfig.model_validate(wire))
    assert config.task_id == "t-1"
    assert config.authentication == m.AuthenticationInfo(scheme=scheme)
    out = rpc.task_push_config_out(config).model_dump()
    assert out == {
        "taskId": "t-1",
        "pushNotificationConfig": {
            "url": "https://h.example/x",
            "authentication": {"schemes": written},
        },
    }


def test_list_params_and_result() -> None:
    params = rpc.ListTasksParams.model_validate(
        {
            "contextId": "c",
            "status": "input-required",
            "pageSize": 10,
            "pageToken": "p",
            "historyLength": 1,
            "lastUpdatedAfter": 1_700_000_000_000,
            "includeArtifacts": True,
        }
    )
    request = rpc.list_tasks_in(params)
    assert request == m.ListTasksRequest(
        context_id="c",
        status=m.TaskState.INPUT_REQUIRED,
        page_size=10,
        page_token="p",
        history_length=1,
        status_timestamp_after_ms=1_700_000_000_000,
        include_artifacts=True,
    )
    assert rpc.list_tasks_out(request) == params
    result = m.ListTasksResponse(tasks=[], next_page_token="n", page_size=10, total_size=3)
    # 0.3's key order, as its clients have always read it.
    assert list(rpc.list_result_out(result).model_dump()) == [
        "tasks",
        "totalSize",
        "pageSize",
        "nextPageToken",
    ]
    assert rpc.list_result_in(rpc.list_result_out(result)) == result


def test_task_and_push_config_methods_name_the_task_by_id() -> None:
    assert rpc.get_task_in(rpc.TaskQueryParams(id="t", history_length=2)) == m.GetTaskRequest(
        id="t", history_length=2
    )
    assert rpc.cancel_task_in(rpc.TaskIdParams(id="t", metadata={"a": 1})) == m.CancelTaskRequest(
        id="t", metadata={"a": 1}
    )
    assert rpc.subscribe_in(rpc.TaskIdParams(id="t")) == m.SubscribeToTaskRequest(id="t")
    listed = rpc.list_push_configs_in(rpc.ListTaskPushNotificationConfigParams(id="t"))
    assert listed == m.ListTaskPushNotificationConfigsRequest(task_id="t")
    deleted = rpc.delete_push_config_in(
        rpc.DeleteTaskPushNotificationConfigParams(id="t", push_notification_config_id="c")
    )
    assert deleted == m.DeleteTaskPushNotificationConfigRequest(task_id="t", id="c")
