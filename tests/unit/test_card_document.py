"""The served card stays what it was when the internal card was 0.3's, member for member.

`tests/fixtures/card-0.3-model/documents.json` was written by the previous `card.py` (the
internal card in 0.3's shape, `card_document` adding 1.0's members) for the cards built here:
an anonymous agent's, and one with every field set (skills with security requirements, every
kind of security scheme, an OAuth 2 scheme with every 0.3 flow, extensions, a provider, an
extended card). The internal card is now 1.0's and the 0.3 codec writes 0.3's members
(`v03/card.py`); the documents both versions' clients read must not have moved: the public
card, the extended card over 1.0 (the same document) and over 0.3 (0.3's form alone).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a2a_serverless import models as m
from a2a_serverless.agent import Agent
from a2a_serverless.auth import Identity, RequestView, Security
from a2a_serverless.card import build_card, card_document, v10_document
from a2a_serverless.codec import ValidationError
from a2a_serverless.v03 import card as v03_card

BEFORE = json.loads(
    (
        Path(__file__).resolve().parents[1] / "fixtures" / "card-0.3-model" / "documents.json"
    ).read_text(encoding="utf-8")
)


class Declares:
    """An authenticator that only declares a scheme (the card is all that is under test)."""

    def __init__(self, name: str, scheme: m.SchemeModel) -> None:
        self.name, self._scheme = name, scheme

    def security_scheme(self) -> m.SchemeModel:
        return self._scheme

    async def authenticate(self, request: RequestView) -> Identity | None:
        return None

    def challenge(self, error: object = None) -> str:
        return ""


def every_flow() -> m.OAuthFlows:
    return m.OAuthFlows(
        authorization_code=m.AuthorizationCodeOAuthFlow(
            authorization_url="https://id.example/authorize",
            token_url="https://id.example/token",
            scopes={"read": "Read"},
            refresh_url="https://id.example/refresh",
        ),
        client_credentials=m.ClientCredentialsOAuthFlow(
            token_url="https://id.example/token", scopes={"write": "Write"}
        ),
        implicit=m.ImplicitOAuthFlow(authorization_url="https://id.example/authorize", scopes={}),
        password=m.PasswordOAuthFlow(token_url="https://id.example/token", scopes={"all": "All"}),
    )


def every_scheme() -> Security:
    declared = [
        Declares(
            "key",
            m.APIKeySecurityScheme(name="X-API-Key", location="header", description="a key"),
        ),
        Declares(
            "bearer",
            m.HTTPAuthSecurityScheme(scheme="bearer", bearer_format="JWT", description="tokens"),
        ),
        Declares(
            "oauth",
            m.OAuth2SecurityScheme(
                flows=every_flow(),
                oauth2_metadata_url="https://id.example/.well-known/oauth-authorization-server",
                description="oauth",
            ),
        ),
        Declares(
            "oidc",
            m.OpenIdConnectSecurityScheme(
                open_id_connect_url="https://id.example/.well-known/openid-configuration"
            ),
        ),
        Declares("mtls", m.MutualTLSSecurityScheme(description="partners")),
    ]
    return Security(declared, [{"key": []}, {"bearer": ["read"], "oauth": ["read", "write"]}, {}])


SKILLS = [
    m.AgentSkill(
        id="open",
        name="Open",
        description="for all",
        tags=["a"],
        examples=["hi"],
        input_modes=["text/plain"],
        output_modes=["application/json"],
    ),
    m.AgentSkill(
        id="guarded",
        name="Guarded",
        description="scoped",
        tags=[],
        security_requirements=[
            m.SecurityRequirement.of({"bearer": ["reports:write"]}),
            m.SecurityRequirement.of({"mtls": []}),
        ],
    ),
]
EXTENDED = [
    m.AgentSkill(
        id="more",
        name="More",
        description="extended",
        tags=["x"],
        security_requirements=[m.SecurityRequirement.of({"oauth": ["write"]})],
    )
]


def full_card() -> m.AgentCard:
    agent = Agent(
        name="full",
        description="every field",
        executor=None,
        direct=lambda message: None,
        version="2.1.0",
        skills=SKILLS,
        extended_skills=EXTENDED,
        provider=m.AgentProvider(organization="Example", url="https://example.com"),
        extensions=[
            m.AgentExtension(
                uri="https://example.com/ext/v1",
                description="an extension",
                params={"n": 1, "deep": {"a": [1, 2]}},
                required=True,
            ),
            m.AgentExtension(uri="https://example.com/ext/other"),
        ],
        documentation_url="https://example.com/docs",
        icon_url="https://example.com/icon.png",
        input_modes=["text/plain", "application/json"],
        output_modes=["text/plain"],
    )
    return build_card(
        agent,
        url="https://agent.example/",
        rest_url="https://agent.example",
        streaming=True,
        push_notifications=True,
        security=every_scheme(),
    )


def test_the_public_card_is_unchanged() -> None:
    assert card_document(full_card()) == BEFORE["public"]


def test_the_extended_card_is_unchanged_in_both_versions() -> None:
    extended = full_card().model_copy(update={"skills": [*SKILLS, *EXTENDED]})
    assert card_document(extended) == BEFORE["extended_v10"]
    assert v03_card.document(extended) == BEFORE["extended_v03"]


def test_an_anonymous_agents_card_is_unchanged() -> None:
    plain = Agent(name="plain", description="d", executor=None, direct=lambda message: None)
    card = build_card(
        plain,
        url="http://localhost:8000/",
        rest_url=None,
        streaming=False,
        push_notifications=False,
        security=Security.anonymous(),
    )
    assert card_document(card) == BEFORE["anonymous"]


def test_the_internal_card_is_1_0s() -> None:
    """Its own JSON is 1.0's card (but for the flows' oneof, which `v10_document` applies), and
    reads back as what it was."""
    card = full_card()
    document = v10_document(card)
    for member in ("url", "preferredTransport", "additionalInterfaces", "protocolVersion"):
        assert member not in document
    assert "security" not in document and "supportsAuthenticatedExtendedCard" not in document
    assert document["capabilities"]["extendedAgentCard"] is True
    assert "stateTransitionHistory" not in document["capabilities"]
    assert [i["protocolVersion"] for i in document["supportedInterfaces"]] == ["1.0"] * 2 + [
        "0.3"
    ] * 2
    assert document["securitySchemes"]["key"] == {
        "apiKeySecurityScheme": {"name": "X-API-Key", "location": "header", "description": "a key"}
    }
    assert list(document["securitySchemes"]["oauth"]["oauth2SecurityScheme"]["flows"]) == [
        "authorizationCode"
    ]
    assert document["skills"][1] == {
        "id": "guarded",
        "name": "Guarded",
        "description": "scoped",
        "tags": [],
        "securityRequirements": [
            {"schemes": {"bearer": {"list": ["reports:write"]}}},
            {"schemes": {"mtls": {"list": []}}},
        ],
    }
    assert m.AgentCard.model_validate(card.model_dump()) == card


def test_the_old_skill_keyword_is_the_new_field() -> None:
    """`AgentSkill(security=...)`, 0.3's form, is taken for one release (with a warning)."""
    with pytest.warns(DeprecationWarning, match="security_requirements"):
        old = m.AgentSkill(id="s", name="s", description="d", tags=[], security=[{"k": ["a"]}])
    new = m.AgentSkill(
        id="s",
        name="s",
        description="d",
        tags=[],
        security_requirements=[m.SecurityRequirement.of({"k": ["a"]})],
    )
    assert old == new and old.security is None
    assert old.requirements() == [{"k": ["a"]}]


