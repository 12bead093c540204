"""The agent card: built from the agent's definition and the truth about this deployment.

The card's `url` is where clients must send requests: the JSON-RPC endpoint, our preferred
transport. `additionalInterfaces` lists every transport (spec §5.6.2): JSON-RPC at that same url,
and HTTP+JSON/REST at the app's base URL, the one REST clients append `/v1/...` to (the official
SDK strips a trailing slash, then requests e.g. `{url}/v1/message:send`). With the JSON-RPC
endpoint at the root the two differ only by the trailing slash of the JSON-RPC url.

Both come from the public base URL of the deployment, which `publicurl.py` finds (configuration,
then the platform's request context, then the request, forwarded headers only from trusted
proxies; never the wildcard address a server happens to be bound to).
"""

from __future__ import annotations

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
    document = card.model_dump()
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
