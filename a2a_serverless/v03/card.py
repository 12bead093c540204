"""A2A 0.3's agent card (spec/a2a.json of 0.3.0), made from the internal card (1.0's).

The classes are 0.3's shapes, as its schema names them; `card(agent_card)` writes the internal
`models.AgentCard` in them. What 0.3 has that 1.0 has not, or has otherwise:

- `url` and `preferredTransport`: the first 0.3 interface of `supportedInterfaces`;
  `additionalInterfaces`: every 0.3 interface (`{transport, url}`), the first included (spec
  0.3 §5.6.2); `protocolVersion`: "0.3.0";
- `capabilities.stateTransitionHistory`: always true (every status change is kept in the
  task's event log and history); `supportsAuthenticatedExtendedCard` is 1.0's
  `capabilities.extendedAgentCard` (written only when true);
- `security`, on the card and its skills: 1.0's `securityRequirements` in the plain form
  (alternatives of scheme -> scopes);
- `securitySchemes`: each tagged by `type` (1.0: the member of a oneof), an API key's
  `location` as `in`; OAuth 2's flows all listed (1.0: the first), 1.0's device code flow and
  `pkceRequired` left out (0.3 has neither).

`card.py` serves the one document both versions' clients read (these members, then 1.0's);
0.3's extended card (`agent/getAuthenticatedExtendedCard`, `GET /v1/card`) is this form alone.
The client checks others' 0.3 cards against `AgentCard` (`client/cardcheck.py`).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec

from .. import models as m
from ..models import (
    A2AModel,
    AgentCardSignature,
    AgentExtension,
    AgentProvider,
    ClientCredentialsOAuthFlow,
    ImplicitOAuthFlow,
    PasswordOAuthFlow,
)

# 0.3's as they are 1.0's (same members, same names on the wire): one class each.
__all__ = [
    "AgentCardSignature",
    "AgentExtension",
    "AgentProvider",
    "ClientCredentialsOAuthFlow",
    "ImplicitOAuthFlow",
    "PasswordOAuthFlow",
]

PROTOCOL_VERSION = "0.3.0"


# --- 0.3's shapes -----------------------------------------------------------------------------


class AgentCapabilities(A2AModel):
    streaming: bool | None = None
    push_notifications: bool | None = None
    state_transition_history: bool | None = None
    extensions: list[AgentExtension] | None = None


class AgentSkill(A2AModel):
    id: str
    name: str
    description: str
    tags: list[str]
    examples: list[str] | None = None
    input_modes: list[str] | None = None
    output_modes: list[str] | None = None
    security: list[dict[str, list[str]]] | None = None


class AgentInterface(A2AModel):
    transport: str
    url: str


class APIKeySecurityScheme(A2AModel, tag_field="type", tag="apiKey"):
    type: ClassVar[str] = "apiKey"
    name: str
    # `in` is a Python keyword, so the attribute is `in_`.
    in_: Literal["query", "header", "cookie"] = msgspec.field(name="in")
    description: str | None = None


class HTTPAuthSecurityScheme(A2AModel, tag_field="type", tag="http"):
    type: ClassVar[str] = "http"
    scheme: str
    bearer_format: str | None = None
    description: str | None = None


class AuthorizationCodeOAuthFlow(A2AModel):
    authorization_url: str
    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class OAuthFlows(A2AModel):
    authorization_code: AuthorizationCodeOAuthFlow | None = None
    client_credentials: ClientCredentialsOAuthFlow | None = None
    implicit: ImplicitOAuthFlow | None = None
    password: PasswordOAuthFlow | None = None


class OAuth2SecurityScheme(A2AModel, tag_field="type", tag="oauth2"):
    type: ClassVar[str] = "oauth2"
    flows: OAuthFlows
    oauth2_metadata_url: str | None = None
    description: str | None = None


class OpenIdConnectSecurityScheme(A2AModel, tag_field="type", tag="openIdConnect"):
    type: ClassVar[str] = "openIdConnect"
    open_id_connect_url: str
    description: str | None = None


class MutualTLSSecurityScheme(A2AModel, tag_field="type", tag="mutualTLS"):
    type: ClassVar[str] = "mutualTLS"
    description: str | None = None


SecurityScheme = (
    APIKeySecurityScheme
    | HTTPAuthSecurityScheme
    | OAuth2SecurityScheme
    | OpenIdConnectSecurityScheme
    | MutualTLSSecurityScheme
)


def _protocol_version() -> str:
    return PROTOCOL_VERSION


class AgentCard(A2AModel, kw_only=True):
    name: str
    description: str
    url: str
    version: str
    # Required by the schema, so always written: a factory's default is never left out of the
    # JSON (a plain default would be, by omit_defaults).
    protocol_version: str = msgspec.field(default_factory=_protocol_version)
    capabilities: AgentCapabilities
    default_input_modes: list[str]
    default_output_modes: list[str]
    skills: list[AgentSkill]
    preferred_transport: str | None = None
    additional_interfaces: list[AgentInterface] | None = None
    provider: AgentProvider | None = None
    documentation_url: str | None = None
    icon_url: str | None = None
    security_schemes: dict[str, SecurityScheme] | None = None
    security: list[dict[str, list[str]]] | None = None
    supports_authenticated_extended_card: bool | None = None
    signatures: list[AgentCardSignature] | None = None


# --- the internal card in them ----------------------------------------------------------------


def card(agent_card: m.AgentCard) -> AgentCard:
    """The internal card in 0.3's shape."""
    interfaces = [
        i for i in agent_card.supported_interfaces if _is_v03(i.protocol_version)
    ] or agent_card.supported_interfaces
    capabilities = agent_card.capabilities
    return AgentCard(
        name=agent_card.name,
        description=agent_card.description,
        url=interfaces[0].url,
        version=agent_card.version,
        capabilities=AgentCapabilities(
            streaming=capabilities.streaming,
            push_notifications=capabilities.push_notifications,
            state_transition_history=True,
            extensions=capabilities.extensions,
        ),
        default_input_modes=agent_card.default_input_modes,
        default_output_modes=agent_card.default_output_modes,
        skills=[_skill(skill) for skill in agent_card.skills],
        preferred_transport=interfaces[0].protocol_binding,
        additional_interfaces=[
            AgentInterface(transport=i.protocol_binding, url=i.url) for i in interfaces
        ],
        provider=agent_card.provider,
        documentation_url=agent_card.documentation_url,
        icon_url=agent_card.icon_url,
        security_schemes=None
        if agent_card.security_schemes is None
        else {name: scheme_of(s.scheme) for name, s in agent_card.security_schemes.items()},
        security=_plain(agent_card.security_requirements),
        supports_authenticated_extended_card=capabilities.extended_agent_card or None,
        signatures=agent_card.signatures,
    )