def test_a_security_scheme_holds_exactly_one_scheme() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        m.SecurityScheme()
    with pytest.raises(ValidationError):
        m.SecurityScheme.model_validate(
            {"mtlsSecurityScheme": {}, "httpAuthSecurityScheme": {"scheme": "bearer"}}
        )
    tls = m.MutualTLSSecurityScheme()
    assert m.SecurityScheme.of(tls).scheme is tls


def test_signatures_and_1_0s_own_members_in_0_3s_card() -> None:
    """Signatures are the same object in both versions; what 0.3 cannot say (the device code
    flow, PKCE, an interface's tenant) stays out of its card."""
    signature = m.AgentCardSignature(protected="eyJhbGciOiJFUzI1NiJ9", signature="c2ln")
    flows = m.OAuthFlows(
        authorization_code=m.AuthorizationCodeOAuthFlow(
            authorization_url="https://id.example/a",
            token_url="https://id.example/t",
            scopes={},
            pkce_required=True,
        ),
        device_code=m.DeviceCodeOAuthFlow(
            device_authorization_url="https://id.example/d",
            token_url="https://id.example/t",
            scopes={},
        ),
    )
    card = full_card().model_copy(
        update={
            "signatures": [signature],
            "security_schemes": {"o": m.SecurityScheme.of(m.OAuth2SecurityScheme(flows=flows))},
            "security_requirements": None,
        }
    )
    document = card_document(card)
    assert document["signatures"] == [{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c2ln"}]
    assert document["securitySchemes"]["o"] == {
        "type": "oauth2",
        "flows": {
            "authorizationCode": {
                "authorizationUrl": "https://id.example/a",
                "tokenUrl": "https://id.example/t",
                "scopes": {},
            }
        },
        "oauth2SecurityScheme": {
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "https://id.example/a",
                    "tokenUrl": "https://id.example/t",
                    "scopes": {},
                    "pkceRequired": True,
                }
            }
        },
    }
    # What 0.3's card says is what 0.3's model reads (as the client checks others' cards).
    assert v03_card.AgentCard.model_validate(document).model_dump() == v03_card.document(card)


def test_0_3s_card_has_none_of_1_0s_members() -> None:
    document = v03_card.document(full_card())
    assert not {"supportedInterfaces", "securityRequirements"} & set(document)
    assert "extendedAgentCard" not in document["capabilities"]
    assert all("securityRequirements" not in skill for skill in document["skills"])
    oneof = {
        "apiKeySecurityScheme",
        "httpAuthSecurityScheme",
        "oauth2SecurityScheme",
        "openIdConnectSecurityScheme",
        "mtlsSecurityScheme",
    }
    assert not any(oneof & set(scheme) for scheme in document["securitySchemes"].values())
    assert document["protocolVersion"] == v03_card.PROTOCOL_VERSION == "0.3.0"
