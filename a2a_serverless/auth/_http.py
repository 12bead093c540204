"""Fetching the small JSON documents authentication depends on (a JWKS, an OpenID discovery
document): HTTPS only (plain HTTP to a loopback host is allowed, for local identity providers
and tests), no redirects, a timeout and a size limit. Failures raise AuthenticationUnavailable.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any
from urllib.parse import urlsplit

from .base import AuthenticationUnavailable

DEFAULT_TIMEOUT_S = 5.0
DEFAULT_MAX_BYTES = 512 * 1024


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_problem(url: str, *, allow_http: bool = False) -> str | None:
    """Why `url` may not be fetched for key material, or None when it may."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "is not a URL"
    if not parts.hostname:
        return "has no host"
    if parts.username or parts.password:
        return "must not carry credentials"
    if parts.scheme == "https":
        return None
    if parts.scheme == "http" and (allow_http or is_loopback_host(parts.hostname)):
        return None
    return "must be an https:// URL"


def check_url(url: str, what: str, *, allow_http: bool = False) -> str:
    problem = url_problem(url, allow_http=allow_http)
    if problem:
        raise ValueError(f"the {what} {problem}: {url!r}")
    return url


async def fetch_json(
    url: str,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> dict[str, Any]:
    import httpx

    headers = {"accept": "application/json"}
    try:
        async with (
            httpx.AsyncClient(timeout=timeout_s, follow_redirects=False) as client,
            client.stream("GET", url, headers=headers) as response,
        ):
            if response.status_code != 200:
                raise AuthenticationUnavailable(f"GET {url} answered HTTP {response.status_code}")
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > max_bytes:
                    raise AuthenticationUnavailable(f"GET {url}: the document is too large")
    except httpx.HTTPError as exc:
        raise AuthenticationUnavailable(f"GET {url} failed: {type(exc).__name__}") from None
    try:
        document = json.loads(bytes(data))
    except ValueError:
        raise AuthenticationUnavailable(f"GET {url}: the document is not JSON") from None
    if not isinstance(document, dict):
        raise AuthenticationUnavailable(f"GET {url}: the document is not a JSON object")
    return document
