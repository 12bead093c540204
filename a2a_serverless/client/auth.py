"""Outbound credentials: what the client adds to each request so the agent lets it in.

A `Credential` authorizes one outgoing request (headers, URL, body as they will be sent):

- `ApiKey`: a key in a header, a query parameter or a cookie (the card's apiKey scheme says
  which and its name);
- `BearerToken`: `Authorization: Bearer <token>` (an http bearer, oauth2 or openIdConnect
  scheme, with a token the caller has);
- `OAuth2ClientCredentials`: a token from the token endpoint (RFC 6749 §4.4, client
  authenticated with HTTP Basic), kept until shortly before it expires; the endpoint is the
  caller's (`oauth_token_url`) or the card's clientCredentials flow's;
- `GoogleIdToken`: a Google-signed ID token for an audience (Cloud Run / Cloud Functions
  invoker IAM), from google-auth's application default credentials (imported on first use);
- `AwsSigV4`: the request signed with botocore's `SigV4Auth` and the default credential chain
  (IAM-authorised API Gateway `execute-api`, Lambda function URLs `lambda`, AgentCore
  `bedrock-agentcore`), botocore imported on first use.

`credential_for(card, options)` picks one from the card's security schemes and what the caller
supplied (`CredentialOptions`, from options or the environment; each secret may be a reference,
`secretrefs.py`). The token URL of a card's OAuth2 flow comes from data and is SSRF-checked.
The first of these supplied is used: SigV4, a Google ID token, an API key, OAuth2 client
credentials, a bearer token. The environment (`CredentialOptions.from_env`):

- A2A_CLIENT_API_KEY: an API key, sent where the card's apiKey scheme says (X-API-Key header
  when it declares none)
- A2A_CLIENT_BEARER_TOKEN: a bearer token, sent as `Authorization: Bearer`
- A2A_CLIENT_OAUTH_CLIENT_ID: OAuth2 client credentials: the client id
- A2A_CLIENT_OAUTH_CLIENT_SECRET: the client secret (with the id)
- A2A_CLIENT_OAUTH_TOKEN_URL (the card's clientCredentials flow's): the token endpoint
- A2A_CLIENT_OAUTH_SCOPES: the scopes asked for, space-separated
- A2A_CLIENT_GOOGLE_AUDIENCE: send a Google ID token for this audience (the called service's
  URL), from application default credentials
- A2A_CLIENT_SIGV4_SERVICE: sign requests with AWS SigV4 for this service (`execute-api`,
  `lambda`, `bedrock-agentcore`), with the default credential chain
- A2A_CLIENT_SIGV4_REGION (the AWS configuration's): the SigV4 region
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..config import register_environment_names
from ..secretrefs import resolve_secret
from .errors import CardError, ClientError, HTTPStatusError
from .transport import ClientLimits, fetch

# A token is renewed this long before its stated expiry, so none expires in flight.
EXPIRY_MARGIN_S = 60.0


@dataclass(slots=True)
class OutgoingRequest:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes


class Credential(Protocol):
    async def apply(self, request: OutgoingRequest) -> None:
        """Add the credential to `request` (its headers or URL)."""
        ...


@dataclass(frozen=True, slots=True)
class ApiKey:
    key: str
    name: str = "X-API-Key"
    location: str = "header"  # "header", "query" or "cookie"

    async def apply(self, request: OutgoingRequest) -> None:
        if self.location == "query":
            parts = urlsplit(request.url)
            query = [*parse_qsl(parts.query, keep_blank_values=True), (self.name, self.key)]
            request.url = urlunsplit(parts._replace(query=urlencode(query)))
        elif self.location == "cookie":
            cookie = f"{self.name}={self.key}"
            existing = request.headers.get("Cookie")
            request.headers["Cookie"] = f"{existing}; {cookie}" if existing else cookie
        else:
            request.headers[self.name] = self.key


@dataclass(frozen=True, slots=True)
class BearerToken:
    token: str

    async def apply(self, request: OutgoingRequest) -> None:
        request.headers["Authorization"] = f"Bearer {self.token}"


@dataclass(slots=True)
class _Token:
    value: str = ""
    renew_at: float = 0.0


@dataclass(slots=True)
class OAuth2ClientCredentials:
    token_url: str
    client_id: str
    client_secret: str
    scopes: tuple[str, ...] = ()
    limits: ClientLimits = field(default_factory=ClientLimits)
    _token: _Token = field(default_factory=_Token)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def apply(self, request: OutgoingRequest) -> None:
        request.headers["Authorization"] = f"Bearer {await self.token()}"

    async def token(self) -> str:
        """The cached access token, fetched again once it is about to expire."""
        async with self._lock:
            if self._token.value and time.monotonic() < self._token.renew_at:
                return self._token.value
            form: dict[str, str] = {"grant_type": "client_credentials"}
            if self.scopes:
                form["scope"] = " ".join(self.scopes)
            basic = base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
            answer = await fetch(
                "POST",
                self.token_url,
                headers={
                    "Authorization": f"Basic {basic}",
                    "Content-Type": "application/x-www-form-urlencoded",
                    "Accept": "application/json",
                },
                content=urlencode(form).encode(),
                limits=self.limits,
                max_bytes=64 * 1024,
                limit_name="token response limit",
            )
            if answer.status != 200:
                raise HTTPStatusError(answer.status, f"the token endpoint {self.token_url} refused")
            try:
                body = answer.json()
                value = body["access_token"]
                expires_in = float(body.get("expires_in") or 300)
            except (ValueError, KeyError, TypeError):
                raise ClientError(
                    f"the token endpoint {self.token_url} answered no access_token"
                ) from None
            if not isinstance(value, str) or not value:
                raise ClientError(f"the token endpoint {self.token_url} answered no access_token")
            self._token = _Token(
                value, time.monotonic() + max(expires_in - EXPIRY_MARGIN_S, expires_in / 2)
            )
            return value


@dataclass(slots=True)
class GoogleIdToken:
    """An ID token for `audience` (the service's URL), from application default credentials:
    the metadata server on Google Cloud, a service account key file elsewhere."""

    audience: str
    _token: _Token = field(default_factory=_Token)

    async def apply(self, request: OutgoingRequest) -> None:
        if not self._token.value or time.monotonic() >= self._token.renew_at:
            value = await asyncio.to_thread(self._fetch)
            self._token = _Token(value, time.monotonic() + _jwt_lifetime(value) - EXPIRY_MARGIN_S)
        request.headers["Authorization"] = f"Bearer {self._token.value}"

    def _fetch(self) -> str:
        try:
            import google.auth.transport.requests
            import google.oauth2.id_token
        except ImportError:
            raise ClientError(
                "Google ID tokens need google-auth: pip install google-auth"
            ) from None
        try:
            token = google.oauth2.id_token.fetch_id_token(  # type: ignore[no-untyped-call]
                google.auth.transport.requests.Request(), self.audience
            )
        except Exception as exc:
            raise ClientError(
                f"could not get a Google ID token: {type(exc).__name__}: {exc}"
            ) from None
        return str(token)


def _jwt_lifetime(token: str) -> float:
    """Seconds until a JWT's `exp` (read, not verified: it is our own token), 300 if unknown."""
    import json

    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return max(float(claims["exp"]) - time.time(), 0.0)
    except (IndexError, ValueError, KeyError, TypeError):
        return 300.0


@dataclass(slots=True)
class AwsSigV4:
    service: str = "execute-api"
    region: str | None = None

    async def apply(self, request: OutgoingRequest) -> None:
        try:
            from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
            from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]
            from botocore.session import get_session  # type: ignore[import-untyped]
        except ImportError:
            raise ClientError("AWS SigV4 needs botocore: pip install botocore") from None
        session = get_session()
        credentials = session.get_credentials()
        if credentials is None:
            raise ClientError("AWS SigV4: no AWS credentials found (the default chain is empty)")
        region = self.region or session.get_config_variable("region") or "us-east-1"
        signed = AWSRequest(
            method=request.method, url=request.url, data=request.body, headers=request.headers
        )
        SigV4Auth(credentials.get_frozen_credentials(), self.service, region).add_auth(signed)
        request.headers = dict(signed.headers.items())


