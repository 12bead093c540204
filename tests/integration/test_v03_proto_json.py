"""The proto-JSON conversion of the REST transport (a2a_serverless/v03/proto_json.py).

For every protocol object the REST transport carries:

- round trip: model -> our JSON -> proto JSON -> our JSON -> model gives the same object;
- the SDK reads ours: our proto JSON parses strictly (unknown fields refused, as the a2a-sdk
  0.3.26 client parses) into the SDK's `a2a_pb2` message, and that message equals what the
  SDK's own converter (`proto_utils.ToProto`) makes of the same object;
- we read the SDK's: what `ToProto` + `MessageToDict` write (i.e. what the SDK's REST client
  sends, or its server answers) reads back to an object whose proto form is that same message.

Proto messages compare with proto semantics (a default value equals an absent one), which is
also how the SDK sees them. The documented differences between a2a.proto and the SDK's proto
(module docstring of proto_json.py) have their own tests below.
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

from a2a_serverless.errors import InvalidParamsError
from a2a_serverless.models import (
    A2AModel,
    Artifact,
    DataPart,
    FilePart,
    FileWithBytes,
    FileWithUri,
    ListTasksResult,
    Message,
    MessageSendConfiguration,
    MessageSendParams,
    Part,
    PushNotificationAuthenticationInfo,
    PushNotificationConfig,
    StreamResult,
    Task,
    TaskArtifactUpdateEvent,
    TaskPushNotificationConfig,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
    validate,
)
from a2a_serverless.v03 import proto_json as pj

TS = "2025-03-04T05:06:07.123Z"
META = {"trace": "abc", "nested": {"list": [1, "two", None, True], "n": 1.5}}


def text(value: str, **fields: Any) -> TextPart:
    return TextPart(text=value, **fields)


USER = Message(
    message_id="m-1",
    role="user",
    parts=[
        text("hello", metadata={"lang": "en"}),
        FilePart(file=FileWithBytes(bytes="aGVsbG8gd29ybGQ=", mime_type="text/plain", name="a")),
        FilePart(file=FileWithUri(uri="https://example.com/x.png", mime_type="image/png")),
        FilePart(file=FileWithBytes(bytes="AAEC")),
        DataPart(data={"k": [1, {"x": None}]}, metadata=META),
    ],
    context_id="ctx-1",
    task_id="task-1",
    extensions=["https://example.com/ext/v1"],
    metadata=META,
)
AGENT = Message(message_id="m-2", role="agent", parts=[text("What is your name?")])
ARTIFACT = Artifact(
    artifact_id="art-1",
    parts=[text("chunk 0;"), DataPart(data={"a": 1})],
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
AUTH = PushNotificationAuthenticationInfo(schemes=["Bearer", "Basic"], credentials="secret")
PUSH = PushNotificationConfig(
    url="https://hooks.example.com/a", id="c-1", token="t", authentication=AUTH
)


@dataclass(frozen=True)
class Case:
    """One object: how to convert it both ways, and how the SDK converts it."""

    name: str
    value: Any  # a model, or a list of models
    to_proto: Callable[[Any], dict[str, Any]]
    from_proto: Callable[[Any], Any]
    read: Callable[[Any], Any]  # our JSON -> model (or list of models)
    pb_type: type[ProtoMessage] | None = None
    # The SDK's proto message for the same object (None: the SDK has no such message).
    sdk_pb: Callable[[Any], ProtoMessage] | None = None


def dump(value: Any) -> Any:
    return [v.model_dump() for v in value] if isinstance(value, list) else value.model_dump()


def model(model_type: type[A2AModel]) -> Callable[[Any], Any]:
    return model_type.model_validate


def stream_result(value: Any) -> Any:
    return validate(StreamResult, value)


def sdk_obj(sdk_type: Any, value: Any) -> Any:
    return sdk_type.model_validate(dump(value))


CASES = [
    *[
        Case(
            f"part-{i}",
            part,
            pj.to_part,
            lambda v: pj.from_part(v, "part"),
            lambda d: validate(Part, d),
            a2a_pb2.Part,
            lambda v: ToProto.part(sdk.Part.model_validate(v.model_dump())),
        )
        for i, part in enumerate(USER.parts)
    ],
    Case(
        "message",
        USER,
        pj.to_message,
        pj.from_message,
        model(Message),
        a2a_pb2.Message,
        lambda v: ToProto.message(sdk_obj(sdk.Message, v)),
    ),
    Case(
        "message-minimal",
        AGENT,
        pj.to_message,
        pj.from_message,
        model(Message),
        a2a_pb2.Message,
        lambda v: ToProto.message(sdk_obj(sdk.Message, v)),
    ),
    Case(
        "task-status",
        TASK.status,
        pj.to_task_status,
        lambda v: pj.from_task_status(v, "status"),
        model(TaskStatus),
        a2a_pb2.TaskStatus,
        lambda v: ToProto.task_status(sdk_obj(sdk.TaskStatus, v)),
    ),
    Case(
        "artifact",
        ARTIFACT,
        pj.to_artifact,
        lambda v: pj.from_artifact(v, "artifact"),
        model(Artifact),
        a2a_pb2.Artifact,
        lambda v: ToProto.artifact(sdk_obj(sdk.Artifact, v)),
    ),
    Case(
        "task",
        TASK,
        pj.to_task,
        pj.from_task,
        model(Task),
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
        pj.to_task,
        pj.from_task,
        model(Task),
        a2a_pb2.Task,
        lambda v: ToProto.task(sdk_obj(sdk.Task, v)),
    ),
    *[
        Case(
            f"task-state-{state.value}",
            Task(id="t", context_id="c", status=TaskStatus(state=state)),
            pj.to_task,
            pj.from_task,
            model(Task),
            a2a_pb2.Task,
            lambda v: ToProto.task(sdk_obj(sdk.Task, v)),
        )
        for state in TaskState
    ],
    *[
        Case(
            f"status-update-final-{final}",
            TaskStatusUpdateEvent(
                task_id="t", context_id="c", status=TASK.status, final=final, metadata=META
            ),
            pj.to_status_update,
            pj.from_status_update,
            model(TaskStatusUpdateEvent),
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
            pj.to_artifact_update,
            pj.from_artifact_update,
            model(TaskArtifactUpdateEvent),
            a2a_pb2.TaskArtifactUpdateEvent,
            lambda v: ToProto.task_artifact_update_event(sdk_obj(sdk.TaskArtifactUpdateEvent, v)),
        )
        for append, last in [(None, None), (False, False), (True, True), (True, None)]
    ],
    Case(
        "auth-info",
        AUTH,
        pj.to_auth_info,
        lambda v: pj.from_auth_info(v, "auth"),
        model(PushNotificationAuthenticationInfo),
        a2a_pb2.AuthenticationInfo,
        lambda v: ToProto.authentication_info(sdk_obj(sdk.PushNotificationAuthenticationInfo, v)),
    ),
    Case(
        "push-config",
        PUSH,
        pj.to_push_config,
        lambda v: pj.from_push_config(v, "config"),
        model(PushNotificationConfig),
        a2a_pb2.PushNotificationConfig,
        lambda v: ToProto.push_notification_config(sdk_obj(sdk.PushNotificationConfig, v)),
    ),
    Case(
        "push-config-minimal",
        PushNotificationConfig(url="https://hooks.example.com/b"),
        pj.to_push_config,
        lambda v: pj.from_push_config(v, "config"),
        model(PushNotificationConfig),
        a2a_pb2.PushNotificationConfig,
        lambda v: ToProto.push_notification_config(sdk_obj(sdk.PushNotificationConfig, v)),
    ),
    Case(
        "task-push-config",
        TaskPushNotificationConfig(task_id="task-1", push_notification_config=PUSH),
        pj.to_task_push_config,
        lambda v: pj.from_task_push_config(v, "config"),
        model(TaskPushNotificationConfig),
        a2a_pb2.TaskPushNotificationConfig,
        lambda v: ToProto.task_push_notification_config(sdk_obj(sdk.TaskPushNotificationConfig, v)),
    ),
    Case(
        "push-config-list",
        [
            TaskPushNotificationConfig(task_id="task-1", push_notification_config=PUSH),
            TaskPushNotificationConfig(
                task_id="task-1",
                push_notification_config=PushNotificationConfig(url="https://h.example/b", id="b"),
            ),
        ],
        pj.to_push_config_list,
        pj.from_push_config_list,
        lambda items: [TaskPushNotificationConfig.model_validate(i) for i in items],
        a2a_pb2.ListTaskPushNotificationConfigResponse,
        lambda v: a2a_pb2.ListTaskPushNotificationConfigResponse(
            configs=[
                ToProto.task_push_notification_config(sdk_obj(sdk.TaskPushNotificationConfig, c))
                for c in v
            ]
        ),
    ),
    *[
        Case(
            f"send-config-{i}",
            config,
            pj.to_send_config,
            pj.from_send_config,
            model(MessageSendConfiguration),
            a2a_pb2.SendMessageConfiguration,
            lambda v: ToProto.message_send_configuration(sdk_obj(sdk.MessageSendConfiguration, v)),
        )
        for i, config in enumerate(
            [
                MessageSendConfiguration(
                    accepted_output_modes=["text/plain", "application/json"],
                    blocking=True,
                    history_length=3,
                    push_notification_config=PUSH,
                ),
                MessageSendConfiguration(blocking=False),
                MessageSendConfiguration(),
            ]
        )
    ],
    Case(
        "send-params",
        MessageSendParams(
            message=USER,
            configuration=MessageSendConfiguration(blocking=True, history_length=2),
            metadata=META,
        ),
        pj.to_send_params,
        pj.from_send_params,
        model(MessageSendParams),
        a2a_pb2.SendMessageRequest,
        lambda v: _sdk_send_request(sdk_obj(sdk.MessageSendParams, v)),
    ),
    Case(
        "send-params-minimal",
        MessageSendParams(message=USER),
        pj.to_send_params,
        pj.from_send_params,
        model(MessageSendParams),
        a2a_pb2.SendMessageRequest,
        None,  # the SDK always writes a configuration; covered by the case above
    ),
    *[
        Case(
            f"send-response-{kind}",
            value,
            pj.to_send_response,
            pj.from_send_response,
            stream_result,
            a2a_pb2.SendMessageResponse,
            lambda v: ToProto.task_or_message(
                sdk_obj(sdk.Task if v.kind == "task" else sdk.Message, v)
            ),
        )
        for kind, value in [("task", TASK), ("message", AGENT)]
    ],
    *[
        Case(
            f"stream-response-{value.kind}",
            value,
            pj.to_stream_response,
            pj.from_stream_response,
            stream_result,
            a2a_pb2.StreamResponse,
            lambda v: ToProto.stream_response(_sdk_result(v)),
        )
        for value in [
            TASK,
            AGENT,
            TaskStatusUpdateEvent(task_id="t", context_id="c", status=TASK.status, final=True),
            TaskArtifactUpdateEvent(task_id="t", context_id="c", artifact=ARTIFACT, append=True),
        ]
    ],
    Case(
        # Not in the SDK's proto (0.3.26 has no ListTasks); a2a.proto's ListTasksResponse.
        "list-tasks-result",
        ListTasksResult(tasks=[TASK, TASK], total_size=7, page_size=2, next_page_token="abc"),
        pj.to_list_tasks_result,
        pj.from_list_tasks_result,
        model(ListTasksResult),
    ),
    Case(
        "list-tasks-result-last-page",
        ListTasksResult(tasks=[], total_size=0, page_size=50, next_page_token=""),
        pj.to_list_tasks_result,
        pj.from_list_tasks_result,
        model(ListTasksResult),
    ),
]


def _sdk_send_request(params: Any) -> a2a_pb2.SendMessageRequest:
    """As the SDK's RestTransport builds the body of message:send / message:stream."""
    return a2a_pb2.SendMessageRequest(
        request=ToProto.message(params.message),
        configuration=ToProto.message_send_configuration(params.configuration),
        metadata=ToProto.metadata(params.metadata) if params.metadata else None,
    )


