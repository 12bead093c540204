"""The agent card: built from the agent's definition and the truth about this deployment.

The card's `url` is where clients must send requests: the JSON-RPC endpoint, our preferred
transport. `additionalInterfaces` lists every transport (spec §5.6.2): JSON-RPC at that same url,
and HTTP+JSON/REST at the app's base URL, the one REST clients append `/v1/...` to (the official
SDK strips a trailing slash, then requests e.g. `{url}/v1/message:send`). With the JSON-RPC
endpoint at the root the two differ only by the trailing slash of the JSON-RPC url.

Both come, in this order, from:

1. configuration (`public_url`): what the deploy files and the project template set;
2. the platform's own request context: API Gateway's and Lambda function URLs'
   `requestContext.domainName` (and the stage, on an execute-api host), which the gateway fills
   in, not the client;
3. the request: its Host header and the ASGI root path; proxies' X-Forwarded-Proto /
   X-Forwarded-Host / X-Forwarded-Prefix only when the request comes from an address in
   `trusted_proxies` (a client can write any header: a card built from one, kept by a shared
   cache, would send every client's messages and credentials to the host it names). The card
   is then served `Cache-Control: private` with `Vary` on those headers (asgi.py).

Never from the wildcard address a server happens to be bound to.
"""

from __future__ import annotations

import ipaddress
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
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


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


# The card's v1.0 members, beside the v0.3 ones: each version's clients read theirs and ignore
# the others'. `supportedInterfaces` lists the interfaces in order of preference, v1.0 first.
V1_SCHEME_KEYS = {
    "apiKey": "apiKeySecurityScheme",
    "http": "httpAuthSecurityScheme",
    "oauth2": "oauth2SecurityScheme",
    "openIdConnect": "openIdConnectSecurityScheme",
    "mutualTLS": "mtlsSecurityScheme",
}


def card_document(card: AgentCard) -> dict[str, Any]:
    """The card as served: the v0.3 card with the v1.0 members added (spec v1.0 §8).

    - `supportedInterfaces`: JSON-RPC and HTTP+JSON in v1.0, then JSON-RPC and HTTP+JSON in
      v0.3, each with its `protocolVersion` (both HTTP+JSON interfaces have the app's base URL:
      v1.0's routes are `/message:send`, ..., v0.3's `/v1/message:send`, ...);
    - `capabilities.extendedAgentCard` (v0.3: `supportsAuthenticatedExtendedCard`);
    - `securityRequirements`, on the card and its skills (v0.3: `security`);
    - each security scheme also in v1.0's oneof form (`{"apiKeySecurityScheme": {...}}`) next to
      v0.3's `type`-tagged members, in the same object.
    """
    document = card.dump()
    jsonrpc_url = card.url
    rest_url = next(
        (i.url for i in card.additional_interfaces or () if i.transport == "HTTP+JSON"), None
    )
    interfaces = [{"url": jsonrpc_url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]
    if rest_url is not None:
        interfaces.append(
            {"url": rest_url, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
        )
    interfaces.append({"url": jsonrpc_url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"})
    if rest_url is not None:
        interfaces.append(
            {"url": rest_url, "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"}
        )
    document["supportedInterfaces"] = interfaces
    document["capabilities"]["extendedAgentCard"] = bool(card.supports_authenticated_extended_card)
    if card.security is not None:
        document["securityRequirements"] = _requirements(card.security)
    for skill in document.get("skills", ()):
        if "security" in skill:
            skill["securityRequirements"] = _requirements(skill["security"])
    for scheme in (document.get("securitySchemes") or {}).values():
        v1_key = V1_SCHEME_KEYS.get(scheme.get("type", ""))
        if v1_key is not None:
            scheme[v1_key] = _v1_scheme(scheme)
    return document


def _requirements(security: list[dict[str, list[str]]]) -> list[dict[str, Any]]:
    return [
        {"schemes": {name: {"list": list(scopes)} for name, scopes in requirement.items()}}
        for requirement in security
    ]


def _v1_scheme(scheme: dict[str, Any]) -> dict[str, Any]:
    body = {k: v for k, v in scheme.items() if k not in ("type", "in")}
    if scheme.get("type") == "apiKey":
        body["location"] = scheme.get("in")
    if scheme.get("type") == "oauth2" and isinstance(body.get("flows"), dict):
        # v1.0's OAuthFlows is a oneof: the first flow the card declares.
        flows = body["flows"]
        first = next(iter(flows), None)
        body["flows"] = {first: flows[first]} if first is not None else {}
    return body


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
    return f"{proto}://{host}{_clean_prefix(prefix)}"


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
            try:
                networks.append(ipaddress.ip_network(item.strip(), strict=False))
            except ValueError:
                raise ValueError(f"A2A_TRUSTED_PROXIES: {item.strip()!r} is no address") from None
    return tuple(networks)


def from_trusted_proxy(client: Any, networks: tuple[IPNetwork, ...]) -> bool:
    """Whether the peer of a request (the ASGI scope's `client`) is one of `networks`."""
    if not networks or not client:
        return False
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


def _clean_prefix(prefix: str | None) -> str:
    if not prefix:
        return ""
    prefix = "/" + prefix.strip("/")
    return "" if prefix == "/" else prefix


def join_url(base: str, path: str) -> str:
    if path in ("", "/"):
        return base + "/"
    return base.rstrip("/") + "/" + path.lstrip("/")
