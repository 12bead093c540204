"""The agent card: built from the agent's definition and the truth about this deployment.

The card's `url` is where clients must send requests: the JSON-RPC endpoint, our preferred
transport. `additionalInterfaces` lists every transport (spec §5.6.2): JSON-RPC at that same url,
and HTTP+JSON/REST at the app's base URL, the one REST clients append `/v1/...` to (the official
SDK strips a trailing slash, then requests e.g. `{url}/v1/message:send`). With the JSON-RPC
endpoint at the root the two differ only by the trailing slash of the JSON-RPC url.

Both come from configuration (`public_url`) when set; otherwise from the request that fetched the
card — the Host header, proxies' X-Forwarded-Proto / X-Forwarded-Host / X-Forwarded-Prefix, the
ASGI root path and an API Gateway stage — and never from the wildcard address a server happens
to be bound to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .agent import Agent
from .auth import Security
from .models import (
    PROTOCOL_VERSION,
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    TransportProtocol,
)

_WILDCARD_HOSTS = {"0.0.0.0", "[::]", "::"}


def build_card(
    agent: Agent,
    *,
    url: str,
    rest_url: str | None = None,
    streaming: bool,
    push_notifications: bool,
    security: Security | None = None,
) -> AgentCard:
    """The public card. With `security`, its schemes and requirements are declared, and the
    extended card is announced when the agent has extended skills to show."""
    schemes, requirements = security.card_fields() if security is not None else (None, None)
    offers_extended = bool(agent.extended_skills) and security is not None and security.enabled
    return AgentCard(
        name=agent.name,
        description=agent.description,
        url=url,
        version=agent.version,
        protocol_version=PROTOCOL_VERSION,
        capabilities=AgentCapabilities(
            streaming=streaming,
            push_notifications=push_notifications,
            # Every status change is kept in the task's event log and history.
            state_transition_history=True,
            extensions=list(agent.extensions) or None,
        ),
        default_input_modes=list(agent.input_modes),
        default_output_modes=list(agent.output_modes),
        skills=list(agent.skills),
        preferred_transport=TransportProtocol.JSONRPC.value,
        additional_interfaces=_interfaces(url, rest_url),
        provider=agent.provider,
        documentation_url=agent.documentation_url,
        icon_url=agent.icon_url,
        security_schemes=schemes,
        security=requirements,
        supports_authenticated_extended_card=offers_extended or None,
    )


def _interfaces(url: str, rest_url: str | None) -> list[AgentInterface]:
    interfaces = [AgentInterface(transport=TransportProtocol.JSONRPC.value, url=url)]
    if rest_url is not None:
        interfaces.append(AgentInterface(transport=TransportProtocol.HTTP_JSON.value, url=rest_url))
    return interfaces


def request_base_url(
    *,
    scheme: str,
    headers: Mapping[str, str],
    server: tuple[str, int | None] | None,
    root_path: str = "",
    aws_event: Mapping[str, Any] | None = None,
) -> str:
    """The public base URL (no trailing slash) a client used to reach this app."""
    proto = _first(headers.get("x-forwarded-proto")) or scheme
    host = _first(headers.get("x-forwarded-host")) or headers.get("host")
    if not host and server is not None:
        name, port = server
        host = name if port is None else f"{name}:{port}"
    host = _not_wildcard(host or "localhost")
    prefix = _first(headers.get("x-forwarded-prefix")) or root_path or _api_gateway_stage(aws_event)
    return f"{proto}://{host}{_clean_prefix(prefix)}"


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


def _api_gateway_stage(event: Mapping[str, Any] | None) -> str:
    """A REST API (v1) or a named HTTP API (v2) stage is part of the public path."""
    if not event:
        return ""
    stage = (event.get("requestContext") or {}).get("stage")
    if not stage or stage == "$default":
        return ""
    # A custom domain maps the stage away; only the execute-api host carries it in the path.
    host = (event.get("headers") or {}).get("host", "") or ""
    if host and ".execute-api." not in host:
        return ""
    return f"/{stage}"


def _clean_prefix(prefix: str | None) -> str:
    if not prefix:
        return ""
    prefix = "/" + prefix.strip("/")
    return "" if prefix == "/" else prefix


def join_url(base: str, path: str) -> str:
    if path in ("", "/"):
        return base + "/"
    return base.rstrip("/") + "/" + path.lstrip("/")
