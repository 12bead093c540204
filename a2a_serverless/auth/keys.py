"""Public keys that verify bearer JWTs: parsed from a JWKS or given statically, and a JWKS cache
that refreshes itself (on expiry, and — rate limited — when a token names an unknown key id,
which is how a key rotation shows up).

Every key is bound to its type: an RSA key only verifies RS*/PS*, a P-256 key only ES256, an
Ed25519 key only EdDSA, and a JWK's own "alg" (when it has one) must be the token's. Symmetric
("oct") keys, private keys and RSA keys under 2048 bits are never loaded, and HS*/"none" are
never accepted, so neither alg=none nor the HS256-signed-with-the-public-key confusion can
get through.

Imports PyJWT and cryptography only when keys are actually parsed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._http import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_S, fetch_json
from .base import AuthenticationUnavailable

log = logging.getLogger("a2a_serverless.auth")

ASYMMETRIC_ALGORITHMS = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)
_EC_CURVES = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}
_CRYPTOGRAPHY_CURVES = {"secp256r1": "P-256", "secp384r1": "P-384", "secp521r1": "P-521"}
_PRIVATE_MEMBERS = ("d", "p", "q", "dp", "dq", "qi", "k")
MIN_RSA_BITS = 2048
MAX_CANDIDATES = 10


def check_algorithms(algorithms: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(algorithms)
    bad = [a for a in chosen if a not in ASYMMETRIC_ALGORITHMS]
    if bad or not chosen:
        raise ValueError(
            "bearer JWTs are verified with asymmetric algorithms only "
            f"({', '.join(ASYMMETRIC_ALGORITHMS)}); not {bad or 'none at all'}"
        )
    return chosen


@dataclass(frozen=True, slots=True)
class VerificationKey:
    kid: str | None
    kty: str  # "RSA", "EC" or "OKP"
    crv: str | None
    alg: str | None  # the JWK's own "alg", if it named one
    key: Any = field(repr=False)  # a cryptography public key

    def fits(self, alg: str) -> bool:
        """Whether this key may verify a token signed with `alg`."""
        if self.alg is not None and self.alg != alg:
            return False
        if alg.startswith(("RS", "PS")):
            return self.kty == "RSA"
        if alg in _EC_CURVES:
            return self.kty == "EC" and self.crv == _EC_CURVES[alg]
        if alg == "EdDSA":
            return self.kty == "OKP" and self.crv in ("Ed25519", "Ed448")
        return False


def keys_from_jwks(
    document: Mapping[str, Any] | Sequence[Mapping[str, Any]], algorithms: Sequence[str]
) -> list[VerificationKey]:
    """The usable public signing keys of a JWKS document (others are skipped, not fatal)."""
    from jwt import PyJWK
    from jwt.exceptions import PyJWKError

    entries = document.get("keys") if isinstance(document, Mapping) else document
    if not isinstance(entries, list):
        raise ValueError('a JWKS document has a "keys" array')
    keys: list[VerificationKey] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        kty, kid, alg = entry.get("kty"), entry.get("kid"), entry.get("alg")
        if kty not in ("RSA", "EC", "OKP") or any(m in entry for m in _PRIVATE_MEMBERS):
            continue  # symmetric or private: never a verification key
        if entry.get("use", "sig") != "sig":
            continue
        ops = entry.get("key_ops")
        if isinstance(ops, list) and "verify" not in ops:
            continue
        if kid is not None and not isinstance(kid, str):
            continue
        if alg is not None and alg not in algorithms:
            continue
        try:
            parsed = PyJWK(entry, algorithm=alg)
        except (PyJWKError, ValueError, TypeError, KeyError):
            continue
        key = _describe(parsed.key, kid, alg)
        if key is not None:
            keys.append(key)
    return keys


def keys_from_static(static: Any, algorithms: Sequence[str]) -> list[VerificationKey]:
    """Keys given in configuration: a JWKS document, a list of JWKs, one PEM public key or
    certificate (or a cryptography public key), or a mapping kid -> PEM / key object."""
    if isinstance(static, Mapping) and "keys" in static:
        keys = keys_from_jwks(static, algorithms)
    elif isinstance(static, Sequence) and not isinstance(static, (str, bytes)):
        keys = keys_from_jwks(list(static), algorithms)
    elif isinstance(static, Mapping):
        keys = []
        for kid, value in static.items():
            key = _describe(_load_key(value), str(kid), None)
            if key is None:
                raise ValueError(f"static key {kid!r} is not a usable public key")
            keys.append(key)
    else:
        key = _describe(_load_key(static), None, None)
        if key is None:
            raise ValueError("the static key is not a usable public key")
        keys = [key]
    if not keys:
        raise ValueError("no usable public verification key in the static keys")
    return keys


def _load_key(value: Any) -> Any:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, bytes):
        if b"PRIVATE KEY" in value:
            raise ValueError("give the public key (or a certificate), never a private key")
        if b"BEGIN CERTIFICATE" in value:
            return x509.load_pem_x509_certificate(value).public_key()
        return serialization.load_pem_public_key(value)
    return value


def _describe(key: Any, kid: str | None, alg: str | None) -> VerificationKey | None:
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

    if isinstance(key, rsa.RSAPublicKey):
        if key.key_size < MIN_RSA_BITS:
            log.warning("skipping RSA key %r: %d bits is too short", kid, key.key_size)
            return None
        return VerificationKey(kid, "RSA", None, alg, key)
    if isinstance(key, ec.EllipticCurvePublicKey):
        crv = _CRYPTOGRAPHY_CURVES.get(key.curve.name)
        return VerificationKey(kid, "EC", crv, alg, key) if crv else None
    if isinstance(key, ed25519.Ed25519PublicKey):
        return VerificationKey(kid, "OKP", "Ed25519", alg, key)
    if isinstance(key, ed448.Ed448PublicKey):
        return VerificationKey(kid, "OKP", "Ed448", alg, key)
    return None  # private keys, symmetric secrets, anything else


class KeySet:
    """Static keys plus, when a JWKS URL is given, the keys fetched from it.

    The JWKS is fetched on first use, again after `ttl_s`, and again when a token names a key
    this set does not have — such refreshes at most once every `min_refresh_s`, so tokens with
    made-up key ids cannot make us hammer the identity provider. A failed fetch is retried
    after `failure_backoff_s` at the soonest. While the JWKS is unreachable, the keys fetched
    before keep serving; with none at all, AuthenticationUnavailable (503) is raised.
    """

    def __init__(
        self,
        static: Sequence[VerificationKey] = (),
        *,
        algorithms: Sequence[str] = ASYMMETRIC_ALGORITHMS,
        ttl_s: float = 3600.0,
        min_refresh_s: float = 30.0,
        failure_backoff_s: float = 5.0,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.static = list(static)
        self.algorithms = tuple(algorithms)
        self.ttl_s = ttl_s
        self.min_refresh_s = min_refresh_s
        self.failure_backoff_s = min(failure_backoff_s, min_refresh_s)
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.fetches = 0  # successful fetches (for metrics and tests)
        self._fetched: list[VerificationKey] = []
        self._fetched_url: str | None = None
        self._fetched_at = float("-inf")
        self._retry_after = float("-inf")  # after a failed fetch
        self._next_kid_refresh = float("-inf")  # after a refresh for an unknown kid
        self._locks: dict[int, asyncio.Lock] = {}

    def _lock(self) -> asyncio.Lock:
        # One lock per event loop: a Lambda container may run each invocation on a new loop.
        loop_id = id(asyncio.get_running_loop())
        lock = self._locks.get(loop_id)
        if lock is None:
            if len(self._locks) > 8:
                self._locks.clear()
            lock = self._locks[loop_id] = asyncio.Lock()
        return lock

    def matching(self, kid: str | None, alg: str) -> list[VerificationKey]:
        pool = [k for k in (*self.static, *self._fetched) if k.fits(alg)]
        if kid is not None:
            named = [k for k in pool if k.kid == kid]
            pool = named or [k for k in pool if k.kid is None]
        return pool[:MAX_CANDIDATES]

    def _fresh(self, url: str) -> bool:
        return self._fetched_url == url and time.monotonic() - self._fetched_at <= self.ttl_s

    def mark_stale(self) -> None:
        """Treat the fetched keys as old and lift the back-offs: the next token fetches again.

        For a process restored from a snapshot (Lambda SnapStart): its monotonic clock says
        nothing of how long the snapshot waited, so no age measured before can be trusted. The
        keys fetched before keep serving while the JWKS is unreachable, as usual."""
        self._fetched_at = float("-inf")
        self._retry_after = float("-inf")
        self._next_kid_refresh = float("-inf")

    async def candidates(self, kid: str | None, alg: str, url: str | None) -> list[VerificationKey]:
        """The keys that may verify a token with this kid and alg (fetching when needed)."""
        keys = self.matching(kid, alg)
        if url is None or (keys and self._fresh(url)):
            return keys
        async with self._lock():
            keys = self.matching(kid, alg)
            fresh = self._fresh(url)
            if keys and fresh:
                return keys  # another request refreshed it meanwhile
            now = time.monotonic()
            if now < self._retry_after or (fresh and now < self._next_kid_refresh):
                if self._fetched_url is None and not keys:
                    raise AuthenticationUnavailable("the signing keys (JWKS) are unreachable")
                return keys  # rate limited: an unknown kid stays unknown for now
            if fresh:  # the keys are fresh, but not this kid: the provider may have rotated
                self._next_kid_refresh = now + self.min_refresh_s
            try:
                document = await fetch_json(url, timeout_s=self.timeout_s, max_bytes=self.max_bytes)
                fetched = keys_from_jwks(document, self.algorithms)
            except (AuthenticationUnavailable, ValueError) as exc:
                self._retry_after = now + self.failure_backoff_s
                reason = exc.reason if isinstance(exc, AuthenticationUnavailable) else str(exc)
                log.warning("could not refresh the JWKS at %s: %s", url, reason)
                if keys:
                    return keys  # keep serving the keys fetched before
                raise AuthenticationUnavailable("the signing keys (JWKS) are unreachable") from None
            self._fetched, self._fetched_url = fetched, url
            self._fetched_at = now
            self.fetches += 1
            log.debug("fetched %d signing keys from %s", len(fetched), url)
            return self.matching(kid, alg)
