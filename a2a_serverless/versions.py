"""Protocol versions: which one a request speaks (spec v1.0 §3.6), and each one's codec as
version-neutral code asks for it (`webhook_form`: a push config's notification form).

Clients name it in the `A2A-Version` header, or the `A2A-Version` query parameter; only
`Major.Minor` counts (`1.0.1` is `1.0`, and `1` is taken as `1.0`). No value, or an empty one,
means 0.3: v0.3 clients never send it. Anything else is refused with VersionNotSupportedError
(-32009), which names the versions this server speaks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from .errors import VersionNotSupportedError

if TYPE_CHECKING:
    from .models import Task

V03 = "0.3"
V10 = "1.0"
SUPPORTED = (V03, V10)
HEADER = "a2a-version"
QUERY_PARAMETER = "A2A-Version"
_MAX_CHARS = 32


def requested_version(header: str | None, query_string: str = "") -> str:
    """The version a request asks for: "0.3" or "1.0"; raises VersionNotSupportedError."""
    value = header
    if value is None and QUERY_PARAMETER in query_string:
        # Here: urllib.parse (and the ipaddress it imports, ~2 ms) only for a query to read.
        from urllib.parse import parse_qsl

        for name, item in parse_qsl(query_string, keep_blank_values=True):
            if name == QUERY_PARAMETER:
                value = item
                break
    value = (value or "").strip()
    if not value:
        return V03
    parts = value.split(".")
    if len(value) <= _MAX_CHARS and all(p.isascii() and p.isdigit() for p in parts):
        major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
        if (major, minor) == (1, 0):
            return V10
        if (major, minor) == (0, 3):
            return V03
    raise VersionNotSupportedError(
        f"A2A version {value[:_MAX_CHARS]!r} is not supported; this agent speaks "
        f"{' and '.join(SUPPORTED)} (header A2A-Version; none means 0.3)",
        data={"requestedVersion": value[:_MAX_CHARS], "supportedVersions": list(SUPPORTED)},
    )


class WebhookForm(Protocol):
    """How one protocol version writes a push notification (a codec's `webhook` module)."""

    # The body's media type.
    CONTENT_TYPE: str
    # What a task cut down to its id, context and state keeps besides them.
    BARE: dict[str, Any]

    def task(self, internal: Task, /) -> dict[str, Any]:
        """The version's Task JSON of an internal Task."""
        ...

    def body(self, task_json: dict[str, Any], /) -> dict[str, Any]:
        """The notification body carrying a Task JSON of the version (whole or cut down)."""
        ...


def webhook_form(version: str) -> WebhookForm:
    """The notification form of the version a push config was set in ("0.3" or "1.0"). The
    1.0 codec is imported only for a 1.0 config, so a 0.3 deployment never loads it."""
    if version == V10:
        from .v10 import webhook as v10_form

        return v10_form
    from .v03 import webhook as v03_form

    return v03_form
