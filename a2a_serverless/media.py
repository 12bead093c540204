"""Media types: which a message's parts carry, and whether the agent accepts them.

The agent card declares what the agent takes and gives (`defaultInputModes`,
`defaultOutputModes` and each skill's modes); a request outside those gets -32005
(ContentTypeNotSupportedError) instead of reaching the agent. `*/*` and `type/*` match anything
of that kind on either side.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import ContentTypeNotSupportedError
from .models import Message, Part


def part_media_type(part: Part) -> str:
    """A text part's is text/plain and a data part's application/json, whatever their
    `media_type` says; a file's is its `media_type`, else application/octet-stream."""
    if part.text is not None:
        return "text/plain"
    if part.has_data:
        return "application/json"
    return (part.media_type or "application/octet-stream").split(";")[0].strip().lower()


def matches(offered: str, accepted: str) -> bool:
    offered, accepted = offered.lower(), accepted.lower()
    if "*/*" in (offered, accepted) or offered == accepted:
        return True
    o_type, _, o_sub = offered.partition("/")
    a_type, _, a_sub = accepted.partition("/")
    return o_type == a_type and "*" in (o_sub, a_sub)


def check_message_media(
    message: Message,
    accepted_output_modes: Sequence[str] | None,
    *,
    input_modes: Iterable[str],
    output_modes: Iterable[str],
) -> None:
    """Raise ContentTypeNotSupportedError if the agent cannot take the parts or answer in kind."""
    inputs = list(input_modes)
    # A part's type among the modes as written (the usual case, asked of every message)
    # matches without the wildcard rules.
    refused = {
        media
        for media in map(part_media_type, message.parts)
        if media not in inputs and not any(matches(media, mode) for mode in inputs)
    }
    if refused:
        unsupported = sorted(refused)
        raise ContentTypeNotSupportedError(
            f"Incompatible content types: the agent does not accept {', '.join(unsupported)}",
            data={"unsupported": unsupported, "acceptedInputModes": inputs},
        )
    if accepted_output_modes:
        outputs = list(output_modes)
        if not any(matches(o, a) for o in outputs for a in accepted_output_modes):
            raise ContentTypeNotSupportedError(
                "Incompatible content types: the agent produces none of the accepted output modes",
                data={
                    "acceptedOutputModes": list(accepted_output_modes),
                    "agentOutputModes": outputs,
                },
            )
