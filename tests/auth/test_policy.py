"""`Security`: requirement logic (OR of AND sets, scopes), 401/403/503, the card's fields,
per-skill authorization, custom authenticators and the anonymous mode."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_serverless.agent import Agent
from a2a_serverless.auth import (
    ANONYMOUS,
    ApiKey,
    ApiKeyAuthenticator,
    AuthenticationUnavailable,
    Authenticator,
    AuthError,
    BearerJWTAuthenticator,
    Forbidden,
    Identity,
    InvalidCredentials,
    RequestView,
    Security,
    Unauthenticated,
)
from a2a_serverless.card import build_card, card_document
from a2a_serverless.models import (
    AgentCard,
    AgentSkill,
    MutualTLSSecurityScheme,
    SecurityRequirement,
)

from .support import AUDIENCE, ISSUER, IdentityProvider, Keys, mint

KEY = "alice-key-0123456789abcdef"
READER_KEY = "reader-key-0123456789abcdef"


def api_keys() -> ApiKeyAuthenticator:
    return ApiKeyAuthenticator(
        "apiKey", keys={KEY: "alice", READER_KEY: ApiKey("reader", frozenset({"tasks:read"}))}
    )


def jwt_bearer(keys: Keys) -> BearerJWTAuthenticator:
    return BearerJWTAuthenticator(
        "bearer",
        issuer=ISSUER,
        audience=AUDIENCE,
        static_keys={"keys": [keys.rsa.jwk("k1")]},
    )


def request(*, key: str | None = None, token: str | None = None, **headers: str) -> RequestView:
    values = dict(headers)
    if key is not None:
        values["X-API-Key"] = key
    if token is not None:
        values["Authorization"] = f"Bearer {token}"
    return RequestView.from_headers(values)


def skill(skill_id: str, security: list[dict[str, list[str]]] | None = None) -> AgentSkill:
    requirements = None if security is None else [SecurityRequirement.of(r) for r in security]
    return AgentSkill(
        id=skill_id, name=skill_id, description="d", tags=[], security_requirements=requirements
    )


# --- OR / AND --------------------------------------------------------------------------------


async def test_default_requirements_accept_any_scheme(keys: Keys) -> None:
    security = Security([api_keys(), jwt_bearer(keys)])
    assert security.requirements == [{"apiKey": ()}, {"bearer": ()}]
    assert (await security.authenticate(request(key=KEY))).owner == "apiKey:alice"
    assert (await security.authenticate(request(token=mint(keys.rsa)))).owner == "bearer:alice"


async def test_missing_credentials_401_with_one_challenge_per_scheme(keys: Keys) -> None:
    security = Security([api_keys(), jwt_bearer(keys)])
    with pytest.raises(Unauthenticated) as caught:
        await security.authenticate(request())
    error = caught.value
    assert error.status == 401
    assert error.challenges == [
        'ApiKey realm="a2a", in="header", name="X-API-Key"',
        'Bearer realm="a2a"',
    ]
    assert error.headers() == [
        (b"www-authenticate", b'ApiKey realm="a2a", in="header", name="X-API-Key"'),
        (b"www-authenticate", b'Bearer realm="a2a"'),
    ]
    assert "credentials are required" in error.reason


async def test_bad_credentials_401_say_why(keys: Keys) -> None:
    security = Security([api_keys(), jwt_bearer(keys)])
    expired = mint(keys.rsa, exp=1_000_000)
    with pytest.raises(Unauthenticated) as caught:
        await security.authenticate(request(token=expired))
    assert caught.value.challenges[1] == (
        'Bearer realm="a2a", error="invalid_token", error_description="the token has expired"'
    )
    assert caught.value.reason == "bearer: the token has expired"
    assert caught.value.to_json() == {
        "error": {
            "code": -32000,
            "status": "Unauthorized",
            "message": "bearer: the token has expired",
            "data": {"httpStatus": 401, "error": "unauthorized"},
        }
    }


async def test_one_good_alternative_wins_over_a_refused_one(keys: Keys) -> None:
    security = Security([api_keys(), jwt_bearer(keys)])
    identity = await security.authenticate(request(key=KEY, token="garbage"))
    assert identity.owner == "apiKey:alice"
    assert set(identity.schemes) == {"apiKey"}


async def test_and_requirement_needs_both(keys: Keys) -> None:
    security = Security([api_keys(), jwt_bearer(keys)], [{"apiKey": [], "bearer": []}])
    identity = await security.authenticate(request(key=KEY, token=mint(keys.rsa, sub="bob")))
    # the first scheme of the alternative is the identity; both are recorded
    assert identity.owner == "apiKey:alice"
    assert set(identity.schemes) == {"apiKey", "bearer"}
    with pytest.raises(Unauthenticated) as caught:
        await security.authenticate(request(key=KEY))
    assert "more credentials are needed" in caught.value.reason
    with pytest.raises(Unauthenticated):
        await security.authenticate(request(token=mint(keys.rsa)))


async def test_scopes_missing_is_403_insufficient_scope(keys: Keys) -> None:
    security = Security([jwt_bearer(keys)], [{"bearer": ["a2a:invoke", "tasks:write"]}])
    with pytest.raises(Forbidden) as caught:
        await security.authenticate(request(token=mint(keys.rsa)))
    error = caught.value
    assert error.status == 403 and error.required_scopes == {"tasks:write"}
    assert error.challenges == [
        'Bearer realm="a2a", error="insufficient_scope", error_description="the credentials '
        'lack the required scopes (bearer: tasks:write)", scope="tasks:write"'
    ]
    token = mint(keys.rsa, scope="a2a:invoke tasks:write")
    assert (await security.authenticate(request(token=token))).scopes >= {"tasks:write"}


async def test_scopes_or_logic(keys: Keys) -> None:
    security = Security(
        [api_keys(), jwt_bearer(keys)],
        [{"apiKey": ["tasks:read"]}, {"bearer": ["a2a:invoke"]}],
    )
    assert (await security.authenticate(request(key=READER_KEY))).subject == "reader"
    assert (await security.authenticate(request(token=mint(keys.rsa)))).scheme == "bearer"
    with pytest.raises(Forbidden):
        await security.authenticate(request(key=KEY))  # alice's key has no scopes


async def test_optional_authentication(keys: Keys) -> None:
    security = Security([api_keys()], [{"apiKey": []}, {}])
    assert await security.authenticate(request()) is ANONYMOUS
    assert (await security.authenticate(request(key=KEY))).owner == "apiKey:alice"
    # bad credentials are not silently downgraded to anonymous
    with pytest.raises(Unauthenticated):
        await security.authenticate(request(key="wrong-key-0123456789"))
    only_optional = Security([api_keys()], [{}])
    assert await only_optional.authenticate(request()) is ANONYMOUS
    assert (await only_optional.authenticate(request(key=KEY))).subject == "alice"
    with pytest.raises(Unauthenticated) as caught:
        await only_optional.authenticate(request(key="wrong-key-0123456789"))
    assert caught.value.challenges[0].startswith('ApiKey realm="a2a"')


async def test_unavailable_keys_are_503(keys: Keys, idp: IdentityProvider) -> None:
    idp.set("/jwks.json", 500, {})
    remote = BearerJWTAuthenticator(
        "bearer", issuer=ISSUER, audience=AUDIENCE, jwks_url=idp.jwks_url
    )
    security = Security([api_keys(), remote])
    with pytest.raises(AuthenticationUnavailable) as caught:
        await security.authenticate(request(token=mint(keys.rsa)))
    assert caught.value.status == 503
    assert caught.value.to_json()["error"]["status"] == "Service Unavailable"
    assert caught.value.jsonrpc_body(7)["error"]["data"] == {
        "httpStatus": 503,
        "error": "authentication_unavailable",
    }
    assert caught.value.headers() == [(b"retry-after", b"5")]
    # another satisfied alternative still gets in
    assert (await security.authenticate(request(key=KEY, token=mint(keys.rsa)))).subject == "alice"


# --- configuration ---------------------------------------------------------------------------


def test_configuration_is_checked(keys: Keys) -> None:
    with pytest.raises(ValueError, match="unknown security scheme 'oauth'"):
        Security([api_keys()], [{"oauth": []}])
    with pytest.raises(ValueError, match="two authenticators"):
        Security([api_keys(), api_keys()])
    with pytest.raises(ValueError, match=r"\[\{\}\]"):
        Security([api_keys()], [])
    with pytest.raises(ValueError, match="no authenticators"):
        Security([], [{"apiKey": []}])
    security = Security([api_keys()])
    security.check_skills([skill("a", [{"apiKey": []}])])
    with pytest.raises(ValueError, match="skill 'b'"):
        security.check_skills([skill("b", [{"bearer": ["x"]}])])


# --- the card --------------------------------------------------------------------------------


def card_with(security: Security, *, extended: bool = False) -> dict[str, Any]:
    """The served card of an agent with `security` (and extended skills, or not)."""
    extra = [skill("more")] if extended else []
    plain = Agent("n", "d", None, direct=lambda message: None, extended_skills=extra)
    card = build_card(
        plain,
        url="https://agent.example.com/",
        streaming=False,
        push_notifications=False,
        security=security,
    )
    # and it survives the wire: dump -> validate -> same
    assert AgentCard.model_validate(card.model_dump()) == card
    return card_document(card)


def test_card_fields(keys: Keys) -> None:
    security = Security(
        [api_keys(), jwt_bearer(keys)], [{"apiKey": []}, {"bearer": ["a2a:invoke"]}]
    )
    wire = card_with(security, extended=True)
    assert wire["securitySchemes"] == {
        "apiKey": {
            "type": "apiKey",
            "name": "X-API-Key",
            "in": "header",
            "apiKeySecurityScheme": {"name": "X-API-Key", "location": "header"},
        },
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "httpAuthSecurityScheme": {"scheme": "bearer", "bearerFormat": "JWT"},
        },
    }
    assert wire["security"] == [{"apiKey": []}, {"bearer": ["a2a:invoke"]}]
    assert wire["securityRequirements"] == [
        {"schemes": {"apiKey": {"list": []}}},
        {"schemes": {"bearer": {"list": ["a2a:invoke"]}}},
    ]
    assert wire["supportsAuthenticatedExtendedCard"] is True
    assert wire["capabilities"]["extendedAgentCard"] is True


def test_card_fields_anonymous() -> None:
    assert Security.anonymous().card_fields() == (None, None)
    wire = card_with(Security.anonymous(), extended=True)
    for member in ("securitySchemes", "security", "securityRequirements"):
        assert member not in wire
    assert "supportsAuthenticatedExtendedCard" not in wire
    assert wire["capabilities"]["extendedAgentCard"] is False


def test_card_protection_flag(keys: Keys) -> None:
    assert not Security([api_keys()]).protects_card
    assert Security([api_keys()], public_card=False).protects_card
    assert not Security(public_card=False).protects_card  # nothing to authenticate with


# --- skills ----------------------------------------------------------------------------------


async def test_authorize_skill(keys: Keys) -> None:
    security = Security([api_keys(), jwt_bearer(keys)])
    reader = await security.authenticate(request(key=READER_KEY))
    alice_jwt = await security.authenticate(request(token=mint(keys.rsa)))
    open_skill = skill("open")
    read_skill = skill("read", [{"apiKey": ["tasks:read"]}, {"bearer": ["tasks:read"]}])
    admin_skill = skill("admin", [{"bearer": ["admin"]}])
    for identity in (reader, alice_jwt):
        security.authorize_skill(identity, open_skill)
        security.authorize_skill(identity, read_skill)
    with pytest.raises(Forbidden) as caught:
        security.authorize_skill(alice_jwt, admin_skill)
    assert "skill 'admin' requires bearer[admin]" in caught.value.reason
    assert caught.value.required_scopes == {"admin"}
    assert 'scope="admin"' in caught.value.challenges[0]
    with pytest.raises(Forbidden):
        security.authorize_skill(reader, admin_skill)  # not even a bearer token
    assert [
        s.id for s in security.allowed_skills(reader, [open_skill, read_skill, admin_skill])
    ] == [
        "open",
        "read",
    ]


async def test_authorize_skill_for_the_anonymous_caller(keys: Keys) -> None:
    optional = Security([api_keys()], [{}, {"apiKey": []}])
    anonymous = await optional.authenticate(request())
    with pytest.raises(Unauthenticated) as caught:
        optional.authorize_skill(anonymous, skill("s", [{"apiKey": []}]))
    assert caught.value.challenges == ['ApiKey realm="a2a", in="header", name="X-API-Key"']
    # unauthenticated deployments enforce nothing
    Security.anonymous().authorize_skill(ANONYMOUS, skill("s", [{"apiKey": ["x"]}]))


# --- anonymous mode and custom authenticators -------------------------------------------------


async def test_anonymous_mode() -> None:
    security = Security.anonymous()
    assert not security.enabled
    identity = await security.authenticate(request(key="anything"))
    assert identity is ANONYMOUS
    assert (identity.owner, identity.subject, identity.is_anonymous) == ("anonymous",) * 2 + (True,)


class SignedHeaderAuthenticator:
    """A custom scheme: a shared-secret HMAC of the caller's name (for the test only)."""

    name = "partner"

    def security_scheme(self) -> MutualTLSSecurityScheme:
        return MutualTLSSecurityScheme(description="partners")

    async def authenticate(self, request: RequestView) -> Identity | None:
        import hashlib
        import hmac

        caller = request.headers.get("x-partner")
        if caller is None:
            return None
        expected = hmac.new(b"partner-secret", caller.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, request.headers.get("x-partner-mac", "")):
            raise InvalidCredentials("the partner signature is wrong")
        return Identity(subject=caller, scheme=self.name, scopes=frozenset({"partner"}))

    def challenge(self, error: AuthError | None = None) -> str:
        return 'Partner realm="a2a"'


async def test_custom_authenticator() -> None:
    import hashlib
    import hmac

    custom = SignedHeaderAuthenticator()
    assert isinstance(custom, Authenticator)
    security = Security([custom])
    mac = hmac.new(b"partner-secret", b"acme", hashlib.sha256).hexdigest()
    identity = await security.authenticate(request(**{"X-Partner": "acme", "X-Partner-Mac": mac}))
    assert identity.owner == "partner:acme" and identity.schemes == {"partner": {"partner"}}
    with pytest.raises(Unauthenticated) as caught:
        await security.authenticate(request(**{"X-Partner": "acme", "X-Partner-Mac": "00"}))
    assert caught.value.challenges == ['Partner realm="a2a"']
    assert security.card_fields()[0] == {"partner": MutualTLSSecurityScheme(description="partners")}


async def test_identities_unfit_to_own_tasks_are_refused() -> None:
    class Sloppy(SignedHeaderAuthenticator):
        async def authenticate(self, request: RequestView) -> Identity | None:
            return Identity(subject="a\nb", scheme=self.name)

    with pytest.raises(Unauthenticated, match="not acceptable"):
        await Security([Sloppy()]).authenticate(request())
