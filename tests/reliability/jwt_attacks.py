"""Bearer tokens an attacker would try against our JWT authentication, by name.

The server trusts RS256 tokens from ISSUER for AUDIENCE, verified with SIGNING's public key
(`AUTH_SETTINGS`, the way a deployment configures it). Every token in `attacks()` must be
refused; `good_token()` is accepted.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

ISSUER = "https://issuer.example.com"
AUDIENCE = "https://agent.example.com"
SIGNING = rsa.generate_private_key(public_exponent=65537, key_size=2048)
ATTACKER = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PUBLIC_PEM = (
    SIGNING.public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode()
)
PUBLIC_JWK = json.dumps(RSAAlgorithm.to_jwk(SIGNING.public_key(), as_dict=True))
AUTH_SETTINGS = {
    "auth_jwt_issuer": ISSUER,
    "auth_jwt_audience": AUDIENCE,
    "auth_jwt_keys": PUBLIC_PEM,
}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    values: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "mallory",
        "iat": now,
        "exp": now + 300,
    }
    values.update(overrides)
    return values


def good_token(**overrides: Any) -> str:
    return jwt.encode(claims(sub="carol", **overrides), SIGNING, algorithm="RS256")


def forge(header: dict[str, Any], payload: dict[str, Any], signature: bytes = b"") -> str:
    """A JWT put together by hand (PyJWT refuses to make most of these)."""
    head = b64url(json.dumps(header).encode())
    body = b64url(json.dumps(payload).encode())
    return f"{head}.{body}.{b64url(signature)}"


def hmac_signed(secret: str, alg: str = "HS256", **header: Any) -> str:
    """A token MAC'ed with `secret`: with the public key, the key-confusion attack."""
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[alg]
    head = b64url(json.dumps({"alg": alg, "typ": "JWT", **header}).encode())
    body = b64url(json.dumps(claims()).encode())
    mac = hmac.new(secret.encode(), f"{head}.{body}".encode(), digest).digest()
    return f"{head}.{body}.{b64url(mac)}"


def _tampered() -> str:
    """A good token whose payload was changed after signing."""
    head, _, signature = good_token().split(".")
    return f"{head}.{b64url(json.dumps(claims(sub='admin')).encode())}.{signature}"


def attacks() -> dict[str, str]:
    now = int(time.time())
    attacker_jwk = RSAAlgorithm.to_jwk(ATTACKER.public_key(), as_dict=True)
    return {
        "alg-none": forge({"alg": "none", "typ": "JWT"}, claims()),
        "alg-None": forge({"alg": "None"}, claims()),
        "alg-NONE-with-signature": forge({"alg": "NONE"}, claims(), b"anything"),
        "alg-missing": forge({"typ": "JWT"}, claims()),
        "rs256-without-signature": forge({"alg": "RS256", "typ": "JWT"}, claims()),
        "hs256-with-public-pem": hmac_signed(PUBLIC_PEM),
        "hs384-with-public-pem": hmac_signed(PUBLIC_PEM, "HS384"),
        "hs512-with-public-pem": hmac_signed(PUBLIC_PEM, "HS512"),
        "hs256-with-public-jwk": hmac_signed(PUBLIC_JWK),
        "hs256-with-empty-secret": hmac_signed(""),
        "embedded-jwk-header": jwt.encode(
            claims(), ATTACKER, algorithm="RS256", headers={"jwk": attacker_jwk}
        ),
        "jku-header": jwt.encode(
            claims(),
            ATTACKER,
            algorithm="RS256",
            headers={"jku": "https://attacker.example.com/jwks.json", "kid": "evil"},
        ),
        "x5u-header": jwt.encode(
            claims(), ATTACKER, algorithm="RS256", headers={"x5u": "https://attacker.example.com/c"}
        ),
        "kid-path-traversal": jwt.encode(
            claims(), ATTACKER, algorithm="RS256", headers={"kid": "../../../../dev/null"}
        ),
        "signed-by-another-key": jwt.encode(claims(), ATTACKER, algorithm="RS256"),
        "tampered-payload": _tampered(),
        "expired": good_token(exp=now - 3600, iat=now - 7200),
        "not-yet-valid": good_token(nbf=now + 3600),
        "wrong-audience": good_token(aud="https://someone-else.example.com"),
        "no-audience": jwt.encode(
            {k: v for k, v in claims().items() if k != "aud"}, SIGNING, algorithm="RS256"
        ),
        "wrong-issuer": good_token(iss="https://evil.example.com"),
        "unknown-crit-header": jwt.encode(
            claims(), SIGNING, algorithm="RS256", headers={"crit": ["x-unknown"], "x-unknown": 1}
        ),
        "header-not-json": f"{b64url(b'not json')}.{b64url(json.dumps(claims()).encode())}.x",
        "two-parts": ".".join(good_token().split(".")[:2]),
    }
