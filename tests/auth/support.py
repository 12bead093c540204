"""Helpers of the auth tests: key pairs, JWT claims, hand-forged JWTs and a real loopback HTTP
server standing in for an identity provider (JWKS, OpenID discovery)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import time
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from a2a_serverless.auth import RequestView

AUDIENCE = "https://agent.example.com"


@dataclass(frozen=True)
class KeyPair:
    private: Any
    public: Any

    def public_pem(self) -> str:
        pem: bytes = self.public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return pem.decode()

    def jwk(self, kid: str, alg: str | None = None) -> dict[str, Any]:
        algorithm = RSAAlgorithm if isinstance(self.public, rsa.RSAPublicKey) else ECAlgorithm
        jwk: dict[str, Any] = algorithm.to_jwk(self.public, as_dict=True)
        jwk.update({"kid": kid, "use": "sig"})
        if alg:
            jwk["alg"] = alg
        return jwk


@dataclass(frozen=True)
class Keys:
    rsa: KeyPair
    rsa2: KeyPair  # another RSA key: "wrong signature", rotation
    ec: KeyPair


def _rsa() -> KeyPair:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return KeyPair(private, private.public_key())


def make_keys() -> Keys:
    private = ec.generate_private_key(ec.SECP256R1())
    return Keys(_rsa(), _rsa(), KeyPair(private, private.public_key()))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def claims_for(issuer: str, **overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": issuer,
        "aud": AUDIENCE,
        "sub": "alice",
        "iat": now,
        "exp": now + 300,
        "scope": "a2a:invoke tasks:read",
    }
    for name, value in overrides.items():
        if value is None:
            claims.pop(name, None)
        else:
            claims[name] = value
    return claims


ISSUER = "https://issuer.example.com"


def mint(
    key: KeyPair,
    *,
    issuer: str = ISSUER,
    kid: str | None = "k1",
    alg: str = "RS256",
    **claims: Any,
) -> str:
    """A JWT signed with PyJWT; claims default to `claims_for(issuer)` (None removes one)."""
    headers = {"kid": kid} if kid is not None else {}
    return jwt.encode(claims_for(issuer, **claims), key.private, algorithm=alg, headers=headers)


def forge(header: dict[str, Any], payload: dict[str, Any], signature: bytes = b"") -> str:
    """A JWT assembled by hand (for alg=none and other things PyJWT refuses to produce)."""
    head = b64url(json.dumps(header).encode())
    body = b64url(json.dumps(payload).encode())
    return f"{head}.{body}.{b64url(signature)}"


def bearer(token: str) -> RequestView:
    return RequestView.from_headers({"Authorization": f"Bearer {token}"})


# --- the identity provider on loopback --------------------------------------------------------


class IdentityProvider:
    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, bytes]] = {}
        self.hits: dict[str, int] = {}
        self._server: asyncio.Server | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    issuer = url

    @property
    def jwks_url(self) -> str:
        return f"{self.url}/jwks.json"

    @property
    def discovery_url(self) -> str:
        return f"{self.url}/.well-known/openid-configuration"

    def set(self, path: str, status: int, document: Any) -> None:
        body = document if isinstance(document, bytes) else json.dumps(document).encode()
        self.routes[path] = (status, body)

    def set_jwks(self, *jwks: dict[str, Any]) -> None:
        self.set("/jwks.json", 200, {"keys": list(jwks)})

    def set_discovery(self, **overrides: Any) -> None:
        document = {
            "issuer": self.issuer,
            "jwks_uri": self.jwks_url,
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
        }
        document.update(overrides)
        self.set("/.well-known/openid-configuration", 200, document)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            target = head.split(b"\r\n", 1)[0].split(b" ")[1].decode()
            path = target.split("?", 1)[0]
            self.hits[path] = self.hits.get(path, 0) + 1
            status, body = self.routes.get(path, (404, b'{"error":"not found"}'))
            writer.write(
                f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
