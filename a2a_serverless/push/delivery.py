"""One HTTP request to a webhook, at the address the SSRF guard checked, and what came of it.

The request goes to `PinnedTarget.connect_url` (the checked IP address): the hostname is only
used for the Host header and, over https, for SNI and the certificate check, so a DNS answer
that changes after the check cannot redirect the connection. Redirects are never followed
(a 3xx is a permanent failure), no proxy from the environment is used, each request gets its
own connection (a pooled one could have been opened for another name on the same address), at
most `max_response_bytes` of the response are read and the whole exchange is bounded by
`timeout_s`.

Outcomes: "delivered" (2xx); "retry" (timeouts, connection errors, 5xx, 408, 429, with the
receiver's Retry-After when it sent one); "permanent" (any other status).
"""

from __future__ import annotations

import asyncio
import contextvars
import email.utils
import logging
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from .. import tracing
from .ssrf import PinnedTarget

if TYPE_CHECKING:
    import httpx

USER_AGENT = "a2a-serverless-webhooks/1"
RETRYABLE_STATUSES = frozenset({408, 429})

DeliveryOutcome = Literal["delivered", "retry", "permanent"]

_default_ssl_context: ssl.SSLContext | None = None


@dataclass(frozen=True, slots=True)
class DeliveryResult:
    outcome: DeliveryOutcome
    reason: str
    status: int | None = None
    retry_after_s: float | None = None
    # The start of the receiver's response body (at most `max_response_bytes`).
    body: bytes = b""


def loggable_url(url: str) -> str:
    """The webhook URL as logs may show it: no user info, no query, no fragment.

    Receivers often put a shared secret in the query string (`?token=...`); logs are read by
    more people than push configs are.
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<unparseable URL>"
    if ":" in host:
        host = f"[{host}]"
    hidden = "?..." if parts.query or parts.fragment else ""
    return f"{parts.scheme}://{host}{port}{parts.path}{hidden}"


# httpx logs every request's URL at INFO (logger "httpx"), query string included. While we
# deliver, that URL is a webhook's, so its log line gets the loggable form; other requests
# in the process (the user's own httpx calls) are left alone.
_delivering: contextvars.ContextVar[bool] = contextvars.ContextVar("delivering", default=False)


class _HideWebhookUrls(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if _delivering.get() and isinstance(record.args, tuple):
            record.args = tuple(
                loggable_url(str(arg)) if type(arg).__name__ == "URL" else arg
                for arg in record.args
            )
        return True


_url_filter_installed = False


def _install_url_filter() -> None:
    global _url_filter_installed
    if not _url_filter_installed:
        logging.getLogger("httpx").addFilter(_HideWebhookUrls())
        _url_filter_installed = True


def default_ssl_context() -> ssl.SSLContext:
    """A verifying client context (certifi's CA bundle through httpx), made once."""
    global _default_ssl_context
    if _default_ssl_context is None:
        import httpx

        _default_ssl_context = httpx.create_ssl_context()
    return _default_ssl_context


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def classify_status(status: int, retry_after: str | None) -> tuple[DeliveryOutcome, float | None]:
    if 200 <= status < 300:
        return "delivered", None
    if status >= 500 or status in RETRYABLE_STATUSES:
        return "retry", parse_retry_after(retry_after)
    return "permanent", None


async def send(
    method: str,
    target: PinnedTarget,
    *,
    body: bytes = b"",
    headers: Mapping[str, str] | None = None,
    timeout_s: float = 10.0,
    max_response_bytes: int = 65536,
    ssl_context: ssl.SSLContext | None = None,
) -> DeliveryResult:
    """Make one request to `target` and classify the outcome (never raises on I/O errors).

    The request carries the trace it is made in as `traceparent` (with spans on, its own
    CLIENT span's: tracing.py)."""
    _install_url_filter()
    delivering = _delivering.set(True)
    try:
        with tracing.client_request(method, loggable_url(target.url)) as span:
            context = tracing.current()
            if context is not None:
                headers = {**(headers or {}), **context.headers()}
            result = await _send(
                method, target, body, headers, timeout_s, max_response_bytes, ssl_context
            )
            if result.status is not None:
                span.set_attribute("http.response.status_code", result.status)
            if result.outcome != "delivered":
                span.set_attribute("error.type", str(result.status or "connection"))
                tracing.failed(result.reason)
            return result
    finally:
        _delivering.reset(delivering)


async def _send(
    method: str,
    target: PinnedTarget,
    body: bytes,
    headers: Mapping[str, str] | None,
    timeout_s: float,
    max_response_bytes: int,
    ssl_context: ssl.SSLContext | None,
) -> DeliveryResult:
    import httpx

    all_headers = {
        "User-Agent": USER_AGENT,
        "Accept-Encoding": "identity",
        **(headers or {}),
        "Host": target.host_header,
    }
    extensions = {"sni_hostname": target.sni} if target.sni else {}
    # (Made once and reused: a plain http request never uses it, but httpx would build one.)
    context = ssl_context or default_ssl_context()
    try:
        async with (
            asyncio.timeout(timeout_s),
            httpx.AsyncClient(
                verify=context,
                follow_redirects=False,
                trust_env=False,
                timeout=httpx.Timeout(timeout_s),
                limits=httpx.Limits(max_keepalive_connections=0),
            ) as client,
        ):
            try:
                request = client.build_request(
                    method,
                    target.connect_url,
                    content=body if method != "GET" else None,
                    headers=all_headers,
                    extensions=extensions,
                )
            except Exception as exc:  # whatever the client refuses to build
                # A request that cannot be built now never can: retrying only delays the
                # notifications queued behind it, so it is dead-lettered at once.
                return DeliveryResult("permanent", f"the request cannot be made: {exc}")
            response = await client.send(request, stream=True)
            try:
                received = await _read_bounded(response, max_response_bytes)
            finally:
                await response.aclose()
    except TimeoutError:
        return DeliveryResult("retry", f"no complete response within {timeout_s:g} s")
    except httpx.TimeoutException as exc:
        return DeliveryResult("retry", f"timed out ({type(exc).__name__})")
    except httpx.TransportError as exc:
        detail = str(exc) or type(exc).__name__
        return DeliveryResult("retry", f"connection failed: {detail}")
    status = response.status_code
    outcome, retry_after = classify_status(status, response.headers.get("retry-after"))
    if outcome == "delivered":
        reason = f"HTTP {status}"
    elif 300 <= status < 400:
        where = response.headers.get("location", "")
        reason = f"HTTP {status}: redirects are not followed" + (f" (to {where})" if where else "")
    else:
        # Not the body itself: reasons are logged and kept with dead letters, and a receiver
        # may echo what it was sent (our JWT, the push token, its own credentials).
        reason = f"HTTP {status}" + (f" ({len(received)} bytes of body)" if received else "")
    return DeliveryResult(outcome, reason, status, retry_after, received)


async def _read_bounded(response: httpx.Response, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_raw():
        take = chunk[: max(0, limit - size)]
        chunks.append(take)
        size += len(take)
        if size >= limit:
            break
    return b"".join(chunks)
