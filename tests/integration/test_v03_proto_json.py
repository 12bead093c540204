"""The proto-JSON form of 0.3's HTTP+JSON binding: its Structs (a2a_serverless/v03/models.py) and
their converter to and from the internal model (a2a_serverless/v03/convert.py).

For every protocol object the REST transport carries:

- round trip: model -> proto JSON -> Struct -> model gives the same object;
- the SDK reads ours: our proto JSON parses strictly (unknown fields refused, as the a2a-sdk
  0.3.26 client parses) into the SDK's `a2a_pb2` message, and that message equals what the
  SDK's own converter (`proto_utils.ToProto`) makes of the same object;
- we read the SDK's: what `ToProto` + `MessageToDict` write (i.e. what the SDK's REST client
  sends, or its server answers) reads back to an object whose proto form is that same message.

Proto messages compare with proto semantics (a default value equals an absent one), which is
also how the SDK sees them. The documented differences between a2a.proto and the SDK's proto
(module docstring of v03/convert.py) have their own tests below.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from a2a import types as sdk
from a2a.grpc import a2a_pb2
from a2a.utils.proto_utils import ToProto
from google.protobuf.json_format import MessageToDict, ParseDict
from google.protobuf.message import Message as ProtoMessage
from msgspec.structs import replace

from a2a_serverless.errors import InvalidParamsError
from a2a_serverless.models import (
    Artifact,
    AuthenticationInfo,
    ListTasksResponse,
    Message,
    Part,
    SendMessageConfiguration,
    SendMessageRequest,
    Task,
    TaskArtifactUpdateEvent,
    TaskPushNotificationConfig,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from a2a_serverless.v03 import convert as c
from a2a_serverless.v03 import jsonrpc_convert as j
from a2a_serverless.v03 import jsonrpc_params as rpc
from a2a_serverless.v03 import models as w

TS = "2025-03-04T05:06:07.123Z"
META = {"trace": "abc", "nested": {"list": [1, "two", None, True], "n": 1.5}}


def text(value: str, **fields: Any) -> Part:
    return Part(text=value, **fields)


USER = Message(
    message_id="m-1",
    role="user",
    parts=[
        text("hello", metadata={"lang": "en"}),
        Part(raw="aGVsbG8gd29ybGQ=", media_type="text/plain", filename="a"),
        Part(url="https://example.com/x.png", media_type="image/png"),
        Part(raw="AAEC"),
        Part(data={"k": [1, {"x": None}]}, metadata=META),
    ],
    context_id="ctx-1",
    task_id="task-1",
    extensions=["https://example.com/ext/v1"],
    metadata=META,
)
AGENT = Message(message_id="m-2", role="agent", parts=[text("What is your name?")])
ARTIFACT = Artifact(
    artifact_id="art-1",
    parts=[text("chunk 0;"), Part(data={"a": 1})],
    name="response",
    description="the answer",
    extensions=["https://example.com/ext/v1"],
    metadata=META,
)
TASK = Task(
    id="task-1",
    context_id="ctx-1",
    status=TaskStatus(state=TaskState.INPUT_REQUIRED, message=AGENT, timestamp=TS),
    artifacts=[ARTIFACT, Artifact(artifact_id="art-2", parts=[text("x")])],
    history=[USER, AGENT],
    metadata=META,
)
AUTH = AuthenticationInfo(scheme="Bearer", credentials="secret")
PUSH = TaskPushNotificationConfig(
    url="https://hooks.example.com/a", id="c-1", token="t", authentication=AUTH
)


@dataclass(frozen=True)
class Case:
    """One object: how to convert it both ways, and how the SDK converts it."""

    name: str
    value: Any  # a model, or a list of models
    to_proto: Callable[[Any], dict[str, Any]]  # model (or list of models) -> proto JSON
    from_proto: Callable[[Any], Any]  # proto JSON -> model (or list of models)
    pb_type: type[ProtoMessage] | None = None
    # The SDK's proto message for the same object (None: the SDK has no such message).
    sdk_pb: Callable[[Any], ProtoMessage] | None = None


def dump(value: Any) -> Any:
    """A value in 0.3's JSON-RPC form (what the SDK's pydantic models read)."""
    if isinstance(value, list):
        return [dump(v) for v in value]
    if isinstance(value, Part):
        return j.part_out(value)
    if isinstance(value, TaskStatus):
        return j.status_out(value)
    if isinstance(value, Artifact):
        return j.artifact_out(value)
    if isinstance(value, Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent):
        return j.stream_result_out(value)
    return j.result_out(value)


def reader(struct: type[w.ProtoModel], convert_in: Callable[..., Any]) -> Callable[[Any], Any]:
    """Proto JSON read as `struct`, then converted by `convert_in`."""
    return lambda wire: convert_in(w.read(struct, wire, "x"))


def sdk_obj(sdk_type: Any, value: Any) -> Any:
    return sdk_type.model_validate(dump(value))


def sdk_03(sdk_type: Any, to_03: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The SDK's object of an internal value, by 0.3's JSON-RPC form of it (`to_03`)."""
    return lambda value: sdk_obj(sdk_type, to_03(value))


