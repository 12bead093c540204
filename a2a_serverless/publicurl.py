"""The public base URL a client reached this app at, and which proxies may say what it was.

The card's URLs (card.py) and the inspector's links are built on it. It comes, in this order,
from:

1. configuration (`public_url`): what the deploy files and the project template set (read by
   the app, not here);
2. the platform's own request context: API Gateway's and Lambda function URLs'
   `requestContext.domainName` (and the stage, on an execute-api host), which the gateway fills
   in, not the client;
3. the request: its Host header and the ASGI root path; proxies' X-Forwarded-Proto /
   X-Forwarded-Host / X-Forwarded-Prefix only when the request comes from an address in
   `trusted_proxies` (a client can write any header: a card built from one, kept by a shared
   cache, would send every client's messages and credentials to the host it names). The card
   is then served `Cache-Control: private` with `Vary` on those headers (asgi.py).

Never from the wildcard address a server happens to be bound to. Like `origins.py`, this is
about HTTP and the platforms, and knows nothing of A2A. An agent served under a path of the app
(a FastAPI mount) is at that prefix under the base: `clean_prefix`, `PublicPrefix`, `agent_url`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # ipaddress (~1 ms of import) loads only where trusted proxies are configured.
    import ipaddress

    IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_WILDCARD_HOSTS = {"0.0.0.0", "[::]", "::"}
# Where an agent is served under the configured public URL (a FastAPI mount's prefix, given to
# its Runtime: mountprefix.py), or what finds it on first use (a worker's app named by
# reference).
PublicPrefix = str | Callable[[], str]


def request_base_url(
    *,
    scheme: str,
    headers: Mapping[str, str],
    server: tuple[str, int | None] | None,
    root_path: str = "",
    aws_event: Mapping[str, Any] | None = None,
    trust_forwarded: bool = False,
) -> str:
    """The public base URL (no trailing slash) a client used to reach this app: the platform's
    request context if there is one, else the request (forwarded headers if `trust_forwarded`)."""
    platform = platform_base_url(aws_event)
    if platform is not None:
        return platform
    forwarded = headers if trust_forwarded else {}
    proto = _first(forwarded.get("x-forwarded-proto")) or scheme
    host = _first(forwarded.get("x-forwarded-host")) or headers.get("host")
    if not host and server is not None:
        name, port = server
        host = name if port is None else f"{name}:{port}"
    host = _not_wildcard(host or "localhost")
    prefix = _first(forwarded.get("x-forwarded-prefix")) or root_path
    return f"{proto}://{host}{clean_prefix(prefix)}"


def platform_base_url(event: Mapping[str, Any] | None) -> str | None:
    """The base URL API Gateway (REST or HTTP API) or a Lambda function URL says it was called
    at: its `requestContext.domainName`, and a named stage on an execute-api host (a custom
    domain maps the stage away). None for other events (an ALB's) and other platforms."""
    if not event:
        return None
    context = event.get("requestContext") or {}
    domain = context.get("domainName")
    if not isinstance(domain, str) or not domain:
        return None
    return f"https://{domain}{api_gateway_stage(event)}"


def api_gateway_stage(event: Mapping[str, Any] | None) -> str:
    """`/<stage>` when the client called a named API Gateway stage on its execute-api host
    (the stage is then the first segment of the URL it called), else "": the `$default`
    stage, a custom domain (which maps the stage away), a function URL, an ALB."""
    context = (event or {}).get("requestContext") or {}
    domain, stage = context.get("domainName"), context.get("stage")
    if not isinstance(domain, str) or ".execute-api." not in domain:
        return ""
    if not isinstance(stage, str) or not stage or stage == "$default":
        return ""
    return f"/{stage}"


def trusted_networks(value: str | None) -> tuple[IPNetwork, ...]:
    """`trusted_proxies` (comma-separated addresses or CIDR networks), parsed; ValueError names
    a bad entry at start-up."""
    networks: list[IPNetwork] = []
    for item in (value or "").split(","):
        if item.strip():
            import ipaddress

            try:
                networks.append(ipaddress.ip_network(item.strip(), strict=False))
            except ValueError:
                raise ValueError(f"A2A_TRUSTED_PROXIES: {item.strip()!r} is no address") from None
    return tuple(networks)


def from_trusted_proxy(client: Any, networks: tuple[IPNetwork, ...]) -> bool:
    """Whether the peer of a request (the ASGI scope's `client`) is one of `networks`."""
    if not networks or not client:
        return False
    import ipaddress

    try:
        address = ipaddress.ip_address(client[0])
    except (ValueError, TypeError, IndexError):
        return False
    return any(address in network for network in networks)


def _first(value: str | None) -> str | None:
    """The client-side value of a header that proxies may have turned into a list."""
    return value.split(",")[0].strip() or None if value else None


def _not_wildcard(host: str) -> str:
    name, sep, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not sep:
        name, port = host, ""
    if name in _WILDCARD_HOSTS:
        return f"127.0.0.1:{port}" if port else "127.0.0.1"
    return host


def clean_prefix(prefix: str | None) -> str:
    """`prefix` as a path to append to a base URL: "" for none, else "/a/b" (no trailing /)."""
    if not prefix:
        return ""
    prefix = "/" + prefix.strip("/")
    return "" if prefix == "/" else prefix


def resolved_prefix(prefix: PublicPrefix) -> str:
    """A public path prefix (see `PublicPrefix`), found now if it is found on first use."""
    return clean_prefix(prefix() if callable(prefix) else prefix)


def agent_url(public_url: str | None, prefix: PublicPrefix) -> str | None:
    """The agent's own URL: the configured public URL with the prefix it is served under (no
    trailing slash), or None when no public URL is configured. Its callback routes and its JWKS
    are under it, and its push notifications' JWTs name it as their issuer."""
    if not public_url:
        return None
    return public_url.rstrip("/") + resolved_prefix(prefix)


def join_url(base: str, path: str) -> str:
    if path in ("", "/"):
        return base + "/"
    return base.rstrip("/") + "/" + path.lstrip("/")
