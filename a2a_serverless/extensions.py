"""Extension activation (spec topics/extensions.md) through the `X-A2A-Extensions` header.

The agent declares extensions on its card (`AgentCapabilities.extensions`). A client activates
some for one request by listing their URIs in `X-A2A-Extensions`; requested URIs the agent does
not declare are ignored (no fallback to another version), and the response lists the ones that
were activated in the same header. An extension the card marks `required` must be requested,
or the request is refused with ExtensionSupportRequiredError naming it (v0.3: -32600 / HTTP 400;
v1.0: -32008). v1.0 names the header `A2A-Extensions`; both names are read, whichever version.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import ExtensionSupportRequiredError
from .models import AgentExtension

HEADER = "x-a2a-extensions"
# A2A v1.0's name for it.
V1_HEADER = "a2a-extensions"


def requested(header_value: str | None) -> list[str]:
    """The URIs a request asks for, in order, without duplicates or blanks."""
    if not header_value:
        return []
    seen: dict[str, None] = {}
    for item in header_value.split(","):
        uri = item.strip()
        if uri:
            seen.setdefault(uri, None)
    return list(seen)


def activate(declared: Sequence[AgentExtension], header_value: str | None) -> tuple[str, ...]:
    """The declared extensions this request activates; refuses one missing a required one."""
    if not declared:
        return ()  # the common case, on every request: nothing to activate or require
    asked = requested(header_value)
    known = {extension.uri for extension in declared}
    missing = [e.uri for e in declared if e.required and e.uri not in asked]
    if missing:
        raise ExtensionSupportRequiredError(
            f"This agent requires the extension(s) {', '.join(missing)}: "
            f"activate them with the X-A2A-Extensions header",
            data={"requiredExtensions": missing},
        )
    return tuple(uri for uri in asked if uri in known)


def echo_headers(activated: Sequence[str], name: str = HEADER) -> list[tuple[bytes, bytes]]:
    """The response header listing the extensions a request activated (none: no header)."""
    if not activated:
        return []
    return [(name.encode(), ", ".join(activated).encode())]
