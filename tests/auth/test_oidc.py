"""OpenID Connect: discovery from a real loopback provider, then bearer-JWT verification."""

from __future__ import annotations

import time

import pytest

from a2a_serverless.auth import (
    AuthenticationUnavailable,
    InvalidCredentials,
    OpenIdConnectAuthenticator,
    RequestView,
)
from a2a_serverless.models import OpenIdConnectSecurityScheme
from a2a_serverless.v03 import card as v03_card

from .support import AUDIENCE, IdentityProvider, Keys, bearer, claims_for, forge, mint


def oidc(idp: IdentityProvider, **options: object) -> OpenIdConnectAuthenticator:
    options.setdefault("audience", AUDIENCE)
    return OpenIdConnectAuthenticator(
        "oidc",
        discovery_url=idp.discovery_url,
        **options,  # type: ignore[arg-type]
    )


@pytest.fixture
def provider(idp: IdentityProvider, keys: Keys) -> IdentityProvider:
    idp.set_discovery()
    idp.set_jwks(keys.rsa.jwk("k1"), keys.ec.jwk("e1"))
    return idp


async def test_good_token(provider: IdentityProvider, keys: Keys) -> None:
    auth = oidc(provider)
    identity = await auth.authenticate(bearer(mint(keys.rsa, issuer=provider.issuer)))
    assert identity is not None
    assert identity.owner == "oidc:alice"
    assert identity.scopes == {"a2a:invoke", "tasks:read"}
    token = mint(keys.ec, kid="e1", alg="ES256", issuer=provider.issuer, sub="bob")
    identity = await auth.authenticate(bearer(token))
    assert identity is not None and identity.owner == "oidc:bob"
    # discovery and keys are fetched once, then cached
    assert provider.hits == {"/.well-known/openid-configuration": 1, "/jwks.json": 1}


async def test_issuer_url_in_place_of_discovery_url(provider: IdentityProvider, keys: Keys) -> None:
    auth = OpenIdConnectAuthenticator("oidc", discovery_url=provider.url + "/", audience=AUDIENCE)
    assert auth.discovery_url == provider.discovery_url
    assert await auth.authenticate(bearer(mint(keys.rsa, issuer=provider.issuer))) is not None


async def test_absent_and_refused(provider: IdentityProvider, keys: Keys) -> None:
    auth = oidc(provider)
    assert await auth.authenticate(RequestView.from_headers({})) is None
    now = int(time.time())
    bad = {
        "expired": mint(keys.rsa, issuer=provider.issuer, iat=now - 900, exp=now - 600),
        "audience": mint(keys.rsa, issuer=provider.issuer, aud="someone-else"),
        "issuer": mint(keys.rsa, issuer="https://issuer.example.com"),
        "signature": mint(keys.rsa2, issuer=provider.issuer),
        "unknown key": mint(keys.rsa2, kid="zz", issuer=provider.issuer),
        "algorithm": forge({"alg": "none", "kid": "k1"}, claims_for(provider.issuer)),
        "well-formed": "garbage",
    }
    for expected, token in bad.items():
        with pytest.raises(InvalidCredentials) as caught:
            await auth.authenticate(bearer(token))
        assert expected in caught.value.reason, expected


async def test_discovery_issuer_must_match(idp: IdentityProvider, keys: Keys) -> None:
    idp.set_discovery(issuer="https://accounts.evil.example.com")
    idp.set_jwks(keys.rsa.jwk("k1"))
    with pytest.raises(AuthenticationUnavailable):
        await oidc(idp).authenticate(bearer(mint(keys.rsa, issuer=idp.issuer)))
    assert "/jwks.json" not in idp.hits


async def test_explicit_issuer(idp: IdentityProvider, keys: Keys) -> None:
    idp.set_discovery(issuer="https://tenant.example.com/v2.0")
    idp.set_jwks(keys.rsa.jwk("k1"))
    auth = oidc(idp, issuer="https://tenant.example.com/v2.0")
    token = mint(keys.rsa, issuer="https://tenant.example.com/v2.0")
    assert await auth.authenticate(bearer(token)) is not None


async def test_discovered_jwks_uri_must_be_https(idp: IdentityProvider, keys: Keys) -> None:
    idp.set_discovery(jwks_uri="http://keys.example.com/jwks.json")
    with pytest.raises(AuthenticationUnavailable):
        await oidc(idp).authenticate(bearer(mint(keys.rsa, issuer=idp.issuer)))


async def test_discovery_unreachable_then_recovers(idp: IdentityProvider, keys: Keys) -> None:
    idp.set("/.well-known/openid-configuration", 503, {"error": "down"})
    auth = oidc(idp)
    token = mint(keys.rsa, issuer=idp.issuer)
    with pytest.raises(AuthenticationUnavailable):
        await auth.authenticate(bearer(token))
    idp.set_discovery()
    idp.set_jwks(keys.rsa.jwk("k1"))
    auth._next_attempt = float("-inf")  # skip the 5 s back-off
    assert await auth.authenticate(bearer(token)) is not None


async def test_discovery_missing_fields(idp: IdentityProvider, keys: Keys) -> None:
    idp.set("/.well-known/openid-configuration", 200, {"issuer": idp.issuer})
    with pytest.raises(AuthenticationUnavailable):
        await oidc(idp).authenticate(bearer(mint(keys.rsa, issuer=idp.issuer)))


def test_card_scheme_and_configuration(idp: IdentityProvider) -> None:
    auth = oidc(idp)
    scheme = auth.security_scheme()
    assert isinstance(scheme, OpenIdConnectSecurityScheme)
    assert scheme.model_dump() == {"openIdConnectUrl": idp.discovery_url}
    assert v03_card.scheme_of(scheme).model_dump() == {
        "type": "openIdConnect",
        "openIdConnectUrl": idp.discovery_url,
    }
    assert auth.challenge() == 'Bearer realm="a2a"'
    with pytest.raises(ValueError, match="https"):
        OpenIdConnectAuthenticator("oidc", discovery_url="http://idp.example.com", audience="a")
    with pytest.raises(ValueError, match="audience"):
        OpenIdConnectAuthenticator("oidc", discovery_url=idp.discovery_url, audience=[])
