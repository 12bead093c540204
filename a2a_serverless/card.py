"""The agent card: built from the agent's definition and the truth about this deployment.

The card is the internal model's (`models.AgentCard`, A2A 1.0's). Its `supportedInterfaces`
list every interface in order of preference, 1.0's first: JSON-RPC at the JSON-RPC endpoint,
then HTTP+JSON at the app's base URL (1.0's routes are `/message:send`, ...), then the same two
in 0.3 (0.3's HTTP+JSON clients append `/v1/...`: the official SDK strips a trailing slash,
then requests e.g. `{url}/v1/message:send`). With the JSON-RPC endpoint at the root the two
URLs differ only by the trailing slash of the JSON-RPC url.

Both come from the public base URL of the deployment, which `publicurl.py` finds (configuration,
then the platform's request context, then the request, forwarded headers only from trusted
proxies; never the wildcard address a server happens to be bound to).

`card_document` is the card as served, the one document both versions' clients read: 0.3's
members (`v03/card.py`: `url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`,
`type`-tagged schemes, `security`, ...), then 1.0's beside them; each version's clients read
theirs and ignore the others'.
"""

from __future__ import annotations

from typing import Any

from .agent import Agent
from .auth import Security
from .models import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    SecurityRequirement,
    SecurityScheme,
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
        supported_interfaces=_interfaces(url, rest_url),
        provider=agent.provider,
        version=agent.version,
        documentation_url=agent.documentation_url,
        capabilities=AgentCapabilities(
            streaming=streaming,
            push_notifications=push_notifications,
            extensions=list(agent.extensions) or None,
            extended_agent_card=offers_extended,
        ),
        security_schemes=None
        if schemes is None
        else {name: SecurityScheme.of(scheme) for name, scheme in schemes.items()},
        security_requirements=None
        if requirements is None
        else [SecurityRequirement.of(requirement) for requirement in requirements],
        default_input_modes=list(agent.input_modes),
        default_output_modes=list(agent.output_modes),
        skills=list(agent.skills),
        icon_url=agent.icon_url,
    )


def _interfaces(url: str, rest_url: str | None) -> list[AgentInterface]:
    interfaces = []
    for version in ("1.0", "0.3"):
        interfaces.append(
            AgentInterface(
                url=url, protocol_binding=TransportProtocol.JSONRPC, protocol_version=version
            )
        )
        if rest_url is not None:
            interfaces.append(
                AgentInterface(
                    url=rest_url,
                    protocol_binding=TransportProtocol.HTTP_JSON,
                    protocol_version=version,
                )
            )
    return interfaces


def card_document(card: AgentCard) -> dict[str, Any]:
    """The card as served: 0.3's card with 1.0's members added (spec 1.0 §8).

    - `supportedInterfaces` (0.3: `url`, `preferredTransport`, `additionalInterfaces`);
    - `capabilities.extendedAgentCard`, always written (0.3: `supportsAuthenticatedExtendedCard`);
    - `securityRequirements`, on the card and its skills (0.3: `security`);
    - each security scheme also in 1.0's oneof form (`{"apiKeySecurityScheme": {...}}`) next to
      0.3's `type`-tagged members, in the same object.
    """
    from .v03 import card as v03_card  # on the first card served: a message needs none

    document = v03_card.document(card)
    v10 = v10_document(card)
    document["supportedInterfaces"] = v10["supportedInterfaces"]
    document["capabilities"]["extendedAgentCard"] = bool(card.capabilities.extended_agent_card)
    if "securityRequirements" in v10:
        document["securityRequirements"] = v10["securityRequirements"]
    for skill, v10_skill in zip(document["skills"], v10["skills"], strict=True):
        if "securityRequirements" in v10_skill:
            skill["securityRequirements"] = v10_skill["securityRequirements"]
    for name, scheme in (v10.get("securitySchemes") or {}).items():
        document["securitySchemes"][name].update(scheme)
    return document


def v10_document(card: AgentCard) -> dict[str, Any]:
    """The card as 1.0's JSON: the model's own, with an OAuth 2 scheme's flows as 1.0's oneof
    (the first flow the card declares)."""
    document = card.model_dump()
    for scheme in (document.get("securitySchemes") or {}).values():
        oauth2 = scheme.get("oauth2SecurityScheme")
        if oauth2 is not None:
            flows = oauth2["flows"]
            first = next(iter(flows), None)
            oauth2["flows"] = {first: flows[first]} if first is not None else {}
    return document
