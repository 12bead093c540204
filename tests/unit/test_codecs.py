"""The two protocol versions' codecs (v03/, v10/): each names the other's JSON-RPC methods (for
its hint to a client that sent one without the right `A2A-Version`) without importing it, and
each has one table of its names for the internal enums."""

from __future__ import annotations

import typing

from a2a_serverless import models as m
from a2a_serverless.models import TaskState
from a2a_serverless.v03 import jsonrpc as v03_jsonrpc
from a2a_serverless.v03 import models as v03_models
from a2a_serverless.v03.methods import METHODS as V03_METHODS
from a2a_serverless.v10 import convert as v10_convert
from a2a_serverless.v10 import jsonrpc as v10_jsonrpc
from a2a_serverless.v10 import models as v10
from a2a_serverless.v10.methods import METHODS as V10_METHODS


def test_each_version_names_the_others_methods() -> None:
    assert set(V10_METHODS) == v03_jsonrpc.V10_METHOD_NAMES
    assert set(V03_METHODS) == v10_jsonrpc.V03_METHOD_NAMES


def test_each_version_names_every_state_and_role_once() -> None:
    for states, roles in ((v03_models.STATES, v03_models.ROLES), (v10.STATES, v10.ROLES)):
        assert set(states) == set(TaskState)
        assert len(set(states.values())) == len(states)
        assert set(roles) == {"user", "agent"}
    # 0.3's a2a.proto spells it with two Ls, 1.0's with one.
    assert v03_models.STATES[TaskState.CANCELED] == "TASK_STATE_CANCELLED"
    assert v10.STATES[TaskState.CANCELED] == "TASK_STATE_CANCELED"


def test_a_v10_request_names_any_state_but_the_default() -> None:
    named = set(typing.get_args(v10.TaskState))
    assert named == set(v10.STATES.values()) - {"TASK_STATE_UNSPECIFIED"}
    assert set(typing.get_args(v10.Role)) == {"ROLE_USER", "ROLE_AGENT"}


def test_v10_decodes_its_requests_straight_into_the_internal_ones_under_either_name() -> None:
    # A request the same in 1.0 and inside is read as the internal model, with the proto names
    # (at any depth) taken too: a send request's configuration, a push config's auth.
    config = v10.ProtoJSON(m.TaskPushNotificationConfig).model_validate(
        {"task_id": "t", "url": "https://h.example/x", "authentication": {"scheme": "Bearer"}}
    )
    assert config == m.TaskPushNotificationConfig(
        url="https://h.example/x", task_id="t", authentication=m.AuthenticationInfo(scheme="Bearer")
    )
    request = v10.SendMessageRequest.model_validate(
        {
            "message": {"message_id": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
            "configuration": {
                "return_immediately": True,
                "task_push_notification_config": {"url": "https://h.example/x", "token": ""},
            },
        }
    )
    sent = v10_convert.send_params_in(request)
    assert sent.configuration == m.SendMessageConfiguration(
        # ProtoJSON's empty string is no token.
        task_push_notification_config=m.TaskPushNotificationConfig(url="https://h.example/x"),
        return_immediately=True,
    )


def test_v10_renames_proto_names_in_lists_keeps_json_names_and_leaves_free_form_json() -> None:
    request = v10.SendMessageRequest.model_validate(
        {
            "message": {
                "message_id": "m",
                "messageId": "kept",  # both names: the json name's value
                "role": "ROLE_USER",
                "parts": [
                    {"text": "hi", "media_type": "text/plain"},
                    {"data": {"media_type": "free-form"}, "metadata": {"message_id": "as is"}},
                ],
                "reference_task_ids": ["t1"],
                "unknown_field": {"media_type": "ignored"},
            },
        }
    )
    message = request.message
    assert message.message_id == "kept"
    assert message.reference_task_ids == ["t1"]
    assert [part.media_type for part in message.parts] == ["text/plain", None]
    assert message.parts[1].data == {"media_type": "free-form"}
    assert message.parts[1].metadata == {"message_id": "as is"}
