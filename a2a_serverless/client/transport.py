"""The client's HTTP: one pooled httpx client per process (per event loop), bounded reads,
Server-Sent Events.

Every request of every `A2AClient` goes through `shared_http()`, so connections (and their TLS
sessions) are reused across calls and, on a serverless platform, across the invocations one
warm instance serves. A new event loop (each `asyncio.run`) gets its own client, since an
httpx pool belongs to the loop it was made on.

httpx is imported on the first request, so importing the client costs no HTTP stack. Bodies
are read up to a limit (`ClientLimits.max_response_bytes`; one SSE event up to
`max_event_bytes`) and refused past it with `ResponseTooLarge`, which names the limit and its
figure: a remote agent never makes us hold more than that.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import AgentUnreachable, ResponseTooLarge

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True, slots=True)
class ClientLimits:
    """Timeouts, retries and sizes, each with a sane default."""

    connect_timeout_s: float = 5.0
    # The longest wait for a blocking send's answer (the agent's turn included).
    read_timeout_s: float = 60.0
    # The longest silence on a stream between two events.
    stream_idle_timeout_s: float = 300.0
    # Resends of a request that is safe to send again (reads; a send, by its messageId).
    retries: int = 2
    # Reconnections of a dropped stream, each resuming after the last event received.
    stream_resumes: int = 3
    max_response_bytes: int = 10 * 1024 * 1024
    max_event_bytes: int = 4 * 1024 * 1024
    max_card_bytes: int = 1024 * 1024


_pools: dict[int, tuple[asyncio.AbstractEventLoop, httpx.AsyncClient]] = {}


def shared_http() -> httpx.AsyncClient:
    """The process's pooled client for the running event loop."""
    import httpx  # on the first request, not at import: a cold start pays only if it calls

    loop = asyncio.get_running_loop()
    found = _pools.get(id(loop))
    if found is not None and found[0] is loop and not found[1].is_closed:
        return found[1]
    for key, (old_loop, _) in list(_pools.items()):
        if old_loop.is_closed():
            del _pools[key]
    client = httpx.AsyncClient(
        follow_redirects=False,
        limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
    )
    _pools[id(loop)] = (loop, client)
    return client


@dataclass(slots=True)
class HttpAnswer:
    status: int
    headers: httpx.Headers
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def timeout(limits: ClientLimits, *, stream: bool = False) -> httpx.Timeout:
    import httpx

    read = limits.stream_idle_timeout_s if stream else limits.read_timeout_s
    return httpx.Timeout(read, connect=limits.connect_timeout_s)


async def fetch(
    method: str,
    url: str,
    *,
    headers: Mapping[str, str],
    content: bytes | None,
    limits: ClientLimits,
    max_bytes: int | None = None,
    limit_name: str = "max_response_bytes",
) -> HttpAnswer:
    """One request, its whole (bounded) body read."""
    import httpx

    bound = max_bytes or limits.max_response_bytes
    client = shared_http()
    try:
        request = client.build_request(
            method, url, headers=headers, content=content, timeout=timeout(limits)
        )
        response = await client.send(request, stream=True)
    except httpx.TransportError as exc:
        raise AgentUnreachable(f"{method} {url}: {type(exc).__name__}: {exc}") from None
    try:
        body = await read_bounded(response, bound, limit_name)
    except httpx.TransportError as exc:
        raise AgentUnreachable(f"{method} {url}: {type(exc).__name__}: {exc}") from None
    finally:
        await response.aclose()
    return HttpAnswer(response.status_code, response.headers, body)


async def read_bounded(response: httpx.Response, limit: int, limit_name: str) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ResponseTooLarge(_too_large(limit_name, limit, int(declared)))
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > limit:
            raise ResponseTooLarge(_too_large(limit_name, limit, size))
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(name: str, limit: int, size: int) -> str:
    return f"the response is over the client's {name} ({limit} bytes; got {size} or more)"


@dataclass(frozen=True, slots=True)
class SseEvent:
    data: str
    event: str = "message"
    id: str | None = None


async def sse_events(response: httpx.Response, max_event_bytes: int) -> AsyncIterator[SseEvent]:
    """The events of a `text/event-stream` body (the WHATWG parsing rules: `data` lines joined
    by newlines, comments and unknown fields ignored, an event ended by a blank line). An
    event, or a line, longer than `max_event_bytes` is refused before it is all held."""
    data: list[str] = []
    event = ""
    event_id: str | None = None
    size = 0
    pending = b""
    async for chunk in response.aiter_bytes():
        pending += chunk
        *lines, pending = pending.split(b"\n")
        if len(pending) + size > max_event_bytes:
            raise ResponseTooLarge(_too_large("max_event_bytes", max_event_bytes, size))
        for raw in lines:
            size += len(raw) + 1
            if size > max_event_bytes:
                raise ResponseTooLarge(_too_large("max_event_bytes", max_event_bytes, size))
            line = raw.removesuffix(b"\r").decode("utf-8", errors="replace")
            if not line:
                if data:
                    yield SseEvent("\n".join(data), event or "message", event_id)
                data, event, size = [], "", 0
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
            elif name == "id" and "\0" not in value:
                event_id = value
    # An event the stream ended in the middle of is not dispatched (the WHATWG rule): a stream
    # that broke off is resumed after the last whole event.