def _auth_out(auth: AuthenticationInfo) -> Any:
    config = TaskPushNotificationConfig(url="u", authentication=auth)
    return c.push_config_out(config)["authentication"]


def _auth_in(wire: Any) -> Any:
    config = w.read(w.PushNotificationConfig, {"url": "u", "authentication": wire}, "config")
    return c.push_config_in(config).authentication


CASES = [
    *[
        Case(
            f"part-{i}",
            part,
            c.part_out,
            reader(w.Part, c.part_in),
            a2a_pb2.Part,
            lambda v: ToProto.part(sdk.Part.model_validate(dump(v))),
        )
        for i, part in enumerate(USER.parts)
    ],
    Case(
        "message",
        USER,
        c.message_out,
        reader(w.Message, c.message_in),
        a2a_pb2.Message,
        lambda v: ToProto.message(sdk_obj(sdk.Message, v)),
    ),
    Case(
        "message-minimal",
        AGENT,
        c.message_out,
        reader(w.Message, c.message_in),
        a2a_pb2.Message,
        lambda v: ToProto.message(sdk_obj(sdk.Message, v)),
    ),
    Case(
        "task-status",
        TASK.status,
        c.status_out,
        reader(w.TaskStatus, c.status_in),
        a2a_pb2.TaskStatus,
        lambda v: ToProto.task_status(sdk_obj(sdk.TaskStatus, v)),
    ),
    Case(
        "artifact",
        ARTIFACT,
        c.artifact_out,
        reader(w.Artifact, c.artifact_in),
        a2a_pb2.Artifact,
        lambda v: ToProto.artifact(sdk_obj(sdk.Artifact, v)),
    ),
    Case(
        "task",
        TASK,
        c.task_out,
        reader(w.Task, c.task_in),
        a2a_pb2.Task,
        lambda v: ToProto.task(sdk_obj(sdk.Task, v)),
    ),
    Case(
        # tasks/list with includeArtifacts: an empty list must stay present (spec §7.4.1).
        "task-minimal-empty-artifacts",
        Task(
            id="t",
            context_id="c",
            status=TaskStatus(state=TaskState.SUBMITTED),
            artifacts=[],
        ),
        c.task_out,
        reader(w.Task, c.task_in),
        a2a_pb2.Task,
        lambda v: ToProto.task(sdk_obj(sdk.Task, v)),
    ),
    *[
        Case(
            f"task-state-{state.value}",
            Task(id="t", context_id="c", status=TaskStatus(state=state)),
            c.task_out,
            reader(w.Task, c.task_in),
            a2a_pb2.Task,
            lambda v: ToProto.task(sdk_obj(sdk.Task, v)),
        )
        for state in TaskState
    ],
    *[
        Case(
            f"status-update-final-{final}",
            TaskStatusUpdateEvent(
                task_id="t",
                context_id="c",
                # `final` is written from the state: input-required ends a stream, working not.
                status=TASK.status
                if final
                else TASK.status.model_copy(update={"state": TaskState.WORKING}),
                metadata=META,
            ),
            c.status_update_out,
            reader(w.TaskStatusUpdateEvent, c.status_update_in),
            a2a_pb2.TaskStatusUpdateEvent,
            lambda v: ToProto.task_status_update_event(sdk_obj(sdk.TaskStatusUpdateEvent, v)),
        )
        for final in (True, False)
    ],
    *[
        Case(
            f"artifact-update-{append}-{last}",
            TaskArtifactUpdateEvent(
                task_id="t",
                context_id="c",
                artifact=ARTIFACT,
                append=append,
                last_chunk=last,
                metadata=META if append else None,
            ),
            c.artifact_update_out,
            reader(w.TaskArtifactUpdateEvent, c.artifact_update_in),
            a2a_pb2.TaskArtifactUpdateEvent,
            lambda v: ToProto.task_artifact_update_event(sdk_obj(sdk.TaskArtifactUpdateEvent, v)),
        )
        for append, last in [(None, None), (False, False), (True, True), (True, None)]
    ],
    Case(
        "auth-info",
        AUTH,
        _auth_out,
        lambda v: (
            c.push_config_in(
                w.read(w.PushNotificationConfig, {"url": "u", "authentication": v}, "config")
            ).authentication
        ),
        a2a_pb2.AuthenticationInfo,
        lambda v: ToProto.authentication_info(
            sdk_03(sdk.PushNotificationAuthenticationInfo, _auth_03)(v)
        ),
    ),
    Case(
        "push-config",
        PUSH,
        c.push_config_out,
        reader(w.PushNotificationConfig, c.push_config_in),
        a2a_pb2.PushNotificationConfig,
        lambda v: ToProto.push_notification_config(
            sdk_03(sdk.PushNotificationConfig, rpc.push_config_out)(v)
        ),
    ),
    Case(
        "push-config-minimal",
        TaskPushNotificationConfig(url="https://hooks.example.com/b"),
        c.push_config_out,
        reader(w.PushNotificationConfig, c.push_config_in),
        a2a_pb2.PushNotificationConfig,
        lambda v: ToProto.push_notification_config(
            sdk_03(sdk.PushNotificationConfig, rpc.push_config_out)(v)
        ),
    ),
    Case(
        "task-push-config",
        replace(PUSH, task_id="task-1"),
        c.task_push_config_out,
        reader(w.TaskPushNotificationConfig, c.task_push_config_in),
        a2a_pb2.TaskPushNotificationConfig,
        lambda v: ToProto.task_push_notification_config(
            sdk_03(sdk.TaskPushNotificationConfig, rpc.task_push_config_out)(v)
        ),
    ),
    Case(
        "push-config-list",
        [
            replace(PUSH, task_id="task-1"),
            TaskPushNotificationConfig(task_id="task-1", url="https://h.example/b", id="b"),
        ],
        c.push_config_list_out,
        reader(w.ListTaskPushNotificationConfigResponse, c.push_config_list_in),
        a2a_pb2.ListTaskPushNotificationConfigResponse,
        lambda v: a2a_pb2.ListTaskPushNotificationConfigResponse(
            configs=[
                ToProto.task_push_notification_config(
                    sdk_03(sdk.TaskPushNotificationConfig, rpc.task_push_config_out)(c)
                )
                for c in v
            ]
        ),
    ),
    *[
        Case(
            f"send-config-{i}",
            config,
            c.send_config_out,
            reader(w.SendMessageConfiguration, c.send_config_in),
            a2a_pb2.SendMessageConfiguration,
            lambda v: ToProto.message_send_configuration(
                sdk_03(sdk.MessageSendConfiguration, rpc.send_config_out)(v)
            ),
        )
        for i, config in enumerate(
            [
                SendMessageConfiguration(
                    accepted_output_modes=["text/plain", "application/json"],
                    return_immediately=False,
                    history_length=3,
                    task_push_notification_config=PUSH,
                ),
                SendMessageConfiguration(return_immediately=True),
                SendMessageConfiguration(),
            ]
        )
    ],
    Case(
        "send-params",
        SendMessageRequest(
            message=USER,
            configuration=SendMessageConfiguration(return_immediately=False, history_length=2),
            metadata=META,
        ),
        c.send_params_out,
        reader(w.SendMessageRequest, c.send_params_in),
        a2a_pb2.SendMessageRequest,
        lambda v: _sdk_send_request(sdk_03(sdk.MessageSendParams, rpc.send_request_out)(v)),
    ),
    Case(
        "send-params-minimal",
        SendMessageRequest(message=USER),
        c.send_params_out,
        reader(w.SendMessageRequest, c.send_params_in),
        a2a_pb2.SendMessageRequest,
        None,  # the SDK always writes a configuration; covered by the case above
    ),
    *[
        Case(
            f"send-response-{kind}",
            value,
            c.send_result_out,
            reader(w.SendMessageResponse, c.send_result_in),
            a2a_pb2.SendMessageResponse,
            lambda v: ToProto.task_or_message(
                sdk_obj(sdk.Task if isinstance(v, Task) else sdk.Message, v)
            ),
        )
        for kind, value in [("task", TASK), ("message", AGENT)]
    ],
    *[
        Case(
            f"stream-response-{type(value).__name__}",
            value,
            c.stream_response,
            reader(w.StreamResponse, c.stream_result_in),
            a2a_pb2.StreamResponse,
            lambda v: ToProto.stream_response(_sdk_result(v)),
        )
        for value in [
            TASK,
            AGENT,
            TaskStatusUpdateEvent(task_id="t", context_id="c", status=TASK.status),
            TaskArtifactUpdateEvent(task_id="t", context_id="c", artifact=ARTIFACT, append=True),
        ]
    ],
    Case(
        # Not in the SDK's proto (0.3.26 has no ListTasks); a2a.proto's ListTasksResponse.
        "list-tasks-result",
        ListTasksResponse(tasks=[TASK, TASK], next_page_token="abc", page_size=2, total_size=7),
        c.list_result_out,
        reader(w.ListTasksResponse, c.list_result_in),
    ),
    Case(
        "list-tasks-result-last-page",
        ListTasksResponse(tasks=[], next_page_token="", page_size=50, total_size=0),
        c.list_result_out,
        reader(w.ListTasksResponse, c.list_result_in),
    ),
]


