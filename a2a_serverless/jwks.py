"""Public keys that verify JWTs, for both sides that verify them: bearer tokens sent to the agent
(auth/bearer.py, auth/oidc.py) and webhooks the agent sent, checked by their receiver
(webhook_receiver.py). The key rules, the fetcher and the cache live here once.

Key rules. Every key is bound to its type: an RSA key only verifies RS*/PS*, a P-256 key only
ES256, an Ed25519 key only EdDSA, and a JWK's own "alg" (when it has one) must be the token's.
Symmetric ("oct") keys, private keys, keys not for signatures (`use`, `key_ops`) and RSA keys
under 2048 bits are never loaded, and HS*/"none" are never accepted, so neither alg=none nor
the HS256-signed-with-the-public-key confusion can get through.

Fetching. HTTPS only (plain HTTP to a loopback host is allowed, for local identity providers
and tests), no redirects, a timeout and a size limit; the same for the JWKS and for the OpenID
discovery document that leads to it. Every failure raises `KeySetUnavailable`: not the token
sender's fault (the agent's auth answers 503, a webhook receiver 503 so that the agent retries).

Caching. `KeySet` (static keys plus those fetched from a JWKS URL) refreshes on expiry and, rate
limited, when a token names a key it does not have — that is how a key rotation shows up.

Nothing here imports httpx, PyJWT or cryptography until a document is fetched or a key parsed:
the webhook receiver imports this module on a receiver's server, which has none of ours.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .exceptions import UnavailableError

log = logging.getLogger("a2a_serverless.jwks")

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
DEFAULT_TIMEOUT_S = 5.0
DEFAULT_MAX_BYTES = 512 * 1024


class KeySetUnavailable(UnavailableError):
    """The keys (a JWKS, or the discovery document naming it) could not be fetched: not the
    sender's fault; answer 503 so that it retries. `reason` says why (no secrets in it)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- the key rules -------------------------------------------------------------------------------


