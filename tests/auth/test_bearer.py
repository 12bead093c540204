"""Bearer JWTs: real signatures, a real JWKS on loopback, every way a token can be wrong."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest

from a2a_serverless.auth import (
    AuthenticationUnavailable,
    BearerJWTAuthenticator,
    InvalidCredentials,
    RequestView,
)
from a2a_serverless.models import HTTPAuthSecurityScheme
from a2a_serverless.v03 import card as v03_card

from .support import (
    AUDIENCE,
    ISSUER,
    IdentityProvider,
    Keys,
    b64url,
    bearer,
    claims_for,
    forge,
    mint,
)


def static(keys: Keys, **options: object) -> BearerJWTAuthenticator:
    options.setdefault("issuer", ISSUER)
    options.setdefault("audience", AUDIENCE)
    return BearerJWTAuthenticator(
        "bearer",
        static_keys={"keys": [keys.rsa.jwk("k1"), keys.ec.jwk("e1")]},
        **options,  # type: ignore[arg-type]
    )


def fetched(idp: IdentityProvider, **options: object) -> BearerJWTAuthenticator:
    options.setdefault("issuer", ISSUER)
    options.setdefault("audience", AUDIENCE)
    return BearerJWTAuthenticator("bearer", jwks_url=idp.jwks_url, **options)  # type: ignore[arg-type]


async def refused(auth: BearerJWTAuthenticator, token: str) -> InvalidCredentials:
    with pytest.raises(InvalidCredentials) as caught:
        await auth.authenticate(bearer(token))
    return caught.value


# --- accepted ---------------------------------------------------------------------------------


async def test_good_token_gives_identity_with_owner_and_scopes(keys: Keys) -> None:
    identity = await static(keys).authenticate(bearer(mint(keys.rsa)))
    assert identity is not None
    assert identity.subject == "alice"
    assert identity.scheme == "bearer"
    assert identity.owner == "bearer:alice"
    assert identity.scopes == {"a2a:invoke", "tasks:read"}
    assert identity.claims["iss"] == ISSUER


async def test_es256_token_and_scp_list(keys: Keys) -> None:
    token = mint(keys.ec, kid="e1", alg="ES256", scope=None, scp=["x", "y"])
    identity = await static(keys).authenticate(bearer(token))
    assert identity is not None and identity.scopes == {"x", "y"}


async def test_custom_scope_claim_and_owner_prefix(keys: Keys) -> None:
    auth = static(keys, scope_claim="realm_access.roles", owner_prefix="corp")
    token = mint(keys.rsa, realm_access={"roles": ["admin"]})
    identity = await auth.authenticate(bearer(token))
    assert identity is not None
    assert identity.scopes == {"admin"} and identity.owner == "corp:alice"


async def test_several_issuers_put_the_issuer_in_the_owner(keys: Keys) -> None:
    auth = static(keys, issuer=[ISSUER, "https://other.example.com"])
    identity = await auth.authenticate(bearer(mint(keys.rsa, issuer="https://other.example.com")))
    assert identity is not None
    assert identity.owner == "bearer:https://other.example.com|alice"


async def test_static_pem_key_without_kid(keys: Keys) -> None:
    auth = BearerJWTAuthenticator(
        "bearer", issuer=ISSUER, audience=AUDIENCE, static_keys=keys.rsa.public_pem()
    )
    assert await auth.authenticate(bearer(mint(keys.rsa, kid=None))) is not None
    # a kid the static set does not name still finds the kid-less key
    assert await auth.authenticate(bearer(mint(keys.rsa, kid="whatever"))) is not None
    # the other RSA key does not verify
    assert "signature" in (await refused(auth, mint(keys.rsa2, kid=None))).reason


async def test_static_mapping_kid_to_pem(keys: Keys) -> None:
    auth = BearerJWTAuthenticator(
        "bearer",
        issuer=ISSUER,
        audience=AUDIENCE,
        static_keys={"k1": keys.rsa.public_pem(), "k2": keys.rsa2.public_pem()},
    )
    assert await auth.authenticate(bearer(mint(keys.rsa2, kid="k2"))) is not None
    assert "signature" in (await refused(auth, mint(keys.rsa2, kid="k1"))).reason


async def test_audience_list_any_match(keys: Keys) -> None:
    auth = static(keys, audience=["urn:one", AUDIENCE])
    assert await auth.authenticate(bearer(mint(keys.rsa, aud=[AUDIENCE, "urn:x"]))) is not None


# --- absent or refused ------------------------------------------------------------------------


async def test_no_authorization_header_is_absent(keys: Keys) -> None:
    assert await static(keys).authenticate(RequestView.from_headers({})) is None


async def test_other_authorization_scheme_is_absent(keys: Keys) -> None:
    request = RequestView.from_headers({"Authorization": "Basic YWxpY2U6cHc="})
    assert await static(keys).authenticate(request) is None


async def test_empty_bearer_is_invalid_request(keys: Keys) -> None:
    for value in ("Bearer", "Bearer   ", "Bearer a b"):
        with pytest.raises(InvalidCredentials) as caught:
            await static(keys).authenticate(RequestView.from_headers({"authorization": value}))
        assert caught.value.error == "invalid_request"


@pytest.mark.parametrize(
    "token", ["not-a-jwt", "a.b.c", "eyJhbGciOiJSUzI1NiJ9.e30", "....", "x" * 20000]
)
async def test_malformed_tokens(keys: Keys, token: str) -> None:
    error = await refused(static(keys), token)
    assert error.error == "invalid_token"


async def test_tampered_payload(keys: Keys) -> None:
    head, _, signature = mint(keys.rsa).split(".")
    payload = b64url(json.dumps(claims_for(ISSUER, sub="mallory")).encode())
    assert "signature" in (await refused(static(keys), f"{head}.{payload}.{signature}")).reason


async def test_expired(keys: Keys) -> None:
    now = int(time.time())
    error = await refused(static(keys), mint(keys.rsa, iat=now - 7200, exp=now - 3600))
    assert error.reason == "the token has expired"


async def test_not_yet_valid(keys: Keys) -> None:
    error = await refused(static(keys), mint(keys.rsa, nbf=int(time.time()) + 3600))
    assert error.reason == "the token is not valid yet"


async def test_issued_in_the_future(keys: Keys) -> None:
    error = await refused(static(keys), mint(keys.rsa, iat=int(time.time()) + 3600))
    assert error.reason == "the token is not valid yet"


async def test_clock_skew_leeway(keys: Keys) -> None:
    now = int(time.time())
    late = mint(keys.rsa, iat=now - 600, exp=now - 30)  # expired 30 s ago
    early = mint(keys.rsa, nbf=now + 30)  # valid in 30 s
    lenient = static(keys, leeway_s=60)
    assert await lenient.authenticate(bearer(late)) is not None
    assert await lenient.authenticate(bearer(early)) is not None
    strict = static(keys, leeway_s=0)
    assert (await refused(strict, late)).reason == "the token has expired"
    assert (await refused(strict, early)).reason == "the token is not valid yet"


async def test_wrong_audience(keys: Keys) -> None:
    error = await refused(static(keys), mint(keys.rsa, aud="https://other-agent.example.com"))
    assert "audience" in error.reason


async def test_missing_audience(keys: Keys) -> None:
    assert "'aud'" in (await refused(static(keys), mint(keys.rsa, aud=None))).reason


async def test_wrong_issuer(keys: Keys) -> None:
    error = await refused(static(keys), mint(keys.rsa, issuer="https://evil.example.com"))
    assert "issuer" in error.reason


async def test_required_claims(keys: Keys) -> None:
    assert "'exp'" in (await refused(static(keys), mint(keys.rsa, exp=None))).reason
    assert "'sub'" in (await refused(static(keys), mint(keys.rsa, sub=None))).reason
    auth = static(keys, required_claims=("exp", "jti"))
    assert "'jti'" in (await refused(auth, mint(keys.rsa))).reason


async def test_subject_with_control_characters(keys: Keys) -> None:
    assert "subject" in (await refused(static(keys), mint(keys.rsa, sub="a\nb"))).reason
    assert "'sub'" in (await refused(static(keys), mint(keys.rsa, sub=""))).reason


async def test_wrong_signature(keys: Keys) -> None:
    # signed by another key, but naming ours
    error = await refused(static(keys), mint(keys.rsa2, kid="k1"))
    assert error.reason == "the token's signature does not verify"


async def test_unknown_kid_with_static_keys(keys: Keys) -> None:
    error = await refused(static(keys), mint(keys.rsa, kid="nope"))
    assert error.reason == "the token was signed by an unknown key"


async def test_alg_none(keys: Keys) -> None:
    for alg in ("none", "None", "NONE"):
        token = forge({"alg": alg, "kid": "k1", "typ": "JWT"}, claims_for(ISSUER))
        assert "algorithm" in (await refused(static(keys), token)).reason


async def test_hs256_signed_with_the_public_key_is_refused(keys: Keys) -> None:
    """The classic key confusion: HMAC keyed with the RSA public key (PEM, or its JWK)."""
    for secret in (keys.rsa.public_pem().encode(), json.dumps(keys.rsa.jwk("k1")).encode()):
        header = b64url(json.dumps({"alg": "HS256", "kid": "k1", "typ": "JWT"}).encode())
        payload = b64url(json.dumps(claims_for(ISSUER)).encode())
        mac = hmac.new(secret, f"{header}.{payload}".encode(), hashlib.sha256).digest()
        token = f"{header}.{payload}.{b64url(mac)}"
        assert "algorithm" in (await refused(static(keys), token)).reason


def test_symmetric_algorithms_cannot_be_configured(keys: Keys) -> None:
    for algorithms in (["HS256"], ["RS256", "HS512"], ["none"], []):
        with pytest.raises(ValueError, match="asymmetric"):
            static(keys, algorithms=algorithms)


async def test_algorithm_outside_the_allowed_list(keys: Keys) -> None:
    auth = static(keys, algorithms=["ES256"])
    assert "algorithm" in (await refused(auth, mint(keys.rsa))).reason


async def test_key_type_binding(keys: Keys) -> None:
    # an ES256 token naming the RSA key, and an RS256 token naming the EC key
    ec_token = mint(keys.ec, kid="k1", alg="ES256")
    assert (
        await refused(static(keys), ec_token)
    ).reason == "the token was signed by an unknown key"
    rsa_token = mint(keys.rsa, kid="e1", alg="RS256")
    assert (
        await refused(static(keys), rsa_token)
    ).reason == "the token was signed by an unknown key"


async def test_jwk_alg_must_match(keys: Keys) -> None:
    auth = BearerJWTAuthenticator(
        "bearer",
        issuer=ISSUER,
        audience=AUDIENCE,
        static_keys={"keys": [keys.rsa.jwk("k1", alg="PS256")]},
    )
    assert (await refused(auth, mint(keys.rsa))).reason == "the token was signed by an unknown key"
    assert await auth.authenticate(bearer(mint(keys.rsa, alg="PS256"))) is not None


def test_symmetric_private_and_weak_keys_are_never_loaded(keys: Keys) -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa
    from jwt.algorithms import RSAAlgorithm

    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key()
    weak_jwk = {**RSAAlgorithm.to_jwk(weak, as_dict=True), "kid": "weak"}
    private_jwk = {**RSAAlgorithm.to_jwk(keys.rsa.private, as_dict=True), "kid": "private"}
    secret_jwk = {"kty": "oct", "k": b64url(b"secret" * 8), "kid": "oct"}
    with pytest.raises(ValueError, match="no usable"):
        BearerJWTAuthenticator(
            "bearer",
            issuer=ISSUER,
            audience=AUDIENCE,
            static_keys={"keys": [weak_jwk, private_jwk, secret_jwk]},
        )
    with pytest.raises(ValueError, match="private key"):
        from cryptography.hazmat.primitives import serialization

        pem = keys.rsa.private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        BearerJWTAuthenticator("bearer", issuer=ISSUER, audience=AUDIENCE, static_keys=pem)


def test_configuration_is_checked(keys: Keys) -> None:
    with pytest.raises(ValueError, match="audience"):
        static(keys, audience="")
    with pytest.raises(ValueError, match="issuer"):
        static(keys, issuer="")
    with pytest.raises(ValueError, match="jwks_url or static_keys"):
        BearerJWTAuthenticator("bearer", issuer=ISSUER, audience=AUDIENCE)
    with pytest.raises(ValueError, match="https"):
        BearerJWTAuthenticator(
            "bearer", issuer=ISSUER, audience=AUDIENCE, jwks_url="http://idp.example.com/jwks"
        )
    # plain http is fine for loopback, or when explicitly allowed
    BearerJWTAuthenticator("bearer", issuer=ISSUER, audience=AUDIENCE, jwks_url="http://[::1]/j")
    BearerJWTAuthenticator(
        "bearer",
        issuer=ISSUER,
        audience=AUDIENCE,
        jwks_url="http://idp.internal/jwks",
        allow_http=True,
    )


def test_card_scheme_and_challenges(keys: Keys) -> None:
    auth = static(keys)
    scheme = auth.security_scheme()
    assert isinstance(scheme, HTTPAuthSecurityScheme)
    assert scheme.model_dump() == {"scheme": "bearer", "bearerFormat": "JWT"}
    assert v03_card.scheme_of(scheme).model_dump() == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
    }
    assert auth.challenge() == 'Bearer realm="a2a"'
    error = InvalidCredentials('the token has "expired"\r\n')
    assert auth.challenge(error) == (
        'Bearer realm="a2a", error="invalid_token", error_description="the token has ?expired???"'
    )


# --- keys fetched from a JWKS -----------------------------------------------------------------


async def test_jwks_fetched_once_and_cached(keys: Keys, idp: IdentityProvider) -> None:
    idp.set_jwks(keys.rsa.jwk("k1"))
    auth = fetched(idp)
    for _ in range(3):
        assert await auth.authenticate(bearer(mint(keys.rsa))) is not None
    assert idp.hits["/jwks.json"] == 1


async def test_rotation_unknown_kid_triggers_one_refresh(keys: Keys, idp: IdentityProvider) -> None:
    idp.set_jwks(keys.rsa.jwk("k1"))
    auth = fetched(idp)
    assert await auth.authenticate(bearer(mint(keys.rsa))) is not None
    # the provider rotates: k2 is published, and tokens signed with it start arriving
    idp.set_jwks(keys.rsa.jwk("k1"), keys.rsa2.jwk("k2"))
    identity = await auth.authenticate(bearer(mint(keys.rsa2, kid="k2")))
    assert identity is not None
    assert idp.hits["/jwks.json"] == 2
    # made-up key ids cannot make us refetch again and again (rate limit)
    for kid in ("k3", "k4", "k5"):
        error = await refused(auth, mint(keys.rsa2, kid=kid))
        assert error.reason == "the token was signed by an unknown key"
    assert idp.hits["/jwks.json"] == 2


async def test_withdrawn_key_stops_verifying(keys: Keys, idp: IdentityProvider) -> None:
    idp.set_jwks(keys.rsa.jwk("k1"), keys.rsa2.jwk("k2"))
    auth = fetched(idp, jwks_min_refresh_s=0.0)
    assert await auth.authenticate(bearer(mint(keys.rsa))) is not None
    idp.set_jwks(keys.rsa2.jwk("k2"))
    await refused(auth, mint(keys.rsa, kid="k9"))  # an unknown kid: refresh
    assert idp.hits["/jwks.json"] == 2
    assert "unknown key" in (await refused(auth, mint(keys.rsa, kid="k1"))).reason


async def test_unknown_kid_after_refresh_is_refused(keys: Keys, idp: IdentityProvider) -> None:
    idp.set_jwks(keys.rsa.jwk("k1"))
    auth = fetched(idp)
    assert "unknown key" in (await refused(auth, mint(keys.rsa2, kid="other"))).reason
    assert idp.hits["/jwks.json"] == 1


async def test_jwks_stale_after_ttl_is_refetched(keys: Keys, idp: IdentityProvider) -> None:
    idp.set_jwks(keys.rsa.jwk("k1"))
    auth = fetched(idp, jwks_ttl_s=0.0, jwks_min_refresh_s=0.0)
    await auth.authenticate(bearer(mint(keys.rsa)))
    await auth.authenticate(bearer(mint(keys.rsa)))
    assert idp.hits["/jwks.json"] == 2


async def test_jwks_unreachable_is_unavailable_not_invalid(
    keys: Keys, idp: IdentityProvider
) -> None:
    idp.set("/jwks.json", 500, {"error": "down"})
    auth = fetched(idp)
    with pytest.raises(AuthenticationUnavailable):
        await auth.authenticate(bearer(mint(keys.rsa)))
    with pytest.raises(AuthenticationUnavailable):  # within the back-off: no new attempt
        await auth.authenticate(bearer(mint(keys.rsa)))
    assert idp.hits["/jwks.json"] == 1


async def test_cached_keys_survive_an_outage(keys: Keys, idp: IdentityProvider) -> None:
    idp.set_jwks(keys.rsa.jwk("k1"))
    auth = fetched(idp, jwks_ttl_s=0.0, jwks_min_refresh_s=0.0)
    assert await auth.authenticate(bearer(mint(keys.rsa))) is not None
    idp.set("/jwks.json", 503, {"error": "down"})
    assert await auth.authenticate(bearer(mint(keys.rsa))) is not None
    assert idp.hits["/jwks.json"] == 2


async def test_jwks_not_json_or_too_large(keys: Keys, idp: IdentityProvider) -> None:
    idp.set("/jwks.json", 200, b"<html>")
    with pytest.raises(AuthenticationUnavailable):
        await fetched(idp).authenticate(bearer(mint(keys.rsa)))
    idp.set_jwks(*[keys.rsa.jwk(f"k{i}") for i in range(400)])
    with pytest.raises(AuthenticationUnavailable):
        await fetched(idp, max_jwks_bytes=10_000).authenticate(bearer(mint(keys.rsa)))


async def test_jwks_redirect_is_not_followed(keys: Keys, idp: IdentityProvider) -> None:
    idp.set("/jwks.json", 302, {})
    with pytest.raises(AuthenticationUnavailable):
        await fetched(idp).authenticate(bearer(mint(keys.rsa)))


async def test_jwks_unreachable_port(keys: Keys) -> None:
    auth = BearerJWTAuthenticator(
        "bearer", issuer=ISSUER, audience=AUDIENCE, jwks_url="http://127.0.0.1:9/jwks.json"
    )
    with pytest.raises(AuthenticationUnavailable):
        await auth.authenticate(bearer(mint(keys.rsa)))


async def test_static_and_fetched_keys_together(keys: Keys, idp: IdentityProvider) -> None:
    idp.set_jwks(keys.rsa2.jwk("k2"))
    auth = BearerJWTAuthenticator(
        "bearer",
        issuer=ISSUER,
        audience=AUDIENCE,
        jwks_url=idp.jwks_url,
        static_keys={"keys": [keys.rsa.jwk("k1")]},
    )
    assert await auth.authenticate(bearer(mint(keys.rsa))) is not None
    assert await auth.authenticate(bearer(mint(keys.rsa2, kid="k2"))) is not None