@dataclass(frozen=True, slots=True)
class CredentialOptions:
    """What the caller supplied; each secret may be a reference (`secretrefs.py`)."""

    api_key: str | None = None
    bearer_token: str | None = None
    oauth_client_id: str | None = None
    oauth_client_secret: str | None = None
    oauth_scopes: tuple[str, ...] = ()
    # The token endpoint, when the caller names it (else the card's clientCredentials flow's).
    oauth_token_url: str | None = None
    google_audience: str | None = None
    sigv4_service: str | None = None
    sigv4_region: str | None = None

    ENV: ClassVar[dict[str, str]] = {
        "api_key": "A2A_CLIENT_API_KEY",
        "bearer_token": "A2A_CLIENT_BEARER_TOKEN",
        "oauth_client_id": "A2A_CLIENT_OAUTH_CLIENT_ID",
        "oauth_client_secret": "A2A_CLIENT_OAUTH_CLIENT_SECRET",
        "oauth_token_url": "A2A_CLIENT_OAUTH_TOKEN_URL",
        "google_audience": "A2A_CLIENT_GOOGLE_AUDIENCE",
        "sigv4_service": "A2A_CLIENT_SIGV4_SERVICE",
        "sigv4_region": "A2A_CLIENT_SIGV4_REGION",
    }

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **given: Any) -> CredentialOptions:
        """The options given, the rest from the A2A_CLIENT_* environment variables."""
        env = os.environ if environ is None else environ
        values = {
            name: given.get(name) or env.get(variable) or None for name, variable in cls.ENV.items()
        }
        scopes = given.get("oauth_scopes") or tuple(env.get("A2A_CLIENT_OAUTH_SCOPES", "").split())
        return cls(**values, oauth_scopes=tuple(scopes))

    def any(self) -> bool:
        return any(
            (
                self.api_key,
                self.bearer_token,
                self.oauth_client_id,
                self.google_audience,
                self.sigv4_service,
            )
        )