def _auth_03(auth: AuthenticationInfo) -> Any:
    """0.3's JSON-RPC PushNotificationAuthenticationInfo of an internal AuthenticationInfo."""
    config = rpc.push_config_out(TaskPushNotificationConfig(url="u", authentication=auth))
    assert config.authentication is not None
    return config.authentication


def _sdk_send_request(params: Any) -> a2a_pb2.SendMessageRequest:
    """As the SDK's RestTransport builds the body of message:send / message:stream."""
    return a2a_pb2.SendMessageRequest(
        request=ToProto.message(params.message),
        configuration=ToProto.message_send_configuration(params.configuration),
        metadata=ToProto.metadata(params.metadata) if params.metadata else None,
    )


def _sdk_result(value: Any) -> Any:
    types = {
        Task: sdk.Task,
        Message: sdk.Message,
        TaskStatusUpdateEvent: sdk.TaskStatusUpdateEvent,
        TaskArtifactUpdateEvent: sdk.TaskArtifactUpdateEvent,
    }
    return types[type(value)].model_validate(dump(value))


def _without_sdk_losses(message: ProtoMessage) -> ProtoMessage:
    """The SDK's ToProto drops TaskStatus.timestamp; clear it on our side before comparing."""
    copy = type(message)()
    copy.CopyFrom(message)

    def clear(node: ProtoMessage) -> None:
        if isinstance(node, a2a_pb2.TaskStatus):
            node.ClearField("timestamp")
        for descriptor, value in node.ListFields():
            if descriptor.message_type is None or descriptor.message_type.name == "Struct":
                continue
            if isinstance(value, ProtoMessage):
                clear(value)
            else:  # a repeated message field
                for item in value:
                    clear(item)

    clear(copy)
    return copy


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_round_trip(case: Case) -> None:
    wire = case.to_proto(case.value)
    back = case.from_proto(wire)
    assert dump(back) == dump(case.value)
    # The wire form never carries our `kind` discriminators.
    assert '"kind"' not in repr(wire).replace("'", '"')


