"""OpenID Connect: bearer JWTs from a provider found by discovery (the card's `openIdConnect`).

    OpenIdConnectAuthenticator(
        "oidc",
        discovery_url="https://accounts.google.com/.well-known/openid-configuration",
        audience="https://agent.example.com",        # or your OAuth client id for ID tokens
    )

On first use the discovery document is fetched (cached for `discovery_ttl_s`); its `issuer`
must be the discovery URL without `/.well-known/openid-configuration` (OpenID Connect
Discovery §4.3 — unless `issuer=` names the expected one), and its `jwks_uri` (HTTPS) gives the
keys. Tokens are then verified exactly like `BearerJWTAuthenticator` does. An issuer URL is
accepted in place of the discovery URL (the well-known suffix is added).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from ..jwks import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT_S,
    KeySetUnavailable,
    check_url,
    fetch_json,
    loop_lock,
    url_problem,
)
from ..models import OpenIdConnectSecurityScheme
from .base import AuthenticationUnavailable, SchemeModel
from .bearer import DEFAULT_ALGORITHMS, JWTAuthenticatorBase

log = logging.getLogger("a2a_serverless.auth")

WELL_KNOWN = "/.well-known/openid-configuration"


class OpenIdConnectAuthenticator(JWTAuthenticatorBase):
    def __init__(
        self,
        name: str = "oidc",
        *,
        discovery_url: str,
        audience: str | Sequence[str],
        issuer: str | None = None,
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
        discovery_ttl_s: float = 24 * 3600.0,
        jwks_ttl_s: float = 3600.0,
        jwks_min_refresh_s: float = 30.0,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_document_bytes: int = DEFAULT_MAX_BYTES,
        allow_http: bool = False,
    ) -> None:
        if not discovery_url.rstrip("/").endswith(WELL_KNOWN):
            discovery_url = discovery_url.rstrip("/") + WELL_KNOWN
        check_url(discovery_url, "OpenID discovery URL", allow_http=allow_http)
        self.discovery_url = discovery_url
        self.expected_issuer = issuer or discovery_url[: -len(WELL_KNOWN)]
        self.discovery_ttl_s = discovery_ttl_s
        self._config: tuple[list[str], str] | None = None
        self._discovered_at = float("-inf")
        self._next_attempt = float("-inf")
        self._locks: dict[int, asyncio.Lock] = {}
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
            max_document_bytes=max_document_bytes,
            allow_http=allow_http,
        )

    def security_scheme(self) -> SchemeModel:
        if self.declared is not None:
            return self.declared
        return OpenIdConnectSecurityScheme(
            open_id_connect_url=self.discovery_url, description=self.description
        )

    def mark_stale(self) -> None:
        """Discover the provider's configuration and its keys again on next use (a process
        restored from a snapshot: see KeySet.mark_stale); the old ones serve meanwhile."""
        super().mark_stale()
        self._discovered_at = float("-inf")
        self._next_attempt = float("-inf")

    def _fresh(self) -> bool:
        return (
            self._config is not None
            and time.monotonic() - self._discovered_at <= self.discovery_ttl_s
        )

    async def _issuer_and_jwks_url(self) -> tuple[list[str], str | None]:
        if self._fresh():
            assert self._config is not None
            return self._config
        async with loop_lock(self._locks):
            if self._fresh():
                assert self._config is not None
                return self._config
            now = time.monotonic()
            if now >= self._next_attempt:
                try:
                    self._config = await self._discover()
                    self._discovered_at = now
                except AuthenticationUnavailable as exc:
                    self._next_attempt = now + 5.0
                    log.warning("OpenID discovery at %s failed: %s", self.discovery_url, exc.reason)
            if self._config is None:  # keep a stale configuration rather than none
                raise AuthenticationUnavailable(
                    "the OpenID provider's configuration is unreachable"
                )
            return self._config

    async def _discover(self) -> tuple[list[str], str]:
        try:
            document = await fetch_json(
                self.discovery_url, timeout_s=self.timeout_s, max_bytes=self.max_document_bytes
            )
        except KeySetUnavailable as exc:
            raise AuthenticationUnavailable(exc.reason) from None
        issuer, jwks_uri = document.get("issuer"), document.get("jwks_uri")
        if not isinstance(issuer, str) or not isinstance(jwks_uri, str):
            raise AuthenticationUnavailable("the discovery document lacks issuer or jwks_uri")
        if issuer != self.expected_issuer:
            raise AuthenticationUnavailable(
                f"the discovery document's issuer {issuer[:200]!r} is not the expected "
                f"{self.expected_issuer!r}"
            )
        problem = url_problem(jwks_uri, allow_http=self.allow_http)
        if problem:
            raise AuthenticationUnavailable(f"the discovered jwks_uri {problem}")
        return [issuer], jwks_uri
