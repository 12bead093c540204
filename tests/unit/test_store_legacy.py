"""store/legacy.py: records in the form of versions before the internal model became A2A 1.0's.

Each store reads them through it (the contract suite's `test_records_of_earlier_versions_read_
back`); here, the mapping itself, and the digests kept with idempotency keys, which must name
the same request as they did when they were stored.
"""

from __future__ import annotations

import pytest

from a2a_serverless.models import Message, Part, SendMessageConfiguration, SendMessageRequest
from a2a_serverless.service import request_fingerprint
from a2a_serverless.store import legacy
from a2a_serverless.store.base import message_digest


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"kind": "text", "text": "hi"}, {"text": "hi"}),
        (
            {"kind": "file", "file": {"bytes": "aGk=", "mimeType": "text/plain", "name": "a"}},
            {"raw": "aGk=", "mediaType": "text/plain", "filename": "a"},
        ),
        ({"kind": "file", "file": {"uri": "https://x"}}, {"url": "https://x"}),
        ({"kind": "data", "data": {"a": 1}, "metadata": {}}, {"data": {"a": 1}, "metadata": {}}),
        (
            {"kind": "data", "data": {"value": [1]}, "metadata": {"data_part_compat": True}},
            {"data": [1]},
        ),
        (
            {
                "kind": "data",
                "data": {"value": None},
                "metadata": {"data_part_compat": True, "k": 2},
            },
            {"data": None, "metadata": {"k": 2}},
        ),
        # Without the flag, an object holding `value` is that object.
        ({"kind": "data", "data": {"value": 1}}, {"data": {"value": 1}}),
        # Today's form is left as it is.
        ({"data": {"value": 1}, "metadata": {"data_part_compat": True}},) * 2,
        ({"raw": "aGk="},) * 2,
    ],
)
def test_a_part_of_either_form_reads_as_todays(old: dict, new: dict) -> None:
    assert legacy.part(old) == new


def test_an_event_of_the_old_form_is_tagged_by_its_kind_and_loses_final() -> None:
    old = {
        "kind": "status-update",
        "taskId": "t",
        "contextId": "c",
        "status": {"state": "completed", "message": {"kind": "message", "messageId": "m",
                   "role": "agent", "parts": [{"kind": "text", "text": "ok"}]}},
        "final": True,
    }  # fmt: skip
    assert legacy.event(old) == {
        "statusUpdate": {
            "taskId": "t",
            "contextId": "c",
            "status": {
                "state": "completed",
                "message": {"messageId": "m", "role": "agent", "parts": [{"text": "ok"}]},
            },
        }
    }
    new = {"artifactUpdate": {"taskId": "t", "contextId": "c", "artifact": {}}}
    assert legacy.event(new) is new


def test_the_old_form_is_told_by_how_a_record_begins() -> None:
    assert legacy.is_old_record('{"task":{"kind":"task","id":"t"}}')
    assert legacy.is_old_record(b'{"task":{"kind":"task","id":"t"}}')
    assert not legacy.is_old_record('{"task":{"id":"t","metadata":{"kind":"task"}}}')
    assert legacy.is_old_event(b'{"kind":"status-update"}')
    assert not legacy.is_old_event('{"statusUpdate":{"metadata":{"kind":1}}}')
    assert legacy.is_old_reply('{"key":"k","reply":{"kind":"message","messageId":"m"}}')
    assert not legacy.is_old_reply('{"key":"k","reply":{"messageId":"m"}}')


# Taken with the code before the change (commit 414b6c9), for the same request.
MESSAGE = Message(
    message_id="m-1",
    role="user",
    context_id="c-1",
    parts=[
        Part(text="hi", metadata={"k": 1}),
        Part(raw="aGk=", media_type="text/plain", filename="a.txt"),
        Part(url="https://x/y.png"),
        Part(data={"b": [1, 2]}),
        Part(data="s"),
    ],
    metadata={"m": True},
)
FINGERPRINT = "66d9d520add85cf2aff9ec7611862952c5099121e27ea305a15132ea25dc774b"
DIGEST = "3a492806fc3157d9c7f1000aa4f1c166be85bc66afb3a92c0e4a23ed19fac089"


def test_digests_kept_with_idempotency_keys_name_the_same_request_as_before() -> None:
    params = SendMessageRequest(
        message=MESSAGE,
        configuration=SendMessageConfiguration(
            accepted_output_modes=["text/plain"], return_immediately=False
        ),
        metadata={"x": 1},
    )
    assert request_fingerprint(params) == FINGERPRINT
    assert message_digest(MESSAGE) == DIGEST
