"""API keys in a header, a query parameter or a cookie (the card's `apiKey` scheme).

    ApiKeyAuthenticator(
        "apiKey",
        keys={"k-7Hq...": "alice", "k-P2x...": ApiKey("reporting-bot", scopes={"tasks:read"})},
        location="header", param_name="X-API-Key",
    )

Keys are kept only as SHA-256 digests and every presented key is compared with every known
digest with `hmac.compare_digest` (no early exit), so neither the comparison nor the lookup
leaks through timing. For many keys or keys in a database, pass a lookup function instead
(`keys=lookup`, sync or async, `str -> ApiKey | subject | None`): it must compare in constant
time itself — e.g. look up the key's SHA-256 digest, never the raw key.

A query-string key ends up in access logs (API Gateway, load balancers, uvicorn): prefer a
header. The WWW-Authenticate challenge sent for this scheme (API keys have no registered HTTP
authentication scheme) is `ApiKey realm="a2a", in="header", name="X-API-Key"` (with `error` /
`error_description` attributes when a key was presented and refused).
"""

from __future__ import annotations

import hashlib
import hmac
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from ..models import APIKeySecurityScheme
from .base import (
    AuthError,
    Identity,
    InvalidCredentials,
    RequestView,
    challenge,
    checked_subject,
    error_params,
    owner_key,
)

log = logging.getLogger("a2a_serverless.auth")

Location = Literal["header", "query", "cookie"]
MIN_KEY_LENGTH = 16
MAX_KEY_LENGTH = 4096


@dataclass(frozen=True, slots=True)
class ApiKey:
    """Who a key belongs to and what it may do."""

    subject: str
    scopes: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if not isinstance(self.scopes, frozenset):
            object.__setattr__(self, "scopes", frozenset(self.scopes))


LookupResult = ApiKey | str | None
KeyLookup = Callable[[str], LookupResult | Awaitable[LookupResult]]


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()


class ApiKeyAuthenticator:
    def __init__(
        self,
        name: str = "apiKey",
        *,
        keys: Mapping[str, str | ApiKey] | KeyLookup,
        location: Location = "header",
        param_name: str = "X-API-Key",
        scopes: Mapping[str, Iterable[str]] | None = None,
        description: str | None = None,
        owner_prefix: str | None = None,
        realm: str = "a2a",
        min_key_length: int = MIN_KEY_LENGTH,
    ) -> None:
        """`keys`: key -> subject (or ApiKey), or a lookup function. `scopes`: subject ->
        scopes, for keys given as bare subjects. Keys shorter than `min_key_length` are
        refused (generate them with `secrets.token_urlsafe(32)`)."""
        if location not in ("header", "query", "cookie"):
            raise ValueError(f"an API key goes in a header, query or cookie, not {location!r}")
        if not param_name:
            raise ValueError("the API key's parameter name is empty")
        self.name = name
        self.location: Location = location
        self.param_name = param_name
        self.description = description
        self.owner_prefix = owner_prefix or name
        self.realm = realm
        self._lookup: KeyLookup | None = None
        self._table: list[tuple[bytes, ApiKey]] = []
        if callable(keys):
            self._lookup = keys
        else:
            if not keys:
                raise ValueError(f"the {name!r} scheme has no API keys")
            extra = {s: frozenset(v) for s, v in (scopes or {}).items()}
            for key, owner in keys.items():
                if not isinstance(key, str) or len(key) < min_key_length:
                    raise ValueError(
                        f"an API key of the {name!r} scheme is shorter than {min_key_length} "
                        "characters"
                    )
                entry = owner if isinstance(owner, ApiKey) else ApiKey(owner)
                checked_subject(entry.subject, "API key subject")
                if entry.subject in extra:
                    entry = ApiKey(entry.subject, entry.scopes | extra[entry.subject])
                self._table.append((_digest(key), entry))
        self._header = param_name.lower()

    def __repr__(self) -> str:
        count = "lookup" if self._lookup else f"{len(self._table)} keys"
        return f"ApiKeyAuthenticator({self.name!r}, {self.location}={self.param_name!r}, {count})"

    def security_scheme(self) -> APIKeySecurityScheme:
        return APIKeySecurityScheme(
            name=self.param_name, location=self.location, description=self.description
        )

    def challenge(self, error: AuthError | None = None) -> str:
        params: dict[str, str | None] = {
            "realm": self.realm,
            "in": self.location,
            "name": self.param_name,
        }
        params.update(error_params(error))
        return challenge("ApiKey", params)

    def _presented(self, request: RequestView) -> str | None:
        if self.location == "header":
            return request.headers.get(self._header)
        if self.location == "query":
            return request.query.get(self.param_name)
        return request.cookies.get(self.param_name)

    async def authenticate(self, request: RequestView) -> Identity | None:
        presented = self._presented(request)
        if presented is None:
            return None
        presented = presented.strip()
        if not presented:
            raise InvalidCredentials("the API key is empty", error="invalid_request")
        if len(presented) > MAX_KEY_LENGTH:
            raise InvalidCredentials("the API key is not valid")
        entry = await self._find(presented)
        if entry is None:
            raise InvalidCredentials("the API key is not valid")
        subject = checked_subject(entry.subject, "API key subject")
        return Identity(
            subject=subject,
            scheme=self.name,
            scopes=entry.scopes,
            owner=owner_key(self.owner_prefix, subject),
        )

    async def _find(self, presented: str) -> ApiKey | None:
        if self._lookup is not None:
            found = self._lookup(presented)
            if inspect.isawaitable(found):
                found = await found
            if found is None:
                return None
            return found if isinstance(found, ApiKey) else ApiKey(str(found))
        digest = _digest(presented)
        match: ApiKey | None = None
        for known, entry in self._table:  # every entry, always: no early exit
            if hmac.compare_digest(digest, known):
                match = entry
        return match