def check_algorithms(algorithms: Iterable[str]) -> tuple[str, ...]:
    chosen = tuple(algorithms)
    bad = [a for a in chosen if a not in ASYMMETRIC_ALGORITHMS]
    if bad or not chosen:
        raise ValueError(
            "JWTs are verified with asymmetric algorithms only "
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


# --- fetching ------------------------------------------------------------------------------------


def is_loopback_host(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_problem(url: str, *, allow_http: bool = False) -> str | None:
    """Why `url` may not be fetched for key material, or None when it may."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "is not a URL"
    if not parts.hostname:
        return "has no host"
    if parts.username or parts.password:
        return "must not carry credentials"
    if parts.scheme == "https":
        return None
    if parts.scheme == "http" and (allow_http or is_loopback_host(parts.hostname)):
        return None
    return "must be an https:// URL"


def check_url(url: str, what: str, *, allow_http: bool = False) -> str:
    problem = url_problem(url, allow_http=allow_http)
    if problem:
        raise ValueError(f"the {what} {problem}: {url!r}")
    return url


_ACCEPT_JSON = {"accept": "application/json"}


async def fetch_json(
    url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, max_bytes: int = DEFAULT_MAX_BYTES
) -> dict[str, Any]:
    """The JSON object at `url` (KeySetUnavailable when it cannot be had)."""
    import httpx

    try:
        async with (
            httpx.AsyncClient(timeout=timeout_s, follow_redirects=False) as client,
            client.stream("GET", url, headers=_ACCEPT_JSON) as response,
        ):
            _check_status(url, response.status_code)
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                _check_size(url, data, max_bytes)
    except httpx.HTTPError as exc:
        raise KeySetUnavailable(f"GET {url} failed: {type(exc).__name__}") from None
    return _json_object(url, data)


def fetch_json_sync(
    url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S, max_bytes: int = DEFAULT_MAX_BYTES
) -> dict[str, Any]:
    """`fetch_json` for synchronous code."""
    import httpx

    try:
        with (
            httpx.Client(timeout=timeout_s, follow_redirects=False) as client,
            client.stream("GET", url, headers=_ACCEPT_JSON) as response,
        ):
            _check_status(url, response.status_code)
            data = bytearray()
            for chunk in response.iter_bytes():
                data += chunk
                _check_size(url, data, max_bytes)
    except httpx.HTTPError as exc:
        raise KeySetUnavailable(f"GET {url} failed: {type(exc).__name__}") from None
    return _json_object(url, data)


def _check_status(url: str, status: int) -> None:
    if status != 200:
        raise KeySetUnavailable(f"GET {url} answered HTTP {status}")


def _check_size(url: str, data: bytearray, max_bytes: int) -> None:
    if len(data) > max_bytes:
        raise KeySetUnavailable(f"GET {url}: the document is too large")


def _json_object(url: str, data: bytearray) -> dict[str, Any]:
    try:
        document = json.loads(bytes(data))
    except ValueError:
        raise KeySetUnavailable(f"GET {url}: the document is not JSON") from None
    if not isinstance(document, dict):
        raise KeySetUnavailable(f"GET {url}: the document is not a JSON object")
    return document


# --- the cache -----------------------------------------------------------------------------------


def loop_lock(locks: dict[int, asyncio.Lock]) -> asyncio.Lock:
    """The lock in `locks` for the running event loop: a Lambda container may run each
    invocation on a new loop, and an asyncio.Lock belongs to one."""
    loop_id = id(asyncio.get_running_loop())
    lock = locks.get(loop_id)
    if lock is None:
        if len(locks) > 8:
            locks.clear()
        lock = locks[loop_id] = asyncio.Lock()
    return lock


class KeySet:
    """Static keys plus, when a JWKS URL is given, the keys fetched from it.

    The JWKS is fetched on first use, again after `ttl_s`, and again when a token names a key
    this set does not have — such refreshes at most once every `min_refresh_s` (a fetch that
    did not find the key counts as one), so tokens with made-up key ids cannot make us hammer
    the JWKS endpoint. A failed fetch is retried after `failure_backoff_s` at the soonest.
    While the JWKS is unreachable, the keys fetched before keep serving; with none at all,
    KeySetUnavailable is raised.

    `kid_required`: a token's kid must name a key (a key without a kid never stands in for it).
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
        kid_required: bool = False,
    ) -> None:
        self.static = list(static)
        self.algorithms = tuple(algorithms)
        self.ttl_s = ttl_s
        self.min_refresh_s = min_refresh_s
        self.failure_backoff_s = min(failure_backoff_s, min_refresh_s)
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.kid_required = kid_required
        self.fetches = 0  # successful fetches (for metrics and tests)
        self._fetched: list[VerificationKey] = []
        self._fetched_url: str | None = None
        self._fetched_at = float("-inf")
        self._retry_after = float("-inf")  # after a failed fetch
        self._next_kid_refresh = float("-inf")  # after a refresh for an unknown kid
        self._locks: dict[int, asyncio.Lock] = {}
        self._thread_lock = threading.Lock()

    def named(self, kid: str) -> list[VerificationKey]:
        """The keys with this kid, whatever algorithm they are for."""
        return [k for k in (*self.static, *self._fetched) if k.kid == kid]

    def matching(self, kid: str | None, alg: str) -> list[VerificationKey]:
        pool = [k for k in (*self.static, *self._fetched) if k.fits(alg)]
        if kid is not None:
            named = [k for k in pool if k.kid == kid]
            pool = named or ([] if self.kid_required else [k for k in pool if k.kid is None])
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
        async with loop_lock(self._locks):
            keys, fetch = self._plan(kid, alg, url)
            if not fetch:
                return keys
            started = time.monotonic()
            try:
                document = await fetch_json(url, timeout_s=self.timeout_s, max_bytes=self.max_bytes)
            except KeySetUnavailable as exc:
                return self._failed(url, keys, started, exc.reason)
            return self._fetched_now(kid, alg, url, document, keys, started)

    def candidates_sync(self, kid: str | None, alg: str, url: str | None) -> list[VerificationKey]:
        """`candidates` for synchronous code."""
        keys = self.matching(kid, alg)
        if url is None or (keys and self._fresh(url)):
            return keys
        with self._thread_lock:
            keys, fetch = self._plan(kid, alg, url)
            if not fetch:
                return keys
            started = time.monotonic()
            try:
                document = fetch_json_sync(url, timeout_s=self.timeout_s, max_bytes=self.max_bytes)
            except KeySetUnavailable as exc:
                return self._failed(url, keys, started, exc.reason)
            return self._fetched_now(kid, alg, url, document, keys, started)

    def _plan(self, kid: str | None, alg: str, url: str) -> tuple[list[VerificationKey], bool]:
        """The keys we have, and whether to fetch the JWKS now (under the lock)."""
        keys = self.matching(kid, alg)
        fresh = self._fresh(url)
        if keys and fresh:
            return keys, False  # another request refreshed it meanwhile
        now = time.monotonic()
        if now < self._retry_after or (fresh and now < self._next_kid_refresh):
            if self._fetched_url is None and not keys:
                raise KeySetUnavailable("the signing keys (JWKS) are unreachable")
            return keys, False  # rate limited: an unknown kid stays unknown for now
        if fresh:  # the keys are fresh, but not this kid: the issuer may have rotated
            self._next_kid_refresh = now + self.min_refresh_s
        return keys, True

    def _failed(
        self, url: str, keys: list[VerificationKey], started: float, reason: str
    ) -> list[VerificationKey]:
        self._retry_after = started + self.failure_backoff_s
        log.warning("could not refresh the JWKS at %s: %s", url, reason)
        if keys:
            return keys  # keep serving the keys fetched before
        raise KeySetUnavailable("the signing keys (JWKS) are unreachable")

    def _fetched_now(
        self,
        kid: str | None,
        alg: str,
        url: str,
        document: Mapping[str, Any],
        keys: list[VerificationKey],
        started: float,
    ) -> list[VerificationKey]:
        try:
            fetched = keys_from_jwks(document, self.algorithms)
        except ValueError as exc:
            return self._failed(url, keys, started, str(exc))
        self._fetched, self._fetched_url = fetched, url
        self._fetched_at = started
        self.fetches += 1
        log.debug("fetched %d signing keys from %s", len(fetched), url)
        keys = self.matching(kid, alg)
        if kid is not None and not keys:
            # The JWKS as of now does not have it: asking again at once would not help.
            self._next_kid_refresh = started + self.min_refresh_s
        return keys
