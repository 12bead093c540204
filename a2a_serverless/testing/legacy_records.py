"""Records as versions before the internal model became A2A 1.0's wrote them: literal JSON.

Until then, message content was kept in A2A 0.3's JSON-RPC shapes (a `kind` on parts, messages,
tasks and events; a file part's `file` with `bytes` or `uri`; a data part that held no JSON object
as `{"value": ...}` with `metadata.data_part_compat`; a status update's `final`). These texts
are what that code's `record_to_json`, `event_to_json` and `reply_to_json` wrote (produced by it,
not by hand); `EXPECTED_*` are the same objects in today's model, which every store must read
them back as (`StoreContract.test_records_of_earlier_versions_read_back`, through
`store/legacy.py`).
"""

from __future__ import annotations

from ..models import (
    Artifact,
    Message,
    Part,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)

RECORD = (
    '{"task":{"kind":"task","id":"t-legacy","contextId":"c-legacy","status":{"state":"input'
    '-required","message":{"kind":"message","messageId":"m-2","role":"agent","parts":[{"kin'
    'd":"text","text":"Where to?"}],"contextId":"c-legacy","taskId":"t-legacy"},"timestamp"'
    ':"2026-11-26T00:00:00.000Z"},"artifacts":[{"artifactId":"a-1","parts":[{"kind":"data",'
    '"data":{"value":"scalar"},"metadata":{"data_part_compat":true}},{"kind":"file","file":'
    '{"uri":"https://example.com/plan.pdf","name":"plan.pdf"}}],"name":"draft"}],"history":'
    '[{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"pla'
    'n a trip","metadata":{"lang":"en"}},{"kind":"file","file":{"bytes":"aGk=","mimeType":"'
    'text/plain","name":"hi.txt"}},{"kind":"file","file":{"uri":"https://example.com/map.pn'
    'g","mimeType":"image/png"}},{"kind":"data","data":{"days":3}},{"kind":"data","data":{"'
    'value":[1,"two",null]},"metadata":{"data_part_compat":true,"k":"v"}}],"contextId":"c-l'
    'egacy","taskId":"t-legacy","metadata":{"skillId":"trips"}},{"kind":"message","messageI'
    'd":"m-2","role":"agent","parts":[{"kind":"text","text":"Where to?"}],"contextId":"c-le'
    'gacy","taskId":"t-legacy"}],"metadata":{"k":1}},"owner":"user:alice","version":4,"last'
    'Seq":3,"createdAt":1764115200000,"updatedAt":1764115201000,"claim":null,"expiresAt":nu'
    'll,"internal":{"turn":{"step":"s-1","messageId":"m-1"}}}'
)

EVENTS: dict[int, str] = {
    1: (
        '{"kind":"status-update","taskId":"t-legacy","contextId":"c-legacy","status":{"st'
        'ate":"working","timestamp":"2026-11-26T00:00:00.000Z"},"final":false}'
    ),
    2: (
        '{"kind":"artifact-update","taskId":"t-legacy","contextId":"c-legacy","artifact":'
        '{"artifactId":"a-1","parts":[{"kind":"data","data":{"value":"scalar"},"metadata"'
        ':{"data_part_compat":true}},{"kind":"file","file":{"uri":"https://example.com/pl'
        'an.pdf","name":"plan.pdf"}}],"name":"draft"},"append":false,"lastChunk":true}'
    ),
    3: (
        '{"kind":"status-update","taskId":"t-legacy","contextId":"c-legacy","status":{"st'
        'ate":"input-required","message":{"kind":"message","messageId":"m-2","role":"agen'
        't","parts":[{"kind":"text","text":"Where to?"}],"contextId":"c-legacy","taskId":'
        '"t-legacy"},"timestamp":"2026-11-26T00:00:00.000Z"},"final":true,"metadata":{"m"'
        ":true}}"
    ),
}

REPLY = (
    '{"key":"alice\\nm-9\\nfp","owner":"user:alice","requestDigest":"dddddddddddddddddddddddd'
    'dddddddddddddddddddddddddddddddddddddddd","reply":{"kind":"message","messageId":"r-9",'
    '"role":"agent","parts":[{"kind":"text","text":"done"},{"kind":"file","file":{"bytes":"'
    'AAEC","name":"b.bin"}}],"contextId":"c-reply"},"createdAt":1764115200000,"expiresAt":n'
    "ull}"
)


_QUESTION = Message(
    message_id="m-2",
    role="agent",
    parts=[Part(text="Where to?")],
    context_id="c-legacy",
    task_id="t-legacy",
)
_ARTIFACT = Artifact(
    artifact_id="a-1",
    name="draft",
    parts=[Part(data="scalar"), Part(url="https://example.com/plan.pdf", filename="plan.pdf")],
)
_STATUS = TaskStatus(
    state=TaskState.INPUT_REQUIRED, message=_QUESTION, timestamp="2026-11-26T00:00:00.000Z"
)
EXPECTED_TASK = Task(
    id="t-legacy",
    context_id="c-legacy",
    status=_STATUS,
    artifacts=[_ARTIFACT],
    history=[
        Message(
            message_id="m-1",
            role="user",
            parts=[
                Part(text="plan a trip", metadata={"lang": "en"}),
                Part(raw="aGk=", media_type="text/plain", filename="hi.txt"),
                Part(url="https://example.com/map.png", media_type="image/png"),
                Part(data={"days": 3}),
                Part(data=[1, "two", None], metadata={"k": "v"}),
            ],
            context_id="c-legacy",
            task_id="t-legacy",
            metadata={"skillId": "trips"},
        ),
        _QUESTION,
    ],
    metadata={"k": 1},
)
EXPECTED_EVENTS: dict[int, TaskStatusUpdateEvent | TaskArtifactUpdateEvent] = {
    1: TaskStatusUpdateEvent(
        task_id="t-legacy",
        context_id="c-legacy",
        status=TaskStatus(state=TaskState.WORKING, timestamp="2026-11-26T00:00:00.000Z"),
    ),
    2: TaskArtifactUpdateEvent(
        task_id="t-legacy",
        context_id="c-legacy",
        artifact=_ARTIFACT,
        append=False,
        last_chunk=True,
    ),
    3: TaskStatusUpdateEvent(
        task_id="t-legacy", context_id="c-legacy", status=_STATUS, metadata={"m": True}
    ),
}
EXPECTED_REPLY = Message(
    message_id="r-9",
    role="agent",
    parts=[Part(text="done"), Part(raw="AAEC", filename="b.bin")],
    context_id="c-reply",
)
