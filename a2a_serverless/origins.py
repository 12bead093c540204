"""Which hosts and browser origins the app answers: the Host allow-list and CORS.

- Host: with `allowed_hosts` set (the dev server always sets it), a request whose Host header
  names another host is refused with 421 before anything else runs. A page on an attacker's
  domain that rebinds its DNS name to 127.0.0.1 reaches the dev server's port with its own name
  in Host, so it is refused.
- CORS: off unless `cors_allowed_origins` lists origins. Then a preflight (OPTIONS with
  Access-Control-Request-Method) from a listed origin is answered 204 with the allowed methods
  and headers, and every response to a listed origin carries Access-Control-Allow-Origin (with
  `Vary: Origin`, as the answer depends on it). Other origins get no CORS headers, so browsers
  keep their pages from reading answers or sending JSON. JSON-RPC also requires
  `application/json` (asgi.py), which a page cannot send cross-origin without a preflight.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .config import Settings
from .http import Receive, Scope, Send, json_bytes

Headers = list[tuple[bytes, bytes]]

LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")
_ALLOWED_METHODS = b"GET, POST, DELETE, OPTIONS"
# Headers a browser client may read from our answers.
_EXPOSED = b"X-A2A-Extensions, Retry-After, WWW-Authenticate"


def split_list(value: str | None) -> list[str]:
    return [item.strip() for item in (value or "").split(",") if item.strip()]


def host_name(host_header: str) -> str:
    """The name in a Host header, lower case, without its port ("[::1]:8000" -> "[::1]")."""
    host = host_header.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[: end + 1] if end != -1 else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def dev_hosts(settings: Settings, bind_host: str) -> str:
    """The hosts the dev server answers: its local names, the configured ones, the host it is
    bound to (unless a wildcard address) and the host of the public URL."""
    from urllib.parse import urlsplit

    hosts = [*LOCAL_HOSTS, *split_list(settings.allowed_hosts)]
    if bind_host not in ("0.0.0.0", "::", "[::]", ""):
        hosts.append(f"[{bind_host}]" if ":" in bind_host else bind_host)
    if settings.public_url:
        hosts.append(urlsplit(settings.public_url).netloc)
    return ",".join(dict.fromkeys(hosts))


class HostGuard:
    """ASGI middleware answering only the allowed hosts, before the app it wraps runs.

    The dev server wraps a FastAPI app with it: the agents mounted in the app check Host
    themselves, but the app's own routes (its API, /docs, /openapi.json) would answer any
    Host, so a page on a rebound DNS name could read them."""

    def __init__(self, app: Any, allowed_hosts: str) -> None:
        """`allowed_hosts`: comma-separated, as A2A_ALLOWED_HOSTS (empty: no check)."""
        self.app = app
        self.hosts = frozenset(host_name(h) for h in split_list(allowed_hosts))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        raw = next((v for k, v in scope.get("headers", []) if k.lower() == b"host"), None)
        host = None if raw is None else raw.decode("latin-1")
        if not self.hosts or host_name(host or "") in self.hosts:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        # The answer A2AApplication gives its own requests for another host.
        body = json_bytes({"error": f"this server does not answer host {host!r}"})
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 421, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class OriginPolicy:
    def __init__(self, settings: Settings) -> None:
        hosts = split_list(settings.allowed_hosts)
        self.hosts: frozenset[str] | None = (
            frozenset(host_name(h) for h in hosts) if hosts else None
        )
        origins = split_list(settings.cors_allowed_origins)
        self.origins = frozenset(o.rstrip("/").lower() for o in origins)

    def host_allowed(self, headers: Mapping[str, str]) -> bool:
        if self.hosts is None:
            return True
        return host_name(headers.get("host", "")) in self.hosts

    def allowed_origin(self, headers: Mapping[str, str]) -> str | None:
        """The request's Origin when CORS allows it, else None."""
        if not self.origins:
            return None
        origin = headers.get("origin")
        if origin is None or origin.rstrip("/").lower() not in self.origins:
            return None
        return origin

    @staticmethod
    def is_preflight(method: str, headers: Mapping[str, str]) -> bool:
        return method == "OPTIONS" and "access-control-request-method" in headers

    @staticmethod
    def preflight_headers(origin: str, headers: Mapping[str, str]) -> Headers:
        requested = headers.get("access-control-request-headers", "")
        return [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-allow-methods", _ALLOWED_METHODS),
            # The origin is trusted: whatever headers it asks for (auth, Last-Event-ID, ...).
            (b"access-control-allow-headers", requested.encode("latin-1")),
            (b"access-control-max-age", b"600"),
            (b"vary", b"Origin"),
        ]

    @staticmethod
    def response_headers(origin: str | None) -> Headers:
        """Headers of an answer when CORS is on: the answer depends on Origin either way."""
        if origin is None:
            return [(b"vary", b"Origin")]
        return [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-expose-headers", _EXPOSED),
            (b"vary", b"Origin"),
        ]