def _sdk_result(value: Any) -> Any:
    types = {
        "task": sdk.Task,
        "message": sdk.Message,
        "status-update": sdk.TaskStatusUpdateEvent,
        "artifact-update": sdk.TaskArtifactUpdateEvent,
    }
    return types[value.kind].model_validate(value.model_dump())


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
    ours = dump(case.value)
    wire = case.to_proto(ours)
    back = case.read(case.from_proto(wire))
    assert dump(back) == ours
    # The wire form never carries our `kind` discriminators.
    assert '"kind"' not in repr(wire).replace("'", '"')


SDK_CASES = [c for c in CASES if c.pb_type is not None]


@pytest.mark.parametrize("case", SDK_CASES, ids=[c.name for c in SDK_CASES])
def test_the_sdk_parses_ours_strictly_and_reads_the_same_object(case: Case) -> None:
    assert case.pb_type is not None
    wire = case.to_proto(dump(case.value))
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
        ours = case.read(case.from_proto(written))
        again = ParseDict(case.to_proto(dump(ours)), case.pb_type())
        assert _without_sdk_losses(again) == sdk_message, names


# --- the mapping in detail -------------------------------------------------------------------


def test_wire_names_of_a_task() -> None:
    wire = pj.to_task(TASK.model_dump())
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
    assert pj.state_to_proto(state) == name
    assert pj.state_from_proto(name, "s") == state
    number = a2a_pb2.TaskState.Value(name)
    assert pj.state_from_proto(number, "s") == state
    assert pj.state_from_proto(str(number), "s") == state