SDK_CASES = [c for c in CASES if c.pb_type is not None]


@pytest.mark.parametrize("case", SDK_CASES, ids=[c.name for c in SDK_CASES])
def test_the_sdk_parses_ours_strictly_and_reads_the_same_object(case: Case) -> None:
    assert case.pb_type is not None
    wire = case.to_proto(case.value)
    parsed = ParseDict(wire, case.pb_type())  # strict: an unknown field would raise
    if case.sdk_pb is not None:
        assert _without_sdk_losses(parsed) == case.sdk_pb(case.value)


@pytest.mark.parametrize(
    "case", [c for c in SDK_CASES if c.sdk_pb], ids=[c.name for c in SDK_CASES if c.sdk_pb]
)
def test_we_read_what_the_sdk_writes(case: Case) -> None:
    assert case.sdk_pb is not None and case.pb_type is not None
    sdk_message = case.sdk_pb(case.value)
    for names in ({}, {"preserving_proto_field_name": True}):
        written = MessageToDict(sdk_message, **names)
        ours = case.from_proto(written)
        again = ParseDict(case.to_proto(ours), case.pb_type())
        assert _without_sdk_losses(again) == sdk_message, names


# --- the mapping in detail -------------------------------------------------------------------


def test_wire_names_of_a_task() -> None:
    wire = c.task_out(TASK)
    assert list(wire) == ["id", "contextId", "status", "artifacts", "history", "metadata"]
    assert wire["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert wire["status"]["timestamp"] == TS
    assert wire["status"]["message"]["role"] == "ROLE_AGENT"
    user = wire["history"][0]
    assert user["role"] == "ROLE_USER"
    assert "parts" not in user and len(user["content"]) == 5
    assert user["content"][0] == {"text": "hello", "metadata": {"lang": "en"}}
    assert user["content"][2] == {
        "file": {"fileWithUri": "https://example.com/x.png", "mimeType": "image/png"}
    }
    assert user["content"][4] == {"data": {"data": {"k": [1, {"x": None}]}}, "metadata": META}
    assert wire["artifacts"][0]["parts"][0] == {"text": "chunk 0;"}


@pytest.mark.parametrize(
    ("state", "name"),
    [
        ("submitted", "TASK_STATE_SUBMITTED"),
        ("working", "TASK_STATE_WORKING"),
        ("input-required", "TASK_STATE_INPUT_REQUIRED"),
        ("completed", "TASK_STATE_COMPLETED"),
        ("canceled", "TASK_STATE_CANCELLED"),
        ("failed", "TASK_STATE_FAILED"),
        ("rejected", "TASK_STATE_REJECTED"),
        ("auth-required", "TASK_STATE_AUTH_REQUIRED"),
        ("unknown", "TASK_STATE_UNSPECIFIED"),
    ],
)
def test_task_states(state: str, name: str) -> None:
    assert c.state_out(TaskState(state)) == name
    assert c.state_in(name, "s") == state
    number = a2a_pb2.TaskState.Value(name)
    assert c.state_in(number, "s") == state
    assert c.state_in(str(number), "s") == state


def test_file_bytes_are_base64_of_our_base64_text_as_the_sdk_writes_them() -> None:
    part = Part(raw="aGVsbG8=", media_type="text/plain")
    wire = c.part_out(part)
    assert wire["file"]["fileWithBytes"] == base64.b64encode(b"aGVsbG8=").decode()
    sdk_part = ToProto.part(sdk.Part.model_validate(dump(part)))
    assert MessageToDict(sdk_part)["file"]["fileWithBytes"] == wire["file"]["fileWithBytes"]
    # URL-safe and unpadded base64 are proto JSON too.
    urlsafe = base64.urlsafe_b64encode(b"YT8+Yg==").decode().rstrip("=")
    read = c.part_in(w.read(w.Part, {"file": {"fileWithBytes": urlsafe}}, "p"), "p")
    assert read.raw == "YT8+Yg=="


def _message(wire: Any) -> Message:
    return c.message_in(w.read(w.Message, wire, "message"))


def test_reference_task_ids_are_read_but_not_written() -> None:
    # Not in the SDK's Message: writing it would make the SDK's strict parser fail.
    message = AGENT.model_copy(update={"reference_task_ids": ["t-0"]})
    wire = c.message_out(message)
    assert "referenceTaskIds" not in wire
    read = _message({**wire, "referenceTaskIds": ["t-0", "t-1"]})
    assert read.reference_task_ids == ["t-0", "t-1"]
    assert _message({**wire, "reference_task_ids": ["t-2"]}).reference_task_ids == ["t-2"]


def test_proto_field_names_enum_numbers_and_a2a_proto_spellings_are_read() -> None:
    body = {
        "request": {
            "message_id": "m",
            "context_id": "c",
            "task_id": "",  # proto3: an empty string is no task
            "role": 1,
            "parts": [{"text": "hi"}],  # a2a.proto's name for `content`
        },
        "configuration": {
            "accepted_output_modes": ["text/plain"],
            "push_notification": {"url": "https://h.example/x", "id": None},
            "history_length": "4",
            "blocking": True,
        },
        "metadata": None,
    }
    read = c.send_params_in(w.read(w.SendMessageRequest, body, ""))
    assert read.model_dump() == {
        "message": {
            "messageId": "m",
            "role": "user",
            "parts": [{"text": "hi"}],
            "contextId": "c",
        },
        "configuration": {
            "acceptedOutputModes": ["text/plain"],
            "taskPushNotificationConfig": {"url": "https://h.example/x"},
            "historyLength": 4,
            "returnImmediately": False,
        },
    }
    wire_status = {"state": "TASK_STATE_WORKING", "update": c.message_out(AGENT)}
    status = c.status_in(w.read(w.TaskStatus, wire_status, "s"), "s")
    assert status.message is not None and status.message.role == "agent"
    response = w.read(w.SendMessageResponse, {"msg": c.message_out(AGENT)}, "response")
    assert c.send_result_in(response) == AGENT
    event = w.read(w.StreamResponse, {"status_update": {"task_id": "t", "final": True}}, "event")
    with pytest.raises(InvalidParamsError) as refused:
        c.stream_result_in(event)  # no contextId: read, then refused by the model
    assert refused.value.data["errors"][0]["field"] == "event.statusUpdate.contextId"
    event = w.read(
        w.StreamResponse,
        {"status_update": {"task_id": "t", "context_id": "c", "final": True}},
        "event",
    )
    # `final` is read and left: whether a status ends a stream is its state's to say.
    assert c.stream_result_in(event) == TaskStatusUpdateEvent(
        task_id="t", context_id="c", status=TaskStatus(state=TaskState.UNKNOWN)
    )


def test_a_field_under_both_names_is_refused() -> None:
    with pytest.raises(InvalidParamsError) as refused:
        w.read(w.Message, {"messageId": "a", "message_id": "b"}, "message")
    assert refused.value.data["errors"][0]["field"] == "messageId"
    with pytest.raises(InvalidParamsError) as refused:
        w.read(w.SendMessageRequest, {"message": {}, "request": {}}, "")
    assert refused.value.data["errors"][0]["field"] == "message"


def test_unknown_fields_are_ignored() -> None:
    wire = c.message_out(AGENT) | {"somethingNew": {"x": 1}}
    assert _message(wire) == AGENT
    wire = {**c.message_out(AGENT), "new": 1}
    wire["message_id"] = wire.pop("messageId")
    assert _message(wire) == AGENT


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-03-04T05:06:07.123Z", "2025-03-04T05:06:07.123Z"),
        ("2025-03-04T05:06:07Z", "2025-03-04T05:06:07Z"),
        ("2025-03-04T07:06:07.5+02:00", "2025-03-04T05:06:07.500Z"),
        ("2025-03-04T05:06:07.123456+00:00", "2025-03-04T05:06:07.123456Z"),
        ("2025-03-04T05:06:07", "2025-03-04T05:06:07Z"),  # no zone: UTC
        ("yesterday", None),
        (None, None),
    ],
)
def test_timestamps(value: str | None, expected: str | None) -> None:
    assert c.timestamp_out(value) == expected
    if expected is not None:
        from google.protobuf.timestamp_pb2 import Timestamp

        Timestamp().FromJsonString(expected)  # what the SDK's parser accepts


