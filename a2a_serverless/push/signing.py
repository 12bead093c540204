"""The JWT that proves a notification comes from this agent and was not altered.

Each delivery attempt carries a fresh token, signed with the newest key of the `KeyRing`
(header: alg, kid, typ JWT) with these claims:

    iss                  the agent: its own URL (A2A_PUBLIC_URL and the prefix it is mounted
                         under, publicurl.agent_url; its JWKS is at {iss}/.well-known/jwks.json),
                         or "a2a-serverless" without a public URL
    aud                  the webhook URL, exactly as configured
    iat, exp             issued now, valid for `push_jwt_ttl_s`
    jti                  unique per token (a retry is a new token with a new jti)
    taskId               the task the notification is about
    notificationId, seq  the notification's stable id and the task's event sequence number
                         (also in the X-A2A-Notification-Id / -Seq headers, signed here)
    bodySha256           lower-case hex SHA-256 of the exact request body
    request_body_sha256  the same value, under the name the A2A sample receivers check

Receivers de-duplicate on the notification id (stable across retries), not on `jti`.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from typing import Any

from .keys import KeyRing

DEFAULT_ISSUER = "a2a-serverless"


def body_sha256(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


class JwtSigner:
    def __init__(
        self,
        keys: KeyRing,
        *,
        issuer: str | Callable[[], str | None] | None = None,
        ttl_s: float = 300.0,
    ) -> None:
        """`issuer`: the `iss` claim, or what finds it on first use (a worker's mount prefix is
        found then: mountprefix.py); DEFAULT_ISSUER when there is none."""
        self.keys = keys
        self._issuer = issuer
        self.ttl_s = ttl_s

    @property
    def issuer(self) -> str:
        if callable(self._issuer):
            self._issuer = self._issuer()
        return self._issuer or DEFAULT_ISSUER

    def sign(
        self,
        body: bytes,
        audience: str,
        task_id: str,
        *,
        notification_id: str | None = None,
        seq: int | None = None,
        now: float | None = None,
    ) -> tuple[str, str]:
        """(the compact JWT, its jti) for one POST of `body` to `audience`."""
        import jwt

        key = self.keys.current
        issued = int(time.time() if now is None else now)
        jti = uuid.uuid4().hex
        digest = body_sha256(body)
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": audience,
            "iat": issued,
            "exp": issued + max(1, int(self.ttl_s)),
            "jti": jti,
            "taskId": task_id,
            "bodySha256": digest,
            "request_body_sha256": digest,
        }
        if notification_id is not None:
            claims["notificationId"] = notification_id
        if seq is not None:
            claims["seq"] = seq
        token = jwt.encode(
            claims,
            self.keys.private_key(key),
            algorithm=key.alg,
            headers={"kid": key.kid, "typ": "JWT"},
        )
        return token, jti
