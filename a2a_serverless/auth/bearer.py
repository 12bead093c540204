"""Bearer JWTs (`Authorization: Bearer <jwt>`), verified with PyJWT.

    BearerJWTAuthenticator(
        "bearer",
        issuer="https://login.example.com/",
        audience="https://agent.example.com",
        jwks_url="https://login.example.com/.well-known/jwks.json",   # or static_keys=...
    )

A token is accepted when: its header's `alg` is one of `algorithms` (asymmetric only — never
"none" or HS*); a key of the issuer's JWKS (or of `static_keys`) with that `kid`, of the right
type for that alg, verifies its signature; `iss` is the issuer; `aud` includes the audience;
`exp` has not passed and `nbf`/`iat` are not in the future (each with `leeway_s` of clock
skew); `required_claims` (default exp and the subject claim) are present. Its scopes come from
`scope` (space-separated, RFC 9068) or `scp` (a list or a string), or from `scope_claim` (a
dotted path such as "realm_access.roles").

The challenge is RFC 6750's: `Bearer realm="a2a"` when no token was sent, with
`error="invalid_token", error_description="..."` when one was refused, and
`error="insufficient_scope", scope="..."` (on a 403) when it lacked scopes.

Needs the `crypto` extra (`pip install 'a2a-serverless[crypto]'`): without it the scheme is not
made (`MissingExtra`), as every accepted algorithm is asymmetric.
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ..extras import require_crypto
from ..jwks import (
    ASYMMETRIC_ALGORITHMS,
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT_S,
    KeySet,
    KeySetUnavailable,
    check_algorithms,
    check_url,
    keys_from_static,
)
from ..models import HTTPAuthSecurityScheme
from .base import (
    AuthenticationUnavailable,
    AuthError,
    Identity,
    InvalidCredentials,
    RequestView,
    SchemeModel,
    challenge,
    checked_subject,
    error_params,
)

log = logging.getLogger("a2a_serverless.auth")

DEFAULT_ALGORITHMS = ASYMMETRIC_ALGORITHMS
MAX_TOKEN_LENGTH = 16 * 1024


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token of an `Authorization: Bearer` header; None without one (or with another
    scheme, e.g. Basic, which some other authenticator may handle)."""
    value = headers.get("authorization")
    if value is None:
        return None
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    token = token.strip()
    if not token or any(c.isspace() for c in token):
        raise InvalidCredentials("the Bearer token is empty or malformed", error="invalid_request")
    return token


def scopes_from_claims(claims: Mapping[str, Any], claim: str | None = None) -> frozenset[str]:
    """Scopes from `claim` (a dotted path), or else from "scope" then "scp"."""
    for path in (claim,) if claim else ("scope", "scp"):
        value: Any = claims
        for part in path.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        if isinstance(value, str):
            return frozenset(value.split())
        if isinstance(value, list):
            return frozenset(s for s in value if isinstance(s, str))
    return frozenset()