def document(agent_card: m.AgentCard) -> dict[str, Any]:
    """The internal card as 0.3's JSON."""
    return card(agent_card).model_dump()


def _is_v03(version: str) -> bool:
    return version == "0.3" or version.startswith("0.3.")


def _plain(requirements: list[m.SecurityRequirement] | None) -> list[dict[str, list[str]]] | None:
    return None if requirements is None else [r.scopes() for r in requirements]


def _skill(skill: m.AgentSkill) -> AgentSkill:
    return AgentSkill(
        id=skill.id,
        name=skill.name,
        description=skill.description,
        tags=skill.tags,
        examples=skill.examples,
        input_modes=skill.input_modes,
        output_modes=skill.output_modes,
        security=_plain(skill.security_requirements),
    )


def scheme_of(scheme: m.SchemeModel) -> SecurityScheme:
    """One security scheme in 0.3's `type`-tagged shape."""
    if isinstance(scheme, m.APIKeySecurityScheme):
        return APIKeySecurityScheme(
            name=scheme.name, in_=scheme.location, description=scheme.description
        )
    if isinstance(scheme, m.HTTPAuthSecurityScheme):
        return HTTPAuthSecurityScheme(
            scheme=scheme.scheme,
            bearer_format=scheme.bearer_format,
            description=scheme.description,
        )
    if isinstance(scheme, m.OAuth2SecurityScheme):
        return OAuth2SecurityScheme(
            flows=_flows(scheme.flows),
            oauth2_metadata_url=scheme.oauth2_metadata_url,
            description=scheme.description,
        )
    if isinstance(scheme, m.OpenIdConnectSecurityScheme):
        return OpenIdConnectSecurityScheme(
            open_id_connect_url=scheme.open_id_connect_url, description=scheme.description
        )
    return MutualTLSSecurityScheme(description=scheme.description)


def _flows(flows: m.OAuthFlows) -> OAuthFlows:
    code = flows.authorization_code
    return OAuthFlows(
        authorization_code=None
        if code is None
        else AuthorizationCodeOAuthFlow(
            authorization_url=code.authorization_url,
            token_url=code.token_url,
            scopes=code.scopes,
            refresh_url=code.refresh_url,
        ),
        # The same classes in both versions: passed on as they are (the card is only rendered).
        client_credentials=flows.client_credentials,
        implicit=flows.implicit,
        password=flows.password,
    )