def test_file_bytes_are_base64_of_our_base64_text_as_the_sdk_writes_them() -> None:
    part = FilePart(file=FileWithBytes(bytes="aGVsbG8=", mime_type="text/plain"))
    wire = pj.to_part(part.model_dump())
    assert wire["file"]["fileWithBytes"] == base64.b64encode(b"aGVsbG8=").decode()
    sdk_part = ToProto.part(sdk.Part.model_validate(part.model_dump()))
    assert MessageToDict(sdk_part)["file"]["fileWithBytes"] == wire["file"]["fileWithBytes"]
    # URL-safe and unpadded base64 are proto JSON too.
    urlsafe = base64.urlsafe_b64encode(b"a?>b").decode().rstrip("=")
    read = pj.from_part({"file": {"fileWithBytes": urlsafe}}, "p")
    assert read["file"]["bytes"] == "a?>b"


def test_reference_task_ids_are_read_but_not_written() -> None:
    # Not in the SDK's Message: writing it would make the SDK's strict parser fail.
    message = AGENT.model_copy(update={"reference_task_ids": ["t-0"]})
    wire = pj.to_message(message.model_dump())
    assert "referenceTaskIds" not in wire
    read = pj.from_message({**wire, "referenceTaskIds": ["t-0", "t-1"]})
    assert read["referenceTaskIds"] == ["t-0", "t-1"]
    assert pj.from_message({**wire, "reference_task_ids": ["t-2"]})["referenceTaskIds"] == ["t-2"]


