"""What the client tests' small ASGI apps (token endpoints, verifiers, broken agents) share."""

from __future__ import annotations

import json
from typing import Any


async def read_body(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


async def send_json(
    send: Any, status: int, document: Any, headers: dict[str, str] | None = None
) -> None:
    """`document` as the JSON body (bytes are sent as they are)."""
    body = document if isinstance(document, bytes) else json.dumps(document).encode()
    raw = [(b"content-type", b"application/json")]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
