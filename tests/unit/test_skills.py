"""SkillGate.resolve: which skill a send request names, in its message's metadata or its own."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_serverless.errors import InvalidParamsError
from a2a_serverless.models import AgentSkill, Message, Part, SendMessageRequest
from a2a_serverless.skills import SkillGate

GATE = SkillGate(
    [
        AgentSkill(id="echo", name="Echo", description="Says it back.", tags=[]),
        AgentSkill(id="shout", name="Shout", description="Says it loud.", tags=[]),
    ]
)


def _request(
    message_metadata: dict[str, Any] | None = None, metadata: dict[str, Any] | None = None
) -> SendMessageRequest:
    message = Message(
        message_id="m1", role="user", parts=[Part(text="hi")], metadata=message_metadata
    )
    return SendMessageRequest(message=message, metadata=metadata)


@pytest.mark.parametrize(
    ("message_metadata", "metadata", "expected"),
    [
        (None, None, "echo"),  # none named: the first skill
        ({}, {}, "echo"),
        ({"other": 1}, {"other": 2}, "echo"),
        ({"skillId": None}, None, "echo"),  # null is not a name
        ({"skillId": "shout"}, None, "shout"),
        (None, {"skillId": "shout"}, "shout"),
        ({"skillId": "shout"}, {"skillId": "shout"}, "shout"),
    ],
)
def test_the_skill_named_or_the_first(
    message_metadata: dict[str, Any] | None, metadata: dict[str, Any] | None, expected: str
) -> None:
    assert GATE.resolve(_request(message_metadata, metadata), None) == expected


def test_a_task_keeps_its_skill_when_none_is_named() -> None:
    assert GATE.resolve(_request(), None, current="shout") == "shout"


def test_two_different_skills_named_are_refused() -> None:
    with pytest.raises(InvalidParamsError) as refused:
        GATE.resolve(_request({"skillId": "echo"}, {"skillId": "shout"}), None)
    assert refused.value.data == {"message.metadata": "echo", "metadata": "shout"}


@pytest.mark.parametrize("value", ["", 3, ["echo"]])
def test_a_skill_id_that_is_not_a_name_is_refused(value: object) -> None:
    with pytest.raises(InvalidParamsError) as refused:
        GATE.resolve(_request(None, {"skillId": value}), None)
    assert refused.value.data == {
        "errors": [{"field": "metadata.skillId", "message": "Not a skill id"}]
    }


def test_an_unknown_skill_is_refused() -> None:
    with pytest.raises(InvalidParamsError, match="Unknown skill 'sing'"):
        GATE.resolve(_request({"skillId": "sing"}), None)
