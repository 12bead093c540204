"""Who may call the worker function: it runs agents and sends webhooks for whoever posts a job.

Three modes (A2A_WORKER_AUTH), and no default that lets everyone in:

- ``oidc``: the request carries a Google-signed ID token (`Authorization: Bearer`), as Pub/Sub
  push subscriptions and Cloud Tasks send when given a service account. The token must verify
  against Google's keys, be issued by accounts.google.com for A2A_WORKER_OIDC_AUDIENCE, and
  name one of A2A_WORKER_OIDC_EMAILS (verified email). Cloud Run can check the same at its
  door (`--no-allow-unauthenticated` and the invoker role for those accounts): do both.
- ``secret``: the request carries A2A_WORKER_SECRET in the X-A2A-Worker-Secret header (Cloud
  Tasks, set by `CloudTasksQueue`) or in the `token` query parameter (a Pub/Sub push endpoint
  URL cannot add headers: ``https://worker.../?token=...``). Compared in constant time.
- ``none``: no check. Only for a worker that nothing outside can reach, and for emulators.

Unset, the mode follows what is configured: a secret means ``secret``, an audience ``oidc``;
with neither the worker refuses to start.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from urllib.parse import parse_qs

import msgspec

from a2a_serverless.auth.base import AuthError
from a2a_serverless.exceptions import ConfigurationError

from .config import GcpSettings

GOOGLE_ISSUERS = ("https://accounts.google.com", "accounts.google.com")


class Denied(msgspec.Struct, frozen=True):
    status: int
    reason: str


class WorkerAuth:
    def __init__(self, config: GcpSettings) -> None:
        mode = config.worker_auth
        if mode is None:
            if config.worker_secret:
                mode = "secret"
            elif config.worker_oidc_audience:
                mode = "oidc"
            else:
                raise ConfigurationError(
                    "the worker function needs to know who may call it: set A2A_WORKER_AUTH="
                    "oidc with A2A_WORKER_OIDC_AUDIENCE and A2A_WORKER_OIDC_EMAILS (Pub/Sub and "
                    "Cloud Tasks send Google ID tokens), or A2A_WORKER_SECRET, or "
                    "A2A_WORKER_AUTH=none if nothing else can reach it"
                )
        self.mode = mode
        self.secret = config.worker_secret
        self.emails = frozenset(e.lower() for e in config.worker_oidc_emails)
        if mode == "secret" and not self.secret:
            raise ConfigurationError("A2A_WORKER_AUTH=secret needs A2A_WORKER_SECRET")
        if mode == "oidc":
            if not config.worker_oidc_audience:
                raise ConfigurationError("A2A_WORKER_AUTH=oidc needs A2A_WORKER_OIDC_AUDIENCE")
            if not self.emails:
                raise ConfigurationError(
                    "A2A_WORKER_AUTH=oidc needs A2A_WORKER_OIDC_EMAILS: the service accounts "
                    "of the push subscription and the Cloud Tasks queue"
                )
            from a2a_serverless.auth.bearer import BearerJWTAuthenticator

            self.verifier: BearerJWTAuthenticator | None = BearerJWTAuthenticator(
                "google-oidc",
                issuer=list(GOOGLE_ISSUERS),
                audience=config.worker_oidc_audience,
                jwks_url=config.worker_oidc_jwks_url,
                required_claims=("exp", "iat", "email"),
            )
        else:
            self.verifier = None

    async def check(self, headers: Mapping[str, str], query_string: str) -> Denied | None:
        """None if the caller may post jobs; else why not (header names lower-case)."""
        if self.mode == "none":
            return None
        if self.mode == "secret":
            return self._check_secret(headers, query_string)
        return await self._check_oidc(headers)

    def _check_secret(self, headers: Mapping[str, str], query_string: str) -> Denied | None:
        assert self.secret is not None
        given = headers.get(SECRET_HEADER_LOWER)
        if given is None:
            tokens = parse_qs(query_string).get("token")
            given = tokens[0] if tokens else None
        if given is None:
            return Denied(401, "no worker secret in the request")
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            return Denied(403, "wrong worker secret")
        return None

    async def _check_oidc(self, headers: Mapping[str, str]) -> Denied | None:
        from a2a_serverless.auth.bearer import bearer_token

        assert self.verifier is not None
        token = bearer_token(headers)
        if token is None:
            return Denied(401, "no bearer ID token in the request")
        try:
            claims = await self.verifier.verify(token)
        except AuthError as error:
            # 503 when Google's keys cannot be fetched: the queue retries later.
            return Denied(error.status, f"ID token refused: {error.reason}")
        email = str(claims.get("email", "")).lower()
        if claims.get("email_verified") is not True or email not in self.emails:
            return Denied(403, f"{email or 'the caller'} may not call the worker")
        return None


SECRET_HEADER_LOWER = "x-a2a-worker-secret"