def test_proto_field_names_enum_numbers_and_a2a_proto_spellings_are_read() -> None:
    read = pj.from_send_params(
        {
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
    )
    assert read == {
        "message": {
            "kind": "message",
            "messageId": "m",
            "contextId": "c",
            "role": "user",
            "parts": [{"kind": "text", "text": "hi"}],
        },
        "configuration": {
            "acceptedOutputModes": ["text/plain"],
            "pushNotificationConfig": {"url": "https://h.example/x"},
            "historyLength": 4,
            "blocking": True,
        },
    }
    status = pj.from_task_status(
        {"state": "TASK_STATE_WORKING", "update": AGENT.model_dump() | {"role": "ROLE_AGENT"}}, "s"
    )
    assert status["message"]["role"] == "agent"
    assert pj.from_send_response({"msg": pj.to_message(AGENT.model_dump())})["kind"] == "message"
    assert pj.from_stream_response({"status_update": {"task_id": "t", "final": True}}) == {
        "kind": "status-update",
        "taskId": "t",
        "status": {"state": "unknown"},
        "final": True,
    }


def test_unknown_fields_are_ignored() -> None:
    wire = pj.to_message(AGENT.model_dump()) | {"somethingNew": {"x": 1}}
    assert Message.model_validate(pj.from_message(wire)) == AGENT


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
    assert pj.to_timestamp(value) == expected
    if expected is not None:
        from google.protobuf.timestamp_pb2 import Timestamp

        Timestamp().FromJsonString(expected)  # what the SDK's parser accepts


def test_a_status_with_an_unreadable_timestamp_leaves_it_out() -> None:
    status = TaskStatus(state=TaskState.WORKING, timestamp="not a time")
    assert pj.to_task_status(status.model_dump()) == {"state": "TASK_STATE_WORKING"}


def test_push_config_resource_names() -> None:
    config = TaskPushNotificationConfig(task_id="t-1", push_notification_config=PUSH)
    assert (
        pj.to_task_push_config(config.model_dump())["name"]
        == "tasks/t-1/pushNotificationConfigs/c-1"
    )
    no_id = config.model_copy(
        update={"push_notification_config": PushNotificationConfig(url="https://h.example")}
    )
    assert pj.to_task_push_config(no_id.model_dump())["name"] == "tasks/t-1"
    assert pj.parse_push_config_name("tasks/a/pushNotificationConfigs/b", "n") == ("a", "b")
    assert pj.parse_push_config_name("tasks/a", "n") == ("a", None)
    for bad in ("tasks/", "task/a", "tasks/a/b/c", "tasks/a/pushNotificationConfigs/", "x"):
        with pytest.raises(InvalidParamsError):
            pj.parse_push_config_name(bad, "n")
    # The URL's task wins only if the name agrees with it.
    wire = pj.to_task_push_config(config.model_dump())
    assert pj.from_task_push_config(wire, "c", task_id="t-1")["taskId"] == "t-1"
    with pytest.raises(InvalidParamsError):
        pj.from_task_push_config(wire, "c", task_id="t-2")


@pytest.mark.parametrize(
    ("read", "value", "field"),
    [
        (pj.from_message, [], "message"),
        (pj.from_message, {"messageId": 5}, "message.messageId"),
        (pj.from_message, {"role": "user"}, "message.role"),
        (pj.from_message, {"role": "ROLE_UNSPECIFIED"}, "message.role"),
        (pj.from_message, {"content": {"text": "x"}}, "message.parts"),
        (pj.from_message, {"content": [{"text": "a", "data": {}}]}, "message.parts.0"),
        (pj.from_message, {"content": [{}]}, "message.parts.0"),
        (pj.from_message, {"content": [{"text": 1}]}, "message.parts.0.text"),
        (pj.from_message, {"content": [{"file": {}}]}, "message.parts.0.file"),
        (
            pj.from_message,
            {"content": [{"file": {"fileWithBytes": "%%%"}}]},
            "message.parts.0.file.fileWithBytes",
        ),
        (pj.from_message, {"content": [{"data": {"data": [1]}}]}, "message.parts.0.data"),
        (pj.from_message, {"metadata": "x"}, "message.metadata"),
        (pj.from_message, {"extensions": [1]}, "message.extensions.0"),
        (pj.from_send_config, {"blocking": "yes"}, "configuration.blocking"),
        (pj.from_send_config, {"historyLength": "two"}, "configuration.historyLength"),
        (pj.from_send_config, {"historyLength": True}, "configuration.historyLength"),
        (
            pj.from_send_config,
            {"pushNotification": {"url": 1}},
            "configuration.pushNotification.url",
        ),
        (pj.from_task, {"status": {"state": "DONE"}}, "task.status.state"),
        (pj.from_stream_response, {}, "event"),
        (pj.from_stream_response, {"task": {}, "statusUpdate": {}}, "event"),
        (pj.from_send_response, {}, "response"),
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
