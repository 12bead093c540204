"""0.3's JSON-RPC results and stream events (`v03/jsonrpc_convert.py`), byte for byte.

The expected JSON is literal: what 0.3 clients read from us, member order included, whatever
shape the internal model takes."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_serverless import codec
from a2a_serverless import models as m
from a2a_serverless.models import TaskState
from a2a_serverless.v03 import jsonrpc_convert as convert
from a2a_serverless.v03 import jsonrpc_models as rpc
from a2a_serverless.v03.jsonrpc_params import task_push_config_out

B64 = "aGk="


def wire(value: Any) -> str:
    return codec.encode(value).decode()


def test_each_part_kind() -> None:
    parts: list[m.Part] = [
        m.Part(text="hi"),
        m.Part(text="hi", metadata={"k": 1}),
        m.Part(raw=B64),
        m.Part(raw=B64, media_type="text/plain", filename="a.txt", metadata={}),
        m.Part(url="https://x/a.png", media_type="image/png"),
        m.Part(url="https://x/a", filename="a"),
        m.Part(data={"b": 2, "a": [1]}),
        m.Part(data=[1]),
        m.Part(data=None, metadata={"k": 1}),
        m.Part(text="hi", media_type="text/markdown", filename="a.md"),
    ]
    assert [wire(convert.part_out(part)) for part in parts] == [
        '{"kind":"text","text":"hi"}',
        '{"kind":"text","text":"hi","metadata":{"k":1}}',
        '{"kind":"file","file":{"bytes":"aGk="}}',
        '{"kind":"file","file":{"bytes":"aGk=","mimeType":"text/plain","name":"a.txt"},'
        '"metadata":{}}',
        '{"kind":"file","file":{"uri":"https://x/a.png","mimeType":"image/png"}}',
        '{"kind":"file","file":{"uri":"https://x/a","name":"a"}}',
        '{"kind":"data","data":{"b":2,"a":[1]}}',
        '{"kind":"data","data":{"value":[1]},"metadata":{"data_part_compat":true}}',
        '{"kind":"data","data":{"value":null},"metadata":{"k":1,"data_part_compat":true}}',
        # 0.3's TextPart has no place for a media type or a file name.
        '{"kind":"text","text":"hi"}',
    ]


def test_parts_come_in_from_each_kind() -> None:
    message = rpc.Message.model_validate(
        {
            "kind": "message",
            "messageId": "m-1",
            "role": "user",
            "parts": [
                {"kind": "text", "text": "hi", "metadata": {"k": 1}},
                {"kind": "file", "file": {"bytes": B64, "mimeType": "text/plain", "name": "a"}},
                {"kind": "file", "file": {"uri": "https://x/a.png"}},
                {"kind": "data", "data": {"a": 1}},
                {"kind": "data", "data": {"value": [1]}, "metadata": {"data_part_compat": True}},
                {
                    "kind": "data",
                    "data": {"value": "s"},
                    "metadata": {"data_part_compat": True, "k": 2},
                },
                # Without the flag, an object holding `value` is that object.
                {"kind": "data", "data": {"value": 3}},
            ],
        }
    )
    assert convert.message_in(message).parts == [
        m.Part(text="hi", metadata={"k": 1}),
        m.Part(raw=B64, media_type="text/plain", filename="a"),
        m.Part(url="https://x/a.png"),
        m.Part(data={"a": 1}),
        m.Part(data=[1]),
        m.Part(data="s", metadata={"k": 2}),
        m.Part(data={"value": 3}),
    ]


def test_a_result_read_by_a_client_comes_back_as_it_went_out() -> None:
    task = _task(
        artifacts=[m.Artifact(artifact_id="a-1", parts=[m.Part(raw=B64, filename="f")])],
        history=[m.Message(message_id="m-1", role="user", parts=[m.Part(data=[1, 2])])],
    )
    events: list[m.StreamResult] = [
        task,
        m.TaskStatusUpdateEvent(task_id="t-1", context_id="c-1", status=task.status),
        m.TaskArtifactUpdateEvent(
            task_id="t-1", context_id="c-1", artifact=task.artifacts[0], last_chunk=True
        ),
        m.Message(message_id="m-9", role="agent", parts=[m.Part(url="https://x")]),
    ]
    for event in events:
        read = m.validate(rpc.StreamResult, convert.stream_result_out(event))
        assert convert.stream_result_in(read) == event


def test_a_message_with_every_member_and_with_the_fewest() -> None:
    full = m.Message(
        message_id="m-1",
        role="agent",
        parts=[m.Part(text="hi")],
        context_id="c-1",
        task_id="t-1",
        reference_task_ids=["t-0"],
        extensions=["https://ext"],
        metadata={"k": "v"},
    )
    assert wire(convert.message_out(full)) == (
        '{"kind":"message","messageId":"m-1","role":"agent","parts":[{"kind":"text","text":"hi"}],'
        '"contextId":"c-1","taskId":"t-1","referenceTaskIds":["t-0"],"extensions":["https://ext"],'
        '"metadata":{"k":"v"}}'
    )
    bare = m.Message(message_id="m-2", role="user", parts=[m.Part(data={})])
    assert wire(convert.message_out(bare)) == (
        '{"kind":"message","messageId":"m-2","role":"user","parts":[{"kind":"data","data":{}}]}'
    )
    assert convert.result_out(bare) == convert.message_out(bare)


def _task(**fields: Any) -> m.Task:
    status = m.TaskStatus(
        state=TaskState.INPUT_REQUIRED,
        message=m.Message(message_id="m-3", role="agent", parts=[m.Part(text="where?")]),
        timestamp="2026-01-01T00:00:00.000Z",
    )
    return m.Task(id="t-1", context_id="c-1", status=status, **fields)


def test_a_task_with_artifacts_history_and_metadata() -> None:
    artifact = m.Artifact(
        artifact_id="a-1",
        parts=[m.Part(text="plan")],
        name="plan",
        description="the plan",
        extensions=["https://ext"],
        metadata={"n": 1},
    )
    history = [m.Message(message_id="m-1", role="user", parts=[m.Part(text="go")])]
    task = _task(artifacts=[artifact], history=history, metadata={"k": True})
    expected = (
        '{"kind":"task","id":"t-1","contextId":"c-1","status":{"state":"input-required",'
        '"message":{"kind":"message","messageId":"m-3","role":"agent",'
        '"parts":[{"kind":"text","text":"where?"}]},"timestamp":"2026-01-01T00:00:00.000Z"},'
        '"artifacts":[{"artifactId":"a-1","parts":[{"kind":"text","text":"plan"}],"name":"plan",'
        '"description":"the plan","extensions":["https://ext"],"metadata":{"n":1}}],'
        '"history":[{"kind":"message","messageId":"m-1","role":"user",'
        '"parts":[{"kind":"text","text":"go"}]}],"metadata":{"k":true}}'
    )
    assert wire(convert.task_out(task)) == expected
    assert wire(convert.result_out(task)) == expected
    # Lists asked for and empty are written (tasks/list with includeArtifacts).
    assert '"artifacts":[],"history":[]' in wire(convert.task_out(_task(artifacts=[], history=[])))


@pytest.mark.parametrize("state", list(TaskState))
def test_a_status_update_is_final_when_its_state_ends_the_stream(state: TaskState) -> None:
    final = state.is_terminal or state in (TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED)
    event = m.TaskStatusUpdateEvent(
        task_id="t-1",
        context_id="c-1",
        status=m.TaskStatus(state=state),
        metadata={"k": 1},
    )
    assert wire(convert.stream_result_out(event)) == (
        '{"kind":"status-update","taskId":"t-1","contextId":"c-1",'
        f'"status":{{"state":"{state.value}"}},"final":{"true" if final else "false"},'
        '"metadata":{"k":1}}'
    )


def test_an_artifact_update() -> None:
    artifact = m.Artifact(artifact_id="a-1", parts=[m.Part(data={"n": 1})])
    chunk = m.TaskArtifactUpdateEvent(
        task_id="t-1", context_id="c-1", artifact=artifact, append=True, last_chunk=False
    )
    assert wire(convert.stream_result_out(chunk)) == (
        '{"kind":"artifact-update","taskId":"t-1","contextId":"c-1",'
        '"artifact":{"artifactId":"a-1","parts":[{"kind":"data","data":{"n":1}}]},'
        '"append":true,"lastChunk":false}'
    )
    whole = m.TaskArtifactUpdateEvent(task_id="t-1", context_id="c-1", artifact=artifact)
    assert wire(convert.stream_result_out(whole)) == (
        '{"kind":"artifact-update","taskId":"t-1","contextId":"c-1",'
        '"artifact":{"artifactId":"a-1","parts":[{"kind":"data","data":{"n":1}}]}}'
    )


def test_a_stream_may_carry_a_task_or_a_message() -> None:
    task = _task()
    message = m.Message(message_id="m-1", role="agent", parts=[m.Part(text="done")])
    assert convert.stream_result_out(task) == convert.task_out(task)
    assert convert.stream_result_out(message) == convert.message_out(message)


def test_a_task_list_and_what_has_no_form_of_its_own() -> None:
    listed = m.ListTasksResponse(tasks=[_task()], total_size=3, page_size=1, next_page_token="next")
    assert wire(convert.result_out(listed)) == (
        f'{{"tasks":[{wire(convert.task_out(_task()))}],"totalSize":3,"pageSize":1,'
        '"nextPageToken":"next"}'
    )
    empty = m.ListTasksResponse(tasks=[], total_size=0, page_size=50, next_page_token="")
    assert wire(convert.result_out(empty)) == (
        '{"tasks":[],"totalSize":0,"pageSize":50,"nextPageToken":""}'
    )
    # Push configs: 0.3's objects already (jsonrpc_params.py), written as they are.
    config = task_push_config_out(m.TaskPushNotificationConfig(url="https://h", id="p"))
    assert convert.result_out(config) == config.model_dump()
    assert convert.result_out([config]) == [config.model_dump()]
    assert convert.result_out(None) is None
