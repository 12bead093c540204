"""Trusting an identity that the platform in front of the agent has already verified.

    UpstreamIdentityAuthenticator("gateway", sources=["aws"])          # API Gateway authorizer
    UpstreamIdentityAuthenticator("iap", sources=["gcp_iap"],
                                  declared=OpenIdConnectSecurityScheme(...))

!!! SECURITY: ONLY SAFE WHEN THE PLATFORM GUARANTEES THAT EVERY REQUEST PASSED THAT AUTHORIZER. !!!
This authenticator verifies nothing itself: it believes what the request says. That is right
when the platform made sure of it, and a hole wide open otherwise:

- "aws" reads the API Gateway event Mangum puts in `scope["aws.event"]` — REST API (v1)
  `requestContext.authorizer` (a Lambda authorizer's principalId and context, or Cognito user
  pool `claims`), HTTP API (v2) `requestContext.authorizer.jwt.claims` / `.lambda` / `.iam`, and
  IAM-signed v1 requests' `requestContext.identity.userArn`. Clients cannot forge the event, but
  the route MUST have the authorizer attached: a route without one carries no identity (and is
  refused as unauthenticated), while any other way into the function (a Function URL, a direct
  invoke) is outside this check.
- "gcp_iap" (`X-Goog-Authenticated-User-Id` / `-Email`, set by Identity-Aware Proxy),
  "gcp_endpoints" (`X-Endpoint-API-UserInfo`, ESPv2 / Cloud Endpoints) and "gcp_api_gateway"
  (`X-Apigateway-Api-Userinfo`, API Gateway) are plain HTTP headers: ANY client can send them.
  They are only trustworthy when the service cannot be reached except through that proxy —
  Cloud Run ingress "internal-and-cloud-load-balancing" with IAP on the load balancer, or
  ingress "internal" / IAM invoker granted only to the gateway's service account. For IAP,
  prefer verifying its signed `X-Goog-Iap-Jwt-Assertion` with a BearerJWTAuthenticator-like
  check where you can.
- "gcp_cloud_run" decodes, WITHOUT verifying, the JWT in `X-Serverless-Authorization` or
  `Authorization: Bearer` — Cloud Run's IAM check verified it before the request reached the
  container. Only when the service requires authentication (no `allUsers` invoker binding).

Subjects come from the first of `subject_claims` present; scopes from `scope_claim`, else
"scope"/"scp" (API Gateway v2 JWT authorizers: `jwt.scopes`). `declared` is what the card
tells clients to present to the platform (default: an `http` bearer scheme). The challenge is
`Bearer realm="a2a"` unless `challenge_scheme` says otherwise.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ..models import HTTPAuthSecurityScheme
from .base import (
    AuthError,
    Identity,
    InvalidCredentials,
    RequestView,
    SchemeModel,
    challenge,
    checked_subject,
    error_params,
    owner_key,
)
from .bearer import scopes_from_claims

log = logging.getLogger("a2a_serverless.auth")

SOURCES = ("aws", "gcp_iap", "gcp_endpoints", "gcp_api_gateway", "gcp_cloud_run")
DEFAULT_SUBJECT_CLAIMS = ("sub", "principalId", "userArn", "user_id", "email")
_IAP_PREFIX = "accounts.google.com:"
MAX_HEADER_LENGTH = 16 * 1024

Found = tuple[dict[str, Any], frozenset[str] | None]  # (claims, scopes if the source has them)


class UpstreamIdentityAuthenticator:
    def __init__(
        self,
        name: str = "upstream",
        *,
        sources: Sequence[str],
        declared: SchemeModel | None = None,
        subject_claims: Sequence[str] = DEFAULT_SUBJECT_CLAIMS,
        scope_claim: str | None = None,
        owner_prefix: str | None = None,
        realm: str = "a2a",
        challenge_scheme: str = "Bearer",
    ) -> None:
        unknown = [s for s in sources if s not in SOURCES]
        if unknown or not sources:
            raise ValueError(f"upstream identity sources are {', '.join(SOURCES)}; not {unknown}")
        self.name = name
        self.sources = tuple(sources)
        self.declared = declared
        self.subject_claims = tuple(subject_claims)
        self.scope_claim = scope_claim
        self.owner_prefix = owner_prefix or name
        self.realm = realm
        self.challenge_scheme = challenge_scheme

    def __repr__(self) -> str:
        return f"UpstreamIdentityAuthenticator({self.name!r}, sources={list(self.sources)!r})"

    def security_scheme(self) -> SchemeModel:
        if self.declared is not None:
            return self.declared
        return HTTPAuthSecurityScheme(
            scheme="bearer",
            description="Verified by the platform's authorizer in front of this agent",
        )

    def challenge(self, error: AuthError | None = None) -> str:
        params: dict[str, str | None] = {"realm": self.realm}
        params.update(error_params(error))
        return challenge(self.challenge_scheme, params)

    async def authenticate(self, request: RequestView) -> Identity | None:
        for source in self.sources:
            found = _READERS[source](request)
            if found is None:
                continue
            claims, scopes = found
            subject = next(
                (claims[c] for c in self.subject_claims if claims.get(c) not in (None, "")),
                None,
            )
            subject = checked_subject(subject, "subject")
            if scopes is None or self.scope_claim:
                scopes = scopes_from_claims(claims, self.scope_claim)
            return Identity(
                subject=subject,
                scheme=self.name,
                scopes=scopes,
                claims={**claims, "upstream_source": source},
                owner=owner_key(self.owner_prefix, subject),
            )
        return None


# --- AWS API Gateway ------------------------------------------------------------------------


def _aws(request: RequestView) -> Found | None:
    event = request.scope.get("aws.event")
    if not isinstance(event, Mapping):
        return None
    context = event.get("requestContext")
    if not isinstance(context, Mapping):
        return None
    authorizer = context.get("authorizer")
    if isinstance(authorizer, Mapping) and authorizer:
        jwt_part = authorizer.get("jwt")
        if isinstance(jwt_part, Mapping):  # HTTP API (v2) JWT authorizer
            claims = jwt_part.get("claims")
            scopes = jwt_part.get("scopes")
            return (
                dict(claims) if isinstance(claims, Mapping) else {},
                frozenset(s for s in scopes if isinstance(s, str))
                if isinstance(scopes, list)
                else None,
            )
        for key in ("lambda", "iam"):  # HTTP API (v2) Lambda or IAM authorizer
            part = authorizer.get(key)
            if isinstance(part, Mapping):
                return dict(part), None
        claims = authorizer.get("claims")
        if isinstance(claims, Mapping):  # REST API (v1) Cognito user pool authorizer
            return dict(claims), None
        if "principalId" in authorizer:  # REST API (v1) Lambda authorizer: principalId + context
            return {k: v for k, v in authorizer.items() if k != "integrationLatency"}, None
    identity = context.get("identity")
    if isinstance(identity, Mapping) and identity.get("userArn"):  # REST API (v1) IAM auth
        keys = ("userArn", "user", "accountId", "caller", "accessKey")
        return {k: identity[k] for k in keys if identity.get(k)}, None
    return None


# --- Google Cloud -------------------------------------------------------------------------------


def _gcp_iap(request: RequestView) -> Found | None:
    user_id = request.headers.get("x-goog-authenticated-user-id")
    email = request.headers.get("x-goog-authenticated-user-email")
    if not user_id and not email:
        return None
    claims: dict[str, Any] = {}
    if user_id:
        claims["user_id"] = user_id.removeprefix(_IAP_PREFIX)
        claims["sub"] = claims["user_id"]
    if email:
        claims["email"] = email.removeprefix(_IAP_PREFIX)
    return claims, frozenset()


def _userinfo_header(request: RequestView, header: str) -> Found | None:
    value = request.headers.get(header)
    if value is None:
        return None
    claims = _decode_json_segment(value, f"the {header} header")
    nested = claims.get("claims")  # older ESP: {"id", "issuer", "email", "claims": "<json>"}
    if isinstance(nested, str):
        try:
            inner = json.loads(nested)
        except ValueError:
            inner = None
        if isinstance(inner, dict):
            claims = {**inner, **{k: v for k, v in claims.items() if k != "claims"}}
    if "sub" not in claims and isinstance(claims.get("id"), str):
        claims["sub"] = claims["id"]
    return claims, None


def _gcp_endpoints(request: RequestView) -> Found | None:
    return _userinfo_header(request, "x-endpoint-api-userinfo")


def _gcp_api_gateway(request: RequestView) -> Found | None:
    return _userinfo_header(request, "x-apigateway-api-userinfo")


def _gcp_cloud_run(request: RequestView) -> Found | None:
    for header in ("x-serverless-authorization", "authorization"):
        value = request.headers.get(header)
        if value is None:
            continue
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            continue
        segments = token.strip().split(".")
        if len(segments) < 2:
            raise InvalidCredentials("the platform-verified token is not a JWT")
        return _decode_json_segment(segments[1], "the platform-verified token"), None
    return None


def _decode_json_segment(value: str, what: str) -> dict[str, Any]:
    """A base64(url) JSON object, padded or not."""
    value = value.strip()
    if len(value) > MAX_HEADER_LENGTH:
        raise InvalidCredentials(f"{what} is too large")
    try:
        raw = base64.urlsafe_b64decode(
            value.replace("+", "-").replace("/", "_") + "=" * (-len(value) % 4)
        )
        decoded = json.loads(raw)
    except (binascii.Error, ValueError):
        raise InvalidCredentials(f"{what} is malformed") from None
    if not isinstance(decoded, dict):
        raise InvalidCredentials(f"{what} is malformed")
    return decoded


_READERS = {
    "aws": _aws,
    "gcp_iap": _gcp_iap,
    "gcp_endpoints": _gcp_endpoints,
    "gcp_api_gateway": _gcp_api_gateway,
    "gcp_cloud_run": _gcp_cloud_run,
}