def test_a_status_with_an_unreadable_timestamp_leaves_it_out() -> None:
    status = TaskStatus(state=TaskState.WORKING, timestamp="not a time")
    assert c.status_out(status) == {"state": "TASK_STATE_WORKING"}


def test_push_config_resource_names() -> None:
    config = replace(PUSH, task_id="t-1")
    assert c.task_push_config_out(config)["name"] == "tasks/t-1/pushNotificationConfigs/c-1"
    no_id = TaskPushNotificationConfig(task_id="t-1", url="https://h.example")
    assert c.task_push_config_out(no_id)["name"] == "tasks/t-1"
    assert c.parse_push_config_name("tasks/a/pushNotificationConfigs/b", "n") == ("a", "b")
    assert c.parse_push_config_name("tasks/a", "n") == ("a", None)
    for bad in ("tasks/", "task/a", "tasks/a/b/c", "tasks/a/pushNotificationConfigs/", "x"):
        with pytest.raises(InvalidParamsError):
            c.parse_push_config_name(bad, "n")
    # The URL's task wins only if the name agrees with it.
    wire = w.read(w.TaskPushNotificationConfig, c.task_push_config_out(config), "c")
    assert c.task_push_config_in(wire, "c", task_id="t-1").task_id == "t-1"
    with pytest.raises(InvalidParamsError):
        c.task_push_config_in(wire, "c", task_id="t-2")


