"""Authentication and authorization: declared in the agent card, enforced on every request.

    from a2a_serverless.auth import (
        ApiKeyAuthenticator, BearerJWTAuthenticator, RequestView, Security,
    )

    security = Security(
        [
            ApiKeyAuthenticator("apiKey", keys={"<32+ random chars>": "alice"}),
            BearerJWTAuthenticator(
                "bearer",
                issuer="https://login.example.com/",
                audience="https://agent.example.com",
                jwks_url="https://login.example.com/.well-known/jwks.json",
            ),
        ],
        requirements=[{"apiKey": []}, {"bearer": ["a2a:invoke"]}],   # the card's `security`
    )
    schemes, requirements = security.card_fields()      # the card's securitySchemes / security
    identity = await security.authenticate(RequestView.from_asgi_scope(scope))
    # -> Identity(subject, scheme, scopes, claims, owner); raises Unauthenticated (401, with
    #    WWW-Authenticate), Forbidden (403) or AuthenticationUnavailable (503)
    security.authorize_skill(identity, skill)            # per-skill scopes -> Forbidden

Schemes: `ApiKeyAuthenticator` (header, query or cookie; constant-time comparison),
`BearerJWTAuthenticator` (JWKS URL or static keys; issuer, audience, expiry, clock skew),
`OpenIdConnectAuthenticator` (discovery, then bearer JWTs), `UpstreamIdentityAuthenticator`
(an identity the platform's authorizer already verified — read its warning), or any object
implementing the `Authenticator` protocol. `security_from_settings()` builds a Security from
`A2A_AUTH_*` variables; `Security.anonymous()` (no authenticators) makes every request the one
anonymous caller, owner "anonymous".

Importing this package imports no PyJWT, cryptography or httpx: they load when a token is
verified or a key set fetched. The JWT schemes (bearer, OpenID Connect) need the `crypto` extra
(`pip install 'a2a-serverless[crypto]'`) and raise `a2a_serverless.extras.MissingExtra` when
they are made without it; API keys and upstream identities do not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazyface import lazy_face
from .base import (
    ANONYMOUS,
    JSONRPC_AUTH_ERROR,
    AuthenticationUnavailable,
    Authenticator,
    AuthError,
    Forbidden,
    Identity,
    InvalidCredentials,
    RequestView,
    SchemeModel,
    Unauthenticated,
)
from .config import security_from_settings
from .policy import Requirement, Security

if TYPE_CHECKING:
    from ..jwks import KeySet, VerificationKey
    from .apikey import ApiKey, ApiKeyAuthenticator
    from .bearer import BearerJWTAuthenticator, bearer_token, scopes_from_claims
    from .oidc import OpenIdConnectAuthenticator
    from .upstream import UpstreamIdentityAuthenticator

__all__ = [
    "ANONYMOUS",
    "JSONRPC_AUTH_ERROR",
    "ApiKey",
    "ApiKeyAuthenticator",
    "AuthError",
    "AuthenticationUnavailable",
    "Authenticator",
    "BearerJWTAuthenticator",
    "Forbidden",
    "Identity",
    "InvalidCredentials",
    "KeySet",
    "OpenIdConnectAuthenticator",
    "RequestView",
    "Requirement",
    "SchemeModel",
    "Security",
    "Unauthenticated",
    "UpstreamIdentityAuthenticator",
    "VerificationKey",
    "bearer_token",
    "scopes_from_claims",
    "security_from_settings",
]

# The schemes a deployment may not use (API keys, JWTs, OpenID Connect, upstream identities) and
# the key sets behind them load when first named: a cold start skips those it is not configured
# with.
__getattr__, __dir__ = lazy_face(
    __name__,
    {
        "ApiKey": ".apikey",
        "ApiKeyAuthenticator": ".apikey",
        "KeySet": "..jwks",
        "VerificationKey": "..jwks",
        "BearerJWTAuthenticator": ".bearer",
        "bearer_token": ".bearer",
        "scopes_from_claims": ".bearer",
        "OpenIdConnectAuthenticator": ".oidc",
        "UpstreamIdentityAuthenticator": ".upstream",
    },
)