class JWTAuthenticatorBase(abc.ABC):
    """What bearer-JWT and OpenID Connect authenticators share; `_issuer_and_jwks_url` differs."""

    name: str

    def _setup(
        self,
        name: str,
        *,
        audience: str | Sequence[str],
        static_keys: Any,
        algorithms: Sequence[str],
        leeway_s: float,
        required_claims: Sequence[str],
        subject_claim: str,
        scope_claim: str | None,
        owner_prefix: str | None,
        description: str | None,
        declared: SchemeModel | None,
        realm: str,
        jwks_ttl_s: float,
        jwks_min_refresh_s: float,
        timeout_s: float,
        max_document_bytes: int,
        allow_http: bool,
    ) -> None:
        # Asymmetric signatures need cryptography: refuse to build the scheme without it, so a
        # deployment that configures JWTs fails at start-up rather than on its first token.
        require_crypto(f"verifying bearer JWTs (the {name!r} scheme)")
        if not audience:
            raise ValueError(
                f"the {name!r} scheme needs an audience: without one, tokens minted for any other "
                "service of the same issuer would be accepted"
            )
        self.name = name
        self.audience: list[str] = [audience] if isinstance(audience, str) else list(audience)
        self.algorithms = check_algorithms(algorithms)
        self.leeway_s = leeway_s
        self.subject_claim = subject_claim
        self.required_claims = tuple(dict.fromkeys([*required_claims, subject_claim]))
        self.scope_claim = scope_claim
        self.owner_prefix = owner_prefix or name
        self.description = description
        self.declared = declared
        self.realm = realm
        self.timeout_s = timeout_s
        self.max_document_bytes = max_document_bytes
        self.allow_http = allow_http
        static = [] if static_keys is None else keys_from_static(static_keys, self.algorithms)
        self.keys = KeySet(
            static,
            algorithms=self.algorithms,
            ttl_s=jwks_ttl_s,
            min_refresh_s=jwks_min_refresh_s,
            timeout_s=timeout_s,
            max_bytes=max_document_bytes,
        )

    def mark_stale(self) -> None:
        """Forget how old what was fetched is (see KeySet.mark_stale): refetch on next use."""
        self.keys.mark_stale()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, audience={self.audience!r})"

    @abc.abstractmethod
    async def _issuer_and_jwks_url(self) -> tuple[list[str], str | None]:
        """The trusted issuers and where their keys are published."""

    def security_scheme(self) -> SchemeModel:
        if self.declared is not None:
            return self.declared
        return HTTPAuthSecurityScheme(
            scheme="bearer", bearer_format="JWT", description=self.description
        )

    def challenge(self, error: AuthError | None = None) -> str:
        params: dict[str, str | None] = {"realm": self.realm}
        params.update(error_params(error))
        return challenge("Bearer", params)

    async def authenticate(self, request: RequestView) -> Identity | None:
        token = bearer_token(request.headers)
        if token is None:
            return None
        claims = await self.verify(token)
        subject = checked_subject(
            claims.get(self.subject_claim), f"subject ({self.subject_claim!r} claim)"
        )
        issuers, _ = await self._issuer_and_jwks_url()
        # `sub` is unique per issuer: with several issuers, the owner says which one.
        tenant = subject if len(issuers) == 1 else f"{claims.get('iss')}|{subject}"
        return Identity(
            subject=subject,
            scheme=self.name,
            scopes=scopes_from_claims(claims, self.scope_claim),
            claims=claims,
            owner=f"{self.owner_prefix}:{tenant}",
        )

    async def verify(self, token: str) -> dict[str, Any]:
        """The verified claims of `token`, or InvalidCredentials (AuthenticationUnavailable
        when the keys cannot be fetched)."""
        import jwt

        if len(token) > MAX_TOKEN_LENGTH:
            raise InvalidCredentials("the token is too large")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise InvalidCredentials("the token is not a well-formed JWT") from None
        alg, kid = header.get("alg"), header.get("kid")
        if not isinstance(alg, str) or alg not in self.algorithms:
            shown = alg[:16] if isinstance(alg, str) else type(alg).__name__
            raise InvalidCredentials(f"the token's algorithm {shown!r} is not accepted")
        if kid is not None and not isinstance(kid, str):
            raise InvalidCredentials("the token's key id (kid) is not a string")
        issuers, jwks_url = await self._issuer_and_jwks_url()
        try:
            candidates = await self.keys.candidates(kid, alg, jwks_url)
        except KeySetUnavailable as exc:
            raise AuthenticationUnavailable(exc.reason) from None
        if not candidates:
            raise InvalidCredentials("the token was signed by an unknown key")
        for key in candidates:
            try:
                claims: dict[str, Any] = jwt.decode(
                    token,
                    key.key,
                    algorithms=[alg],
                    audience=self.audience,
                    issuer=issuers[0] if len(issuers) == 1 else issuers,
                    leeway=self.leeway_s,
                    options={"require": list(self.required_claims)},
                )
            except jwt.InvalidSignatureError:
                continue  # maybe another candidate key (tokens without a kid)
            except jwt.ExpiredSignatureError:
                raise InvalidCredentials("the token has expired") from None
            except jwt.ImmatureSignatureError:
                raise InvalidCredentials("the token is not valid yet") from None
            except jwt.InvalidAudienceError:
                raise InvalidCredentials("the token is meant for another audience") from None
            except jwt.InvalidIssuerError:
                raise InvalidCredentials("the token's issuer is not trusted") from None
            except jwt.MissingRequiredClaimError as exc:
                raise InvalidCredentials(f"the token has no {exc.claim!r} claim") from None
            except jwt.PyJWTError:
                raise InvalidCredentials("the token is not valid") from None
            return claims
        raise InvalidCredentials("the token's signature does not verify")


class BearerJWTAuthenticator(JWTAuthenticatorBase):
    def __init__(
        self,
        name: str = "bearer",
        *,
        issuer: str | Sequence[str],
        audience: str | Sequence[str],
        jwks_url: str | None = None,
        static_keys: Any = None,
        algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
        leeway_s: float = 60.0,
        required_claims: Sequence[str] = ("exp",),
        subject_claim: str = "sub",
        scope_claim: str | None = None,
        owner_prefix: str | None = None,
        description: str | None = None,
        declared: SchemeModel | None = None,
        realm: str = "a2a",
        jwks_ttl_s: float = 3600.0,
        jwks_min_refresh_s: float = 30.0,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_jwks_bytes: int = DEFAULT_MAX_BYTES,
        allow_http: bool = False,
    ) -> None:
        """`issuer`: the trusted `iss` value(s). `audience`: this agent's identifier(s) — a
        token is accepted if its `aud` contains any. Keys: `jwks_url` (fetched and cached),
        `static_keys` (a JWKS document, a list of JWKs, a PEM public key or certificate, or a
        mapping kid -> PEM), or both. `declared` replaces what the card declares (by default an
        `http` `bearer` scheme with bearerFormat JWT), e.g. an OAuth2SecurityScheme whose
        flows tell clients where to get tokens. `allow_http` permits a plain-http JWKS URL
        (always allowed for loopback hosts)."""
        issuers = [issuer] if isinstance(issuer, str) else list(issuer)
        if not issuers or not all(issuers):
            raise ValueError(f"the {name!r} scheme needs the issuer (iss) it trusts")
        if jwks_url is None and static_keys is None:
            raise ValueError(f"the {name!r} scheme needs a jwks_url or static_keys")
        if jwks_url is not None:
            check_url(jwks_url, "JWKS URL", allow_http=allow_http)
        self.issuers = issuers
        self.jwks_url = jwks_url
        self._setup(
            name,
            audience=audience,
            static_keys=static_keys,
            algorithms=algorithms,
            leeway_s=leeway_s,
            required_claims=required_claims,
            subject_claim=subject_claim,
            scope_claim=scope_claim,
            owner_prefix=owner_prefix,
            description=description,
            declared=declared,
            realm=realm,
            jwks_ttl_s=jwks_ttl_s,
            jwks_min_refresh_s=jwks_min_refresh_s,
            timeout_s=timeout_s,
            max_document_bytes=max_jwks_bytes,
            allow_http=allow_http,
        )

    async def _issuer_and_jwks_url(self) -> tuple[list[str], str | None]:
        return self.issuers, self.jwks_url