# Read by the client, not by Settings: an agent that calls others may have them set.
register_environment_names(*CredentialOptions.ENV.values(), "A2A_CLIENT_OAUTH_SCOPES")


def _schemes(card: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The card's security schemes by name, each read in 0.3's form or 1.0's oneof form."""
    found: dict[str, dict[str, Any]] = {}
    for name, scheme in (card.get("securitySchemes") or {}).items():
        if not isinstance(scheme, dict):
            continue
        if "type" in scheme:
            found[name] = scheme
            continue
        for v1_key, kind in (
            ("apiKeySecurityScheme", "apiKey"),
            ("httpAuthSecurityScheme", "http"),
            ("oauth2SecurityScheme", "oauth2"),
            ("openIdConnectSecurityScheme", "openIdConnect"),
        ):
            body = scheme.get(v1_key)
            if isinstance(body, dict):
                found[name] = {"type": kind, "in": body.get("location"), **body}
    return found


async def credential_for(
    card: dict[str, Any],
    options: CredentialOptions,
    *,
    configured_url: str,
    allow_private: bool = False,
    limits: ClientLimits | None = None,
) -> Credential | None:
    """The credential to send to the agent of `card`, or None when none was supplied."""
    if options.sigv4_service:
        return AwsSigV4(options.sigv4_service, options.sigv4_region)
    if options.google_audience:
        return GoogleIdToken(options.google_audience)
    schemes = _schemes(card)
    if options.api_key:
        key = resolve_secret(options.api_key)
        for scheme in schemes.values():
            if scheme.get("type") == "apiKey" and scheme.get("name"):
                return ApiKey(key, scheme["name"], scheme.get("in") or "header")
        return ApiKey(key)
    if options.oauth_client_id and options.oauth_client_secret:
        if options.oauth_token_url:
            return OAuth2ClientCredentials(
                options.oauth_token_url,
                resolve_secret(options.oauth_client_id),
                resolve_secret(options.oauth_client_secret),
                options.oauth_scopes,
                limits or ClientLimits(),
            )
        for scheme in schemes.values():
            flow = (scheme.get("flows") or {}).get("clientCredentials")
            if scheme.get("type") == "oauth2" and isinstance(flow, dict):
                token_url = flow.get("tokenUrl")
                if not isinstance(token_url, str):
                    continue
                from .discovery import check_data_url

                await check_data_url(token_url, configured_url, allow_private=allow_private)
                return OAuth2ClientCredentials(
                    token_url,
                    resolve_secret(options.oauth_client_id),
                    resolve_secret(options.oauth_client_secret),
                    options.oauth_scopes,
                    limits or ClientLimits(),
                )
        raise CardError(
            "OAuth2 client credentials given, but the card has no clientCredentials flow"
        )
    if options.bearer_token:
        return BearerToken(resolve_secret(options.bearer_token))
    return None


__all__ = [
    "ApiKey",
    "AwsSigV4",
    "BearerToken",
    "Credential",
    "CredentialOptions",
    "GoogleIdToken",
    "OAuth2ClientCredentials",
    "OutgoingRequest",
    "credential_for",
]
