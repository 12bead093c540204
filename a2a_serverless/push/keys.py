"""The agent's webhook signing keys: loaded from configuration, published as a JWKS.

`Settings.push_signing_keys` (env `A2A_PUSH_SIGNING_KEYS`, typically filled from a secret) is a
JSON array of private JWKs, each with a "kid", an "alg" (ES256: EC P-256, or RS256: RSA) and an
"iat" (when it was made, seconds since the epoch); or `file:/path/keys.json` for a secret mounted
as a file. The newest key (largest "iat") signs; every key is published at
/.well-known/jwks.json, so receivers keep verifying notifications signed with an older key while
a rotation rolls out. To rotate: add a new key (`a2a-serverless keys generate --add-to
old.json`), deploy, and drop the old key once its notifications are past their lifetime.

Without keys, dev mode signs with an ephemeral key made at start-up (with a warning: receivers
must fetch the JWKS again after every restart); production has no push notifications at all
(`push_available(settings)` is False: the card says `pushNotifications: false` and the push
methods answer -32003).

Reading the configuration and publishing the public keys need no cryptography import; the key
material is only loaded when the first notification is signed (or a key is generated). Signing
needs the `crypto` extra (`pip install 'a2a-serverless[crypto]'`): keys configured without it
fail at start-up with `MissingExtra`; dev mode without it has no push notifications.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Settings
from ..exceptions import ConfigurationError
from ..extras import MissingExtra, crypto_available, require_crypto
from ..secretrefs import SecretUnavailable, read_file_reference

log = logging.getLogger("a2a_serverless.push")

ALGORITHMS = {"ES256": "EC", "RS256": "RSA"}
# Members of a private JWK that must never be published.
PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})
# Members of a public JWK that the JWKS carries.
PUBLIC_MEMBERS = ("kty", "crv", "x", "y", "n", "e", "kid", "alg", "use")


class PushNotConfigured(ConfigurationError, RuntimeError):
    """Push notifications cannot be offered: no signing keys outside dev mode, or the
    libraries push needs are not installed. The runtime turns push off (and says why).

    Formerly `PushUnavailable`, still importable under that name (deprecated: it is no outage,
    unlike the tree's `UnavailableError`s)."""


# Deprecated alias of PushNotConfigured.
PushUnavailable = PushNotConfigured


@dataclass(frozen=True, slots=True)
class SigningKey:
    kid: str
    alg: str
    iat: float
    jwk: Mapping[str, Any]

    def public_jwk(self) -> dict[str, Any]:
        public = {m: self.jwk[m] for m in PUBLIC_MEMBERS if m in self.jwk}
        public.update(kid=self.kid, alg=self.alg, use="sig")
        return public


def _check_jwk(jwk: Any, index: int) -> SigningKey:
    where = f"A2A_PUSH_SIGNING_KEYS[{index}]"
    if not isinstance(jwk, dict):
        raise ValueError(f"{where} is not a JSON object (a private JWK)")
    kid, alg, iat = jwk.get("kid"), jwk.get("alg"), jwk.get("iat")
    if not isinstance(kid, str) or not kid:
        raise ValueError(f'{where} has no "kid"')
    if alg not in ALGORITHMS:
        raise ValueError(f'{where} (kid {kid}): "alg" must be one of {", ".join(ALGORITHMS)}')
    if jwk.get("kty") != ALGORITHMS[alg]:
        raise ValueError(f'{where} (kid {kid}): an {alg} key must have "kty": {ALGORITHMS[alg]}')
    if alg == "ES256" and jwk.get("crv") != "P-256":
        raise ValueError(f"{where} (kid {kid}): an ES256 key must be on curve P-256")
    if not isinstance(iat, int | float) or isinstance(iat, bool):
        raise ValueError(f'{where} (kid {kid}) has no numeric "iat" (when it was made)')
    if "d" not in jwk:
        raise ValueError(f"{where} (kid {kid}) is a public key: the agent needs the private key")
    return SigningKey(kid=kid, alg=alg, iat=float(iat), jwk=dict(jwk))


def parse_signing_keys(text: str) -> list[SigningKey]:
    """The keys of a JSON array of private JWKs (ValueError if it is not one)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"A2A_PUSH_SIGNING_KEYS is not valid JSON: {exc}") from None
    if isinstance(data, dict) and "keys" in data:
        data = data["keys"]  # a JWKS document is fine too
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data:
        raise ValueError("A2A_PUSH_SIGNING_KEYS must be a non-empty JSON array of private JWKs")
    keys = [_check_jwk(jwk, i) for i, jwk in enumerate(data)]
    kids = [k.kid for k in keys]
    if len(set(kids)) != len(kids):
        raise ValueError('A2A_PUSH_SIGNING_KEYS has two keys with the same "kid"')
    return keys


def configured_keys(settings: Settings) -> str | None:
    """The JSON of the configured keys (read from the file a `file:` value names), or None."""
    value = (settings.push_signing_keys or "").strip()
    if not value:
        return None
    if value.startswith("file:"):
        try:
            return read_file_reference(value)
        except SecretUnavailable as exc:
            raise ValueError(f"A2A_PUSH_SIGNING_KEYS: {exc}") from None
    return value


def push_available(settings: Settings) -> bool:
    """Can this deployment send push notifications? (Keys configured, or dev mode with the
    `crypto` extra for its ephemeral key.)

    Raises ValueError when keys are configured but malformed, and `MissingExtra` when they are
    configured without the `crypto` extra, so a bad deployment fails at start-up.
    """
    text = configured_keys(settings)
    if text is not None:
        parse_signing_keys(text)
        require_crypto("signing push notifications (A2A_PUSH_SIGNING_KEYS)")
        return True
    return settings.dev_mode and crypto_available()


class KeyRing:
    """The configured keys: the newest signs, all are published."""

    def __init__(self, keys: Sequence[SigningKey], *, ephemeral: bool = False) -> None:
        if not keys:
            raise ValueError("a KeyRing needs at least one key")
        # Newest first; among equal "iat", the one listed last wins.
        indexed = sorted(enumerate(keys), key=lambda pair: (pair[1].iat, pair[0]), reverse=True)
        self.keys = [key for _, key in indexed]
        self.ephemeral = ephemeral
        self._loaded: dict[str, Any] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> KeyRing:
        text = configured_keys(settings)
        if text is not None:
            return cls(parse_signing_keys(text))
        if not settings.dev_mode:
            raise PushNotConfigured(
                "push notifications need signing keys outside dev mode: set "
                "A2A_PUSH_SIGNING_KEYS to the output of `a2a-serverless keys generate`"
            )
        log.warning(
            "push notifications are signed with an ephemeral key (dev mode, no "
            "A2A_PUSH_SIGNING_KEYS): receivers must fetch the JWKS again after every restart"
        )
        return cls([_check_jwk(generate_key("ES256"), 0)], ephemeral=True)

    @property
    def current(self) -> SigningKey:
        return self.keys[0]

    def jwks(self) -> dict[str, Any]:
        """The public JWKS document (for GET /.well-known/jwks.json), newest key first."""
        return {"keys": [key.public_jwk() for key in self.keys]}

    def private_key(self, key: SigningKey) -> Any:
        """The `cryptography` private key object of `key` (loaded once)."""
        loaded = self._loaded.get(key.kid)
        if loaded is None:
            try:
                from jwt.algorithms import ECAlgorithm, RSAAlgorithm
            except ImportError:
                # PyJWT defines them only when cryptography imports (a missing or broken one).
                raise MissingExtra("signing push notifications", "crypto", "cryptography") from None

            text = json.dumps(dict(key.jwk))
            try:
                if key.alg == "ES256":
                    loaded = ECAlgorithm.from_jwk(text)
                else:
                    loaded = RSAAlgorithm.from_jwk(text)
            except Exception as exc:
                raise ValueError(f"signing key {key.kid} cannot be loaded: {exc}") from None
            self._loaded[key.kid] = loaded
        return loaded

    def validate(self) -> None:
        """Load every key now (ValueError if one is unusable) instead of at the first send."""
        for key in self.keys:
            self.private_key(key)


# --- the dev server's key --------------------------------------------------------------------

# Beside the dev server's SQLite file: `<store file>` + this.
DEV_KEY_SUFFIX = ".dev-signing-key.json"


def dev_key_file(settings: Settings) -> Path | None:
    """Where the dev server keeps its signing key: beside its SQLite store file (None for any
    other store, where dev mode signs with an ephemeral key as before)."""
    from ..store import sqlite_path

    path = sqlite_path(settings.store_url)
    if path is None or path == ":memory:":
        return None
    return Path(path + DEV_KEY_SUFFIX)


def with_dev_key(settings: Settings) -> Settings:
    """The dev server's settings, signing push notifications with the dev key kept beside its
    SQLite store (made on first use, readable by its owner only) when no keys are configured.

    So the key outlives a restart (receivers keep the JWKS they fetched), and `a2a-serverless
    dead-letters redrive` on the same store file signs with the key the server used. A store
    that is no file, or a missing `crypto` extra, leaves the settings as they are."""
    from dataclasses import replace

    if configured_keys(settings) is not None or not settings.dev_mode or not crypto_available():
        return settings
    path = dev_key_file(settings)
    if path is None or not path.parent.is_dir():
        return settings
    if not path.exists():
        # Written whole under another name, then linked: two processes starting at once (a
        # --reload parent and its child) keep one key, and neither reads a half-written file.
        scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w") as out:
                out.write(generate_keys_json("ES256") + "\n")
            os.link(scratch, path)
            log.info("made the dev server's push signing key: %s", path)
        except FileExistsError:
            pass
        finally:
            scratch.unlink(missing_ok=True)
    return replace(settings, push_signing_keys=f"file:{path}")


# --- making keys -------------------------------------------------------------------------------


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def thumbprint(jwk: Mapping[str, Any]) -> str:
    """The RFC 7638 SHA-256 thumbprint of a (public part of a) JWK: a stable key id."""
    members = ("crv", "kty", "x", "y") if jwk["kty"] == "EC" else ("e", "kty", "n")
    canonical = json.dumps({m: jwk[m] for m in members}, separators=(",", ":"), sort_keys=True)
    return _b64url(hashlib.sha256(canonical.encode()).digest())


def generate_key(alg: str = "ES256") -> dict[str, Any]:
    """A new private JWK for signing webhooks: {"kty", ..., "kid", "alg", "use", "iat"}."""
    require_crypto("generating a push signing key")
    from cryptography.hazmat.primitives.asymmetric import ec, rsa
    from jwt.algorithms import ECAlgorithm, RSAAlgorithm

    jwk: dict[str, Any]
    if alg == "ES256":
        jwk = dict(ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()), as_dict=True))
    elif alg == "RS256":
        key = rsa.generate_private_key(public_exponent=65537, key_size=3072)
        jwk = dict(RSAAlgorithm.to_jwk(key, as_dict=True))
    else:
        raise ValueError(f"unsupported algorithm {alg!r}: use ES256 or RS256")
    jwk.update(kid=thumbprint(jwk), alg=alg, use="sig", iat=int(time.time()))
    return jwk


def generate_keys_json(alg: str = "ES256", existing: str | None = None) -> str:
    """The JSON for A2A_PUSH_SIGNING_KEYS: `existing` keys (if any) plus a new, newest one."""
    keys: list[Any] = []
    if existing and existing.strip():
        parse_signing_keys(existing)  # refuse to extend something malformed
        data = json.loads(existing)
        if isinstance(data, dict):
            data = data.get("keys", [data])
        keys = list(data)
    new = generate_key(alg)
    newest = max((float(k["iat"]) for k in keys), default=0.0)
    if new["iat"] <= newest:
        new["iat"] = int(newest) + 1  # the new key must be the one that signs
    keys.append(new)
    return json.dumps(keys, indent=2)
