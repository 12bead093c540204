"""`security_from_settings`: A2A_AUTH_* variables (or a settings object's auth_* attributes)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from a2a_serverless.auth import (
    ApiKeyAuthenticator,
    BearerJWTAuthenticator,
    OpenIdConnectAuthenticator,
    RequestView,
    Security,
    UpstreamIdentityAuthenticator,
    security_from_settings,
)

from .support import AUDIENCE, ISSUER, IdentityProvider, Keys, bearer, mint

K1 = "k1-0123456789abcdefgh"
K2 = "k2-0123456789abcdefgh=="


def test_nothing_configured_is_anonymous() -> None:
    security = security_from_settings({})
    assert not security.enabled and security.card_fields() == (None, None)


async def test_api_keys_list_form() -> None:
    security = security_from_settings(
        {"A2A_AUTH_API_KEYS": f"{K1}=alice, {K2}=bot|tasks:read tasks:write"}
    )
    auth = security.authenticators["apiKey"]
    assert isinstance(auth, ApiKeyAuthenticator) and auth.param_name == "X-API-Key"
    bot = await security.authenticate(RequestView.from_headers({"x-api-key": K2}))
    assert bot.owner == "apiKey:bot" and bot.scopes == {"tasks:read", "tasks:write"}


async def test_api_keys_json_form_in_a_cookie() -> None:
    keys = {K1: "alice", K2: {"subject": "bot", "scopes": ["x"]}}
    security = security_from_settings(
        {
            "A2A_AUTH_API_KEYS": json.dumps(keys),
            "A2A_AUTH_API_KEY_IN": "cookie",
            "A2A_AUTH_API_KEY_NAME": "key",
        }
    )
    identity = await security.authenticate(RequestView.from_headers({"cookie": f"key={K2}"}))
    assert identity.subject == "bot" and identity.scopes == {"x"}


def test_api_key_errors_never_repeat_the_value() -> None:
    for value in ("just-a-secret-without-subject", "=alice", "secret-value-1234567890="):
        with pytest.raises(ValueError) as caught:
            security_from_settings({"A2A_AUTH_API_KEYS": value})
        assert value not in str(caught.value)
    with pytest.raises(ValueError, match="header, query or cookie"):
        security_from_settings({"A2A_AUTH_API_KEYS": f"{K1}=a", "A2A_AUTH_API_KEY_IN": "body"})


async def test_jwt_with_static_keys(keys: Keys) -> None:
    env = {
        "A2A_AUTH_JWT_ISSUER": ISSUER,
        "A2A_AUTH_JWT_AUDIENCE": f"urn:other, {AUDIENCE}",
        "A2A_AUTH_JWT_KEYS": json.dumps({"keys": [keys.rsa.jwk("k1")]}),
        "A2A_AUTH_JWT_ALGORITHMS": "RS256",
        "A2A_AUTH_JWT_LEEWAY_S": "5",
        "A2A_AUTH_REQUIREMENTS": '[{"bearer": ["a2a:invoke"]}]',
        "A2A_AUTH_PUBLIC_CARD": "false",
    }
    security = security_from_settings(env)
    auth = security.authenticators["bearer"]
    assert isinstance(auth, BearerJWTAuthenticator)
    assert auth.algorithms == ("RS256",) and auth.leeway_s == 5.0
    assert auth.audience == ["urn:other", AUDIENCE]
    assert security.protects_card
    assert (await security.authenticate(bearer(mint(keys.rsa)))).owner == "bearer:alice"


async def test_jwt_with_a_pem_key_in_one_line(keys: Keys) -> None:
    pem = keys.rsa.public_pem().replace("\n", "\\n")
    env = {"A2A_AUTH_JWT_ISSUER": ISSUER, "A2A_AUTH_JWT_AUDIENCE": AUDIENCE}
    security = security_from_settings({**env, "A2A_AUTH_JWT_KEYS": pem})
    assert (await security.authenticate(bearer(mint(keys.rsa, kid=None)))).subject == "alice"


async def test_oidc_and_upstream(keys: Keys, idp: IdentityProvider) -> None:
    idp.set_discovery()
    idp.set_jwks(keys.rsa.jwk("k1"))
    security = security_from_settings(
        {
            "A2A_AUTH_OIDC_URL": idp.url,
            "A2A_AUTH_JWT_AUDIENCE": AUDIENCE,
            "A2A_AUTH_UPSTREAM": "aws, gcp_iap",
        }
    )
    assert isinstance(security.authenticators["oidc"], OpenIdConnectAuthenticator)
    upstream = security.authenticators["upstream"]
    assert isinstance(upstream, UpstreamIdentityAuthenticator)
    assert upstream.sources == ("aws", "gcp_iap")
    identity = await security.authenticate(bearer(mint(keys.rsa, issuer=idp.issuer)))
    assert identity.owner == "oidc:alice"


def test_incomplete_jwt_settings() -> None:
    with pytest.raises(ValueError, match="A2A_AUTH_JWT_AUDIENCE"):
        security_from_settings(
            {"A2A_AUTH_JWT_ISSUER": ISSUER, "A2A_AUTH_JWT_JWKS_URL": "https://x/j"}
        )
    with pytest.raises(ValueError, match="A2A_AUTH_JWT_ISSUER"):
        security_from_settings({"A2A_AUTH_JWT_JWKS_URL": "https://x/j"})
    with pytest.raises(ValueError, match="OIDC_AUDIENCE"):
        security_from_settings({"A2A_AUTH_OIDC_URL": "https://idp.example.com"})
    with pytest.raises(ValueError, match="A2A_AUTH_REQUIREMENTS"):
        security_from_settings({"A2A_AUTH_API_KEYS": f"{K1}=a", "A2A_AUTH_REQUIREMENTS": "{"})
    with pytest.raises(ValueError, match="A2A_AUTH_REQUIREMENTS"):
        security_from_settings({"A2A_AUTH_API_KEYS": f"{K1}=a", "A2A_AUTH_REQUIREMENTS": '["x"]'})
    with pytest.raises(ValueError, match="unknown security scheme"):
        security_from_settings(
            {"A2A_AUTH_API_KEYS": f"{K1}=a", "A2A_AUTH_REQUIREMENTS": '[{"bearer": []}]'}
        )
    with pytest.raises(ValueError, match="boolean"):
        security_from_settings({"A2A_AUTH_PUBLIC_CARD": "maybe"})
    with pytest.raises(ValueError, match="number"):
        security_from_settings(
            {
                "A2A_AUTH_JWT_ISSUER": ISSUER,
                "A2A_AUTH_JWT_AUDIENCE": AUDIENCE,
                "A2A_AUTH_JWT_JWKS_URL": "https://x/j",
                "A2A_AUTH_JWT_LEEWAY_S": "soon",
            }
        )


async def test_settings_object_attributes() -> None:
    settings = SimpleNamespace(
        store_url="memory://",
        auth_api_keys=f"{K1}=alice",
        auth_api_key_name=None,
        auth_public_card=False,
        auth_requirements=[{"apiKey": []}, {}],
    )
    security = security_from_settings(settings)
    assert isinstance(security, Security) and not security.public_card
    assert security.requirements == [{"apiKey": ()}, {}]
    identity = await security.authenticate(RequestView.from_headers({"X-API-Key": K1}))
    assert identity.subject == "alice"


def test_a_runtime_without_auth_settings_makes_its_anonymous_security_when_asked() -> None:
    from a2a_serverless import Runtime, Settings, agent

    @agent(name="Echo", description="Echoes.")
    async def echo(text: str) -> str:
        return text

    plain = Runtime(echo, Settings(store_url="memory://", auth_public_card=False))
    assert not plain.settings.sets_authentication
    assert not plain.authenticates and plain._security is None
    assert not plain.security.enabled and not plain.security.protects_card
    assert plain.security is plain.security  # made once

    keyed = Runtime(echo, Settings(store_url="memory://", auth_api_keys=f"{K1}=alice"))
    assert keyed.settings.sets_authentication and keyed.authenticates
    assert "apiKey" in keyed.security.authenticators

    # A setting that names no scheme still goes through security_from_settings (its checks).
    with pytest.raises(ValueError, match="no authenticators"):
        Runtime(echo, Settings(store_url="memory://", auth_requirements='[{"apiKey": []}]'))