def _reading(struct: type[w.ProtoModel], convert_in: Callable[..., Any], at: str) -> Any:
    return lambda value: convert_in(w.read(struct, value, at), at)


_MESSAGE = _reading(w.Message, c.message_in, "message")
_SEND_CONFIG = _reading(w.SendMessageConfiguration, c.send_config_in, "configuration")


@pytest.mark.parametrize(
    ("read", "value", "field"),
    [
        (_MESSAGE, [], "message"),
        (_MESSAGE, {"messageId": 5}, "message.messageId"),
        (_MESSAGE, {"role": "user"}, "message.role"),
        (_MESSAGE, {"role": "ROLE_UNSPECIFIED"}, "message.role"),
        (_MESSAGE, {"content": {"text": "x"}}, "message.parts"),
        (_MESSAGE, {"content": [{"text": "a", "data": {}}]}, "message.parts.0"),
        (_MESSAGE, {"content": [{}]}, "message.parts.0"),
        (_MESSAGE, {"content": [{"text": 1}]}, "message.parts.0.text"),
        (_MESSAGE, {"content": [{"file": {}}]}, "message.parts.0.file"),
        (
            _MESSAGE,
            {"content": [{"file": {"fileWithBytes": "%%%"}}]},
            "message.parts.0.file.fileWithBytes",
        ),
        (_MESSAGE, {"content": [{"data": {"data": [1]}}]}, "message.parts.0.data"),
        (_MESSAGE, {"metadata": "x"}, "message.metadata"),
        (_MESSAGE, {"extensions": [1]}, "message.extensions.0"),
        (_MESSAGE, {"message_id": "m", "extensions": [1]}, "message.extensions.0"),
        (_MESSAGE, {"messageId": "m", "role": "ROLE_USER"}, "message.parts"),
        (_SEND_CONFIG, {"blocking": "yes"}, "configuration.blocking"),
        (_SEND_CONFIG, {"historyLength": "two"}, "configuration.historyLength"),
        (_SEND_CONFIG, {"historyLength": True}, "configuration.historyLength"),
        (
            _SEND_CONFIG,
            {"pushNotification": {"url": 1}},
            "configuration.pushNotification.url",
        ),
        (_reading(w.Task, c.task_in, "task"), {"status": {"state": "DONE"}}, "task.status.state"),
        (_reading(w.StreamResponse, c.stream_result_in, "event"), {}, "event"),
        (
            _reading(w.StreamResponse, c.stream_result_in, "event"),
            {"task": {}, "statusUpdate": {}},
            "event",
        ),
        (_reading(w.SendMessageResponse, c.send_result_in, "response"), {}, "response"),
    ],
)
def test_what_cannot_be_read_is_invalid_params_naming_the_field(
    read: Callable[[Any], Any], value: Any, field: str
) -> None:
    with pytest.raises(InvalidParamsError) as refused:
        read(value)
    errors = refused.value.data["errors"]
    assert [e["field"] for e in errors] == [field], errors
    assert refused.value.code == -32602
