"""For those who receive our webhooks: check that a notification is genuine, fresh and new.

The receiving side of push notifications, for the client's webhook server: it needs none of the
agent's server side (`a2a_serverless.push` is the sending side, and re-exports these names).

    from a2a_serverless.webhook_receiver import (
        KeySetUnavailable, NotificationRejected, WebhookVerifier,
    )

    verifier = WebhookVerifier(
        "https://agent.example.com/.well-known/jwks.json",
        audience="https://me.example.com/a2a/webhook",   # the URL given in the push config
        token="the-token-given-in-the-push-config",      # see "What the token is for"
    )

    try:
        notification = await verifier.verify(request.headers, await request.body())
    except NotificationRejected as rejected:   # answer 401/400: the agent will not retry
        ...
    except KeySetUnavailable:                   # answer 503: the agent will retry later
        ...
    if already_seen(notification.notification_id):   # at-least-once: de-duplicate on this
        ...

`verify` checks, in this order: the JWT (from X-A2A-Notification-JWT, else `Authorization:
Bearer`) is signed with an allowed asymmetric algorithm (ES256, RS256; never "none" or HS*) by a
key of the agent's JWKS (fetched, cached, fetched again when an unknown key id shows up — that
is how a key rotation reaches receivers); `aud` is our URL, `iss` the agent (if `issuer` is
given: the agent's own URL, A2A_PUBLIC_URL with the prefix it is mounted under, its JWKS at
`{iss}/.well-known/jwks.json`), `exp` not passed, `iat` at most `max_age_s` (5 min) old; the
body's SHA-256 is the `bodySha256` claim; the task id and notification id match; the
X-A2A-Notification-Token is the expected one; and — last, so a rejected request never burns
one — the `jti` was not seen before.
`notification.task` is the Task as sent: v0.3's JSON for a config set over A2A 0.3; for one set
over A2A 1.0 the body is a StreamResponse (`{"task": ...}`, application/a2a+json) and `task` is
the Task inside it, in v1.0's shapes.

The agent's keys are read, fetched and cached by `a2a_serverless.jwks`, with the rules the agent
applies to bearer tokens: only public signing keys of the JWT's algorithm's type (RSA of 2048
bits or more, EC on the algorithm's curve), the kid naming one of them; a JWKS that cannot be
fetched (or fetched again, with no key cached) raises `KeySetUnavailable`.

What the token is for: the signature proves the agent sent the notification to this URL, not
that the push config behind it is yours. Anyone may set a push config naming your webhook URL on
their own task, and the agent then sends genuine, signed notifications about *their* task to
you. Without `token`, the verifier accepts them. Give each push config you set a secret random
token (and check it here, or per call with `verify(..., token=...)`) when the receiver must act
only on your own tasks; checking `notification.task_id` against the tasks you started does the
same.

`verify_sync` does the same for synchronous servers. Needs the `crypto` extra
(`pip install 'a2a-serverless[crypto]'`: a `WebhookVerifier` is not made without it).
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import json
import threading
import time
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .exceptions import A2AServerlessError
from .extras import require_crypto
from .jwks import KeySet, KeySetUnavailable, VerificationKey, check_algorithms, keys_from_jwks

__all__ = [
    "DEFAULT_ALGORITHMS",
    "BadSignature",
    "BodyMismatch",
    "ClaimMismatch",
    "ExpiredNotification",
    "KeySetUnavailable",
    "MalformedNotification",
    "MemoryReplayCache",
    "MissingSignature",
    "NotificationRejected",
    "ReplayCache",
    "ReplayedNotification",
    "TokenMismatch",
    "UnknownKey",
    "VerifiedNotification",
    "WebhookVerifier",
]

DEFAULT_ALGORITHMS = ("ES256", "RS256")


class NotificationRejected(A2AServerlessError):
    """The notification failed verification; `reason` is a short code, the message says why."""

    reason = "rejected"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MissingSignature(NotificationRejected):
    reason = "missing_jwt"


class MalformedNotification(NotificationRejected):
    reason = "malformed"


class UnknownKey(NotificationRejected):
    reason = "unknown_key"


class BadSignature(NotificationRejected):
    reason = "bad_signature"


class ClaimMismatch(NotificationRejected):
    """aud, iss, taskId or notificationId is not what it should be."""

    reason = "claim_mismatch"


class ExpiredNotification(NotificationRejected):
    """exp has passed, or iat is older than `max_age_s` (or in the future)."""

    reason = "expired"


class BodyMismatch(NotificationRejected):
    reason = "body_hash"


class TokenMismatch(NotificationRejected):
    reason = "token"


class ReplayedNotification(NotificationRejected):
    reason = "replay"


class ReplayCache(Protocol):
    """Remembers JWT ids until they expire. `add` is True when `jti` is new (and records it).

    May be async (return an awaitable) when used with `verify`, e.g. backed by Redis
    `SET jti 1 NX EXAT expires_at`.
    """

    def add(self, jti: str, expires_at: float) -> bool | Awaitable[bool]: ...


class MemoryReplayCache:
    """An in-process ReplayCache (one receiver process), bounded in size."""

    def __init__(self, max_entries: int = 100_000) -> None:
        self.max_entries = max_entries
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, jti: str, expires_at: float) -> bool:
        now = time.time()
        with self._lock:
            known = self._seen.get(jti)
            if known is not None and known > now:
                return False
            if len(self._seen) >= self.max_entries:
                self._seen = {k: v for k, v in self._seen.items() if v > now}
                while len(self._seen) >= self.max_entries:  # still full: forget the oldest
                    self._seen.pop(next(iter(self._seen)))
            self._seen[jti] = expires_at
            return True


@dataclass(frozen=True, slots=True)
class VerifiedNotification:
    task: dict[str, Any]
    task_id: str
    notification_id: str | None
    seq: int | None
    key_id: str
    claims: dict[str, Any] = field(repr=False)


class WebhookVerifier:
    def __init__(
        self,
        jwks_url: str | None = None,
        *,
        audience: str | Sequence[str],
        jwks: Mapping[str, Any] | None = None,
        issuer: str | None = None,
        token: str | None = None,
        max_age_s: float = 300.0,
        leeway_s: float = 30.0,
        algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
        replay_cache: ReplayCache | None = None,
        jwks_ttl_s: float = 3600.0,
        jwks_min_refresh_s: float = 10.0,
        jwks_timeout_s: float = 5.0,
        max_jwks_bytes: int = 256 * 1024,
    ) -> None:
        """Raises `MissingExtra` without the `crypto` extra (ES256/RS256 need cryptography)."""
        require_crypto("verifying push notifications (WebhookVerifier)")
        if jwks_url is None and jwks is None:
            raise ValueError("WebhookVerifier needs the agent's jwks_url or a jwks document")
        self.algorithms = check_algorithms(algorithms)
        self.jwks_url = jwks_url
        self.audience = [audience] if isinstance(audience, str) else list(audience)
        self.issuer = issuer
        self.token = token
        self.max_age_s = max_age_s
        self.leeway_s = leeway_s
        self.replay_cache: ReplayCache = replay_cache or MemoryReplayCache()
        self.jwks_ttl_s = jwks_ttl_s
        self.jwks_min_refresh_s = jwks_min_refresh_s
        self.jwks_timeout_s = jwks_timeout_s
        self.max_jwks_bytes = max_jwks_bytes
        # A jwks document given here is the whole truth: the URL is then never fetched.
        self._url = jwks_url if jwks is None else None
        self.keys = KeySet(
            [] if jwks is None else keys_from_jwks(jwks, self.algorithms),
            algorithms=self.algorithms,
            ttl_s=jwks_ttl_s,
            min_refresh_s=jwks_min_refresh_s,
            failure_backoff_s=jwks_min_refresh_s,
            timeout_s=jwks_timeout_s,
            max_bytes=max_jwks_bytes,
            kid_required=True,
        )

    # --- verifying ------------------------------------------------------------------------------

    async def verify(
        self, headers: Mapping[str, str], body: bytes, *, token: str | None = None
    ) -> VerifiedNotification:
        """Check one notification (NotificationRejected, KeySetUnavailable) and return it."""
        jwt_text, kid, alg = self._read_header(headers)
        key = self._key(kid, alg, await self.keys.candidates(kid, alg, self._url))
        claims, notification = self._check(headers, body, jwt_text, kid, alg, key, token)
        added = self.replay_cache.add(claims["jti"], self._remember_until(claims))
        if inspect.isawaitable(added):
            added = await added
        if not added:
            raise ReplayedNotification(f"JWT {claims['jti']} was already used")
        return notification

    def verify_sync(
        self, headers: Mapping[str, str], body: bytes, *, token: str | None = None
    ) -> VerifiedNotification:
        """`verify` for synchronous code (the replay cache must then be synchronous)."""
        jwt_text, kid, alg = self._read_header(headers)
        key = self._key(kid, alg, self.keys.candidates_sync(kid, alg, self._url))
        claims, notification = self._check(headers, body, jwt_text, kid, alg, key, token)
        added = self.replay_cache.add(claims["jti"], self._remember_until(claims))
        if inspect.isawaitable(added):
            raise TypeError("verify_sync needs a synchronous replay cache")
        if not added:
            raise ReplayedNotification(f"JWT {claims['jti']} was already used")
        return notification

    def _key(self, kid: str, alg: str, candidates: list[VerificationKey]) -> VerificationKey:
        """The key the JWT names, or why there is none (a key no longer published is no
        longer trusted)."""
        if candidates:
            return candidates[0]
        named = self.keys.named(kid)
        if named:
            raise BadSignature(f"key {kid!r} is not a key for {alg} (the JWT's algorithm)")
        raise UnknownKey(f"key {kid!r} is not in the agent's JWKS")

    def _remember_until(self, claims: Mapping[str, Any]) -> float:
        """How long a jti must be remembered: as long as its token would still be accepted."""
        return max(float(claims["exp"]) + self.leeway_s, float(claims["iat"]) + self.max_age_s)

    def _read_header(self, headers: Mapping[str, str]) -> tuple[str, str, str]:
        import jwt

        lowered = {k.lower(): v for k, v in headers.items()}
        text = lowered.get("x-a2a-notification-jwt")
        if not text:
            auth = lowered.get("authorization", "")
            scheme, _, value = auth.partition(" ")
            if scheme.lower() == "bearer":
                text = value.strip()
        if not text:
            raise MissingSignature("no JWT in X-A2A-Notification-JWT or Authorization: Bearer")
        try:
            header = jwt.get_unverified_header(text)
        except jwt.PyJWTError as exc:
            raise MalformedNotification(f"the JWT is malformed: {exc}") from None
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in self.algorithms:
            raise BadSignature(f"JWT algorithm {alg!r} is not allowed")
        if not isinstance(kid, str) or not kid:
            raise UnknownKey("the JWT names no key (kid)")
        return text, kid, alg

    def _check(
        self,
        headers: Mapping[str, str],
        body: bytes,
        jwt_text: str,
        kid: str,
        alg: str,
        key: VerificationKey,
        token: str | None,
    ) -> tuple[dict[str, Any], VerifiedNotification]:
        import jwt

        try:
            claims: dict[str, Any] = jwt.decode(
                jwt_text,
                key.key,
                algorithms=[alg],
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway_s,
                options={"require": ["iat", "exp", "jti", "aud"]},
            )
        except jwt.ExpiredSignatureError:
            raise ExpiredNotification("the JWT has expired") from None
        except jwt.InvalidAudienceError:
            raise ClaimMismatch("the JWT's audience (aud) is another receiver's URL") from None
        except jwt.InvalidIssuerError:
            raise ClaimMismatch("the JWT's issuer (iss) is not the expected agent") from None
        except jwt.InvalidSignatureError:
            raise BadSignature("the JWT signature does not verify") from None
        except jwt.ImmatureSignatureError:
            raise ExpiredNotification("the JWT is not valid yet (iat in the future)") from None
        except jwt.PyJWTError as exc:
            raise MalformedNotification(f"the JWT is not acceptable: {exc}") from None
        now = time.time()
        iat = float(claims["iat"])
        if now - iat > self.max_age_s:
            raise ExpiredNotification(
                f"the notification was signed {now - iat:.0f} s ago (limit {self.max_age_s:g} s)"
            )
        if iat - now > self.leeway_s:
            raise ExpiredNotification("the JWT was issued in the future")
        expected = claims.get("bodySha256") or claims.get("request_body_sha256")
        if not isinstance(expected, str):
            raise BodyMismatch("the JWT carries no body hash (bodySha256)")
        if not hmac.compare_digest(expected.lower(), hashlib.sha256(body).hexdigest()):
            raise BodyMismatch("the body is not the one that was signed")
        try:
            task = json.loads(body)
        except ValueError:
            raise MalformedNotification("the body is not JSON") from None
        if not isinstance(task, dict):
            raise MalformedNotification("the body is not a Task object")
        if "id" not in task and isinstance(task.get("task"), dict):
            # A2A v1.0: a StreamResponse carrying the Task (a config registered over v1.0).
            task = task["task"]
        task_id = claims.get("taskId")
        if task_id is None or task.get("id") != task_id:
            raise ClaimMismatch("the body's task id is not the signed taskId")
        lowered = {k.lower(): v for k, v in headers.items()}
        nid = claims.get("notificationId")
        header_nid = lowered.get("x-a2a-notification-id")
        if nid is not None and header_nid is not None and header_nid != nid:
            raise ClaimMismatch("X-A2A-Notification-Id is not the signed notificationId")
        expected_token = token if token is not None else self.token
        if expected_token is not None:
            given = lowered.get("x-a2a-notification-token")
            if given is None or not hmac.compare_digest(given.encode(), expected_token.encode()):
                raise TokenMismatch("X-A2A-Notification-Token is missing or wrong")
        seq = claims.get("seq")
        notification = VerifiedNotification(
            task=task,
            task_id=str(task_id),
            notification_id=nid or header_nid,
            seq=int(seq) if isinstance(seq, int) else None,
            key_id=kid,
            claims=claims,
        )
        return claims, notification
