"""Which media types a message's parts carry and whether the agent takes them (`media.py`)."""

from __future__ import annotations

import pytest

from a2a_serverless.errors import ContentTypeNotSupportedError
from a2a_serverless.media import check_message_media
from a2a_serverless.models import Message, Part


def message(*parts: Part) -> Message:
    return Message(message_id="m-1", role="user", parts=list(parts))


TEXT = Part(text="hi")
DATA = Part(data={"a": 1})
PNG = Part(raw="iVBORw==", media_type="Image/PNG; charset=binary")


@pytest.mark.parametrize(
    "modes",
    [
        ["text/plain", "application/json", "image/png"],
        ["TEXT/Plain", "application/JSON", "image/*"],  # any case, a wildcard subtype
        ["*/*"],
    ],
)
def test_parts_the_modes_accept_pass(modes: list[str]) -> None:
    check_message_media(message(TEXT, DATA, PNG), None, input_modes=modes, output_modes=["*/*"])


def test_refused_types_are_named_sorted_once() -> None:
    with pytest.raises(ContentTypeNotSupportedError) as refused:
        check_message_media(
            message(PNG, DATA, TEXT, PNG), None, input_modes=("text/*",), output_modes=()
        )
    assert refused.value.data == {
        "unsupported": ["application/json", "image/png"],
        "acceptedInputModes": ["text/*"],
    }
    assert "does not accept application/json, image/png" in str(refused.value)


def test_accepted_output_modes_must_meet_the_agents() -> None:
    check_message_media(message(TEXT), ["text/*"], input_modes=["*/*"], output_modes=["text/plain"])
    with pytest.raises(ContentTypeNotSupportedError) as refused:
        check_message_media(
            message(TEXT), ["image/png"], input_modes=["*/*"], output_modes=["text/plain"]
        )
    assert refused.value.data == {
        "acceptedOutputModes": ["image/png"],
        "agentOutputModes": ["text/plain"],
    }
