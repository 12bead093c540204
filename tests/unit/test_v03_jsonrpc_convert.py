"""0.3's JSON-RPC results and stream events (`v03/jsonrpc_convert.py`), byte for byte.

The expected JSON is literal: what 0.3 clients read from us, member order included, whatever
shape the internal model takes."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_serverless import codec
from a2a_serverless import models as m
from a2a_serverless.models import TaskState
from a2a_serverless.service import StreamEvent
from a2a_serverless.v03 import jsonrpc_convert as convert

B64 = "aGk="


def wire(value: Any) -> str:
    return codec.encode(value).decode()


def test_each_part_kind() -> None:
    parts: list[m.Part] = [
        m.TextPart(text="hi"),
        m.TextPart(text="hi", metadata={"k": 1}),
        m.FilePart(file=m.FileWithBytes(bytes=B64)),
        m.FilePart(
            file=m.FileWithBytes(bytes=B64, mime_type="text/plain", name="a.txt"), metadata={}
        ),
        m.FilePart(file=m.FileWithUri(uri="https://x/a.png", mime_type="image/png")),
        m.FilePart(file=m.FileWithUri(uri="https://x/a", name="a")),
        m.DataPart(data={"b": 2, "a": [1]}),
        m.DataPart(data={"value": [1]}, metadata={"data_part_compat": True}),
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
    ]


def test_a_message_with_every_member_and_with_the_fewest() -> None:
    full = m.Message(
        message_id="m-1",
        role="agent",
        parts=[m.TextPart(text="hi")],
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
    bare = m.Message(message_id="m-2", role="user", parts=[m.DataPart(data={})])
    assert wire(convert.message_out(bare)) == (
        '{"kind":"message","messageId":"m-2","role":"user","parts":[{"kind":"data","data":{}}]}'
    )
    assert convert.result_out(bare) == convert.message_out(bare)


def _task(**fields: Any) -> m.Task:
    status = m.TaskStatus(
        state=TaskState.INPUT_REQUIRED,
        message=m.Message(message_id="m-3", role="agent", parts=[m.TextPart(text="where?")]),
        timestamp="2026-01-01T00:00:00.000Z",
    )
    return m.Task(id="t-1", context_id="c-1", status=status, **fields)


def test_a_task_with_artifacts_history_and_metadata() -> None:
    artifact = m.Artifact(
        artifact_id="a-1",
        parts=[m.TextPart(text="plan")],
        name="plan",
        description="the plan",
        extensions=["https://ext"],
        metadata={"n": 1},
    )
    history = [m.Message(message_id="m-1", role="user", parts=[m.TextPart(text="go")])]
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
        # What the event says is not what 0.3's `final` is made of: the state is.
        final=not final,
        metadata={"k": 1},
    )
    assert wire(convert.event_result(StreamEvent(3, event))) == (
        '{"kind":"status-update","taskId":"t-1","contextId":"c-1",'
        f'"status":{{"state":"{state.value}"}},"final":{"true" if final else "false"},'
        '"metadata":{"k":1}}'
    )


def test_an_artifact_update() -> None:
    artifact = m.Artifact(artifact_id="a-1", parts=[m.DataPart(data={"n": 1})])
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
    message = m.Message(message_id="m-1", role="agent", parts=[m.TextPart(text="done")])
    assert convert.stream_result_out(task) == convert.task_out(task)
    assert convert.stream_result_out(message) == convert.message_out(message)


def test_a_task_list_and_what_has_no_form_of_its_own() -> None:
    listed = m.ListTasksResult(tasks=[_task()], total_size=3, page_size=1, next_page_token="next")
    assert wire(convert.result_out(listed)) == (
        f'{{"tasks":[{wire(convert.task_out(_task()))}],"totalSize":3,"pageSize":1,'
        '"nextPageToken":"next"}'
    )
    empty = m.ListTasksResult(tasks=[], total_size=0, page_size=50, next_page_token="")
    assert wire(convert.result_out(empty)) == (
        '{"tasks":[],"totalSize":0,"pageSize":50,"nextPageToken":""}'
    )
    config = m.TaskPushNotificationConfig(
        task_id="t-1", push_notification_config=m.PushNotificationConfig(url="https://h", id="p")
    )
    assert convert.result_out(config) == config.model_dump()
    assert convert.result_out([config]) == [config.model_dump()]
    assert convert.result_out(None) is None
