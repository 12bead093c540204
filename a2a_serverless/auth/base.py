"""The vocabulary of authentication: who called (`Identity`), what they sent (`RequestView`),
what checks it (`Authenticator`) and how it fails (`InvalidCredentials`, `Unauthenticated`,
`Forbidden`, `AuthenticationUnavailable`).

Nothing here imports PyJWT, cryptography or httpx.

Secrets never travel in these objects' messages: every reason is a fixed text written by us
(at most naming a claim, an algorithm or a scope), never the token or key that was presented.
`RequestView` keeps the headers out of its repr for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field, replace
from types import MappingProxyType
from typing import Any, ClassVar, Protocol, runtime_checkable

from ..dataclassmethods import DataclassMethods, frozen_dataclass
from ..exceptions import A2AServerlessError, UnavailableError

# What an Authenticator declares in the card's `securitySchemes`.
from ..models import SchemeModel as SchemeModel

ANONYMOUS_SCHEME = "anonymous"
JSONRPC_AUTH_ERROR = -32000
MAX_SUBJECT_LENGTH = 1024
# Compiled on first use, by re's own cache: only an authentication scheme needs it.
_CONTROL = r"[\x00-\x1f\x7f]"

# --- who called ---------------------------------------------------------------------------------


# Frozen dataclasses whose methods are not compiled at import (dataclassmethods.py).
@frozen_dataclass(slots=True)
class Identity(DataclassMethods):
    """The authenticated caller.

    - `subject`: who it is within its scheme (a JWT's `sub`, an API key's configured name...);
    - `scheme`: the name (in the card's `securitySchemes`) of the scheme that authenticated it;
    - `scopes`: what that scheme granted (a token's `scope`/`scp`, an API key's configured scopes);
    - `claims`: everything else the scheme knows (a token's claims; never the token itself);
    - `owner`: the tenancy key — tasks and push configs belong to it. Defaults to
      `"{scheme}:{subject}"`; authenticators take an `owner_prefix` to decouple it from the
      scheme's name (renaming a scheme must not orphan every task);
    - `schemes`: every scheme this request satisfied, with the scopes each granted (set by
      `Security.authenticate`; a request may carry an API key *and* a bearer token, and per-skill
      requirements are checked against all of them).
    """

    subject: str
    scheme: str
    scopes: frozenset[str] = frozenset()
    claims: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    owner: str = ""
    schemes: Mapping[str, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.scopes, frozenset):
            object.__setattr__(self, "scopes", frozenset(self.scopes))
        if not self.owner:
            object.__setattr__(self, "owner", f"{self.scheme}:{self.subject}")
        if self.schemes:
            schemes = {name: frozenset(scopes) for name, scopes in self.schemes.items()}
        elif self.scheme != ANONYMOUS_SCHEME:
            schemes = {self.scheme: self.scopes}
        else:
            schemes = {}
        object.__setattr__(self, "schemes", MappingProxyType(schemes))

    @property
    def is_anonymous(self) -> bool:
        return self.scheme == ANONYMOUS_SCHEME

    def with_schemes(self, schemes: Mapping[str, frozenset[str]]) -> Identity:
        return replace(self, schemes=schemes)


# The one caller of an unauthenticated deployment: its owner is the service's default owner.
ANONYMOUS = Identity(subject="anonymous", scheme=ANONYMOUS_SCHEME, owner="anonymous")


def checked_subject(value: Any, what: str = "subject") -> str:
    """A subject fit to be part of an owner key: a non-empty string without control characters."""
    if not isinstance(value, str) or not value:
        raise InvalidCredentials(f"the credentials carry no {what}")
    if len(value) > MAX_SUBJECT_LENGTH or re.search(_CONTROL, value):
        raise InvalidCredentials(f"the {what} is not acceptable")
    return value


def owner_key(prefix: str, subject: str) -> str:
    return f"{prefix}:{subject}"


# --- what they sent -----------------------------------------------------------------------------


@frozen_dataclass(slots=True)
class RequestView(DataclassMethods):
    """What authenticators may look at: headers (lowercase names), query parameters, cookies,
    and the ASGI scope (for identities an upstream platform verified, e.g. `scope["aws.event"]`
    under Mangum). Build one with `from_asgi_scope`. None of it shows in the repr.
    """

    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    query: Mapping[str, str] = field(default_factory=dict, repr=False)
    cookies: Mapping[str, str] = field(default_factory=dict, repr=False)
    scope: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_asgi_scope(
        cls, scope: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> RequestView:
        """The view of one ASGI HTTP request. `headers` (if the caller already decoded them)
        saves decoding `scope["headers"]` again; names are lowercased either way."""
        if headers is None:
            decoded: dict[str, str] = {}
            for key, value in scope.get("headers", []):
                decoded[key.decode("latin-1").lower()] = value.decode("latin-1")
        else:
            decoded = {k.lower(): v for k, v in headers.items()}
        raw_query = scope.get("query_string", b"")
        if isinstance(raw_query, bytes):
            raw_query = raw_query.decode("latin-1")
        return cls(
            headers=decoded,
            query=parse_query(raw_query),
            cookies=parse_cookies(decoded.get("cookie", "")),
            scope=scope,
        )

    @classmethod
    def from_headers(
        cls,
        headers: Mapping[str, str],
        *,
        query_string: str = "",
        scope: Mapping[str, Any] | None = None,
    ) -> RequestView:
        lowered = {k.lower(): v for k, v in headers.items()}
        return cls(
            headers=lowered,
            query=parse_query(query_string),
            cookies=parse_cookies(lowered.get("cookie", "")),
            scope=scope or {},
        )


def parse_query(query_string: str) -> dict[str, str]:
    """Query parameters, percent-decoded; a repeated parameter keeps its first value."""
    params: dict[str, str] = {}
    if not query_string:
        return params
    # Here: urllib.parse (and the ipaddress it imports, ~2 ms) only for a query to read.
    from urllib.parse import parse_qsl

    for key, value in parse_qsl(query_string, keep_blank_values=True):
        params.setdefault(key, value)
    return params


def parse_cookies(header: str) -> dict[str, str]:
    """The Cookie header's name=value pairs (RFC 6265 §5.4); the first of a repeated name wins
    (browsers send the most specific path first)."""
    cookies: dict[str, str] = {}
    for part in header.split(";"):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or not name:
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        cookies.setdefault(name, value)
    return cookies


# --- how it fails -------------------------------------------------------------------------------


class AuthError(A2AServerlessError):
    """Base of the authentication errors. `reason` is safe to show to the client."""

    status: ClassVar[int] = 401

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def headers(self) -> list[tuple[bytes, bytes]]:
        """Response headers to send with `status` (ASGI form)."""
        return []

    def to_json(self) -> dict[str, Any]:
        """The HTTP+JSON (REST) body, shaped like the REST transport's other errors: the
        code is JSONRPC_AUTH_ERROR as over JSON-RPC, `data` says which failure it was."""
        from http import HTTPStatus  # here: only a refusal over HTTP+JSON needs its phrase

        return {
            "error": {
                "code": JSONRPC_AUTH_ERROR,
                "status": HTTPStatus(self.status).phrase,
                "message": self.reason,
                "data": {"httpStatus": self.status, "error": self.error_code},
            }
        }

    def jsonrpc_body(self, request_id: str | int | None = None) -> dict[str, Any]:
        """A JSON-RPC error response to send with `status`. A2A defines no JSON-RPC code for
        authentication failures (the HTTP status carries the meaning), so the code is
        JSONRPC_AUTH_ERROR (-32000, the implementation-defined range A2A's own codes avoid);
        `data` says which failure it was."""
        return {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {
                "code": JSONRPC_AUTH_ERROR,
                "message": self.reason,
                "data": {"httpStatus": self.status, "error": self.error_code},
            },
        }

    @property
    def error_code(self) -> str:
        return "unauthorized"


class InvalidCredentials(AuthError):
    """Raised by an Authenticator: its credentials are present but not acceptable.

    `error` is RFC 6750's code: "invalid_token" (bad, expired, wrong audience...) or
    "invalid_request" (the credential is malformed, e.g. an empty Bearer value).
    """

    def __init__(self, reason: str, *, error: str = "invalid_token") -> None:
        super().__init__(reason)
        self.error = error


class Unauthenticated(AuthError):
    """No acceptable credentials: answer 401 with one WWW-Authenticate per challenge."""

    status = 401

    def __init__(self, reason: str, challenges: Sequence[str] = ()) -> None:
        super().__init__(reason)
        self.challenges = list(dict.fromkeys(challenges))  # in order, without duplicates

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [(b"www-authenticate", _header_bytes(c)) for c in self.challenges]


class Forbidden(AuthError):
    """Authenticated, but not allowed (e.g. missing scopes): answer 403.

    `challenges` (may be empty) are RFC 6750 `insufficient_scope` challenges for bearer schemes.
    """

    status = 403

    def __init__(
        self,
        reason: str,
        challenges: Sequence[str] = (),
        required_scopes: Iterable[str] = (),
    ) -> None:
        super().__init__(reason)
        self.challenges = list(dict.fromkeys(challenges))
        self.required_scopes = frozenset(required_scopes)

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [(b"www-authenticate", _header_bytes(c)) for c in self.challenges]

    @property
    def error_code(self) -> str:
        return "forbidden"


class AuthenticationUnavailable(AuthError, UnavailableError):
    """Credentials could not be checked right now (the JWKS or the OpenID discovery document
    is unreachable): not the caller's fault, answer 503 and let them retry."""

    status = 503

    def __init__(self, reason: str, retry_after_s: int = 5) -> None:
        super().__init__(reason)
        self.retry_after_s = retry_after_s

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [(b"retry-after", str(self.retry_after_s).encode())]

    @property
    def error_code(self) -> str:
        return "authentication_unavailable"


def _header_bytes(value: str) -> bytes:
    return value.encode("latin-1", "replace")


# --- challenges ---------------------------------------------------------------------------------

# Compiled on first use, by re's own cache: only a refusal needs it.
_UNSAFE_IN_QUOTED = r"[^\x20\x21\x23-\x5b\x5d-\x7e]"


def quoted(value: str) -> str:
    """An auth-param value as a quoted-string, restricted to RFC 6750's safe characters."""
    return '"' + re.sub(_UNSAFE_IN_QUOTED, "?", value)[:200] + '"'


def challenge(scheme: str, params: Mapping[str, str | None]) -> str:
    """`Scheme k1="v1", k2="v2"` — None values are left out."""
    parts = [f"{k}={quoted(v)}" for k, v in params.items() if v is not None]
    return f"{scheme} {', '.join(parts)}" if parts else scheme


def error_params(error: AuthError | None) -> dict[str, str | None]:
    """RFC 6750 §3 error attributes for a challenge (none when credentials were just absent)."""
    if isinstance(error, InvalidCredentials):
        return {"error": error.error, "error_description": error.reason}
    if isinstance(error, Forbidden):
        scope = " ".join(sorted(error.required_scopes)) or None
        return {"error": "insufficient_scope", "error_description": error.reason, "scope": scope}
    return {}


# --- what checks it -----------------------------------------------------------------------------


@runtime_checkable
class Authenticator(Protocol):
    """One security scheme of the card, and the code that checks its credentials.

    - `name`: the scheme's key in the card's `securitySchemes` (and in `security` requirements);
    - `security_scheme()`: what the card declares for it;
    - `authenticate(request)`: the caller's Identity; None when this scheme's credentials are
      absent from the request; raise `InvalidCredentials(reason)` when they are present but bad
      (and `AuthenticationUnavailable` when they cannot be checked right now). Never put the
      credential in the reason, and compare secrets in constant time (`hmac.compare_digest`);
    - `challenge(error)`: the WWW-Authenticate value for this scheme; `error` is None when the
      credentials were absent, the `InvalidCredentials` when they were bad, or a `Forbidden`
      when scopes were insufficient (bearer schemes add RFC 6750 attributes for those).
    """

    @property
    def name(self) -> str: ...

    def security_scheme(self) -> SchemeModel: ...

    async def authenticate(self, request: RequestView) -> Identity | None: ...

    def challenge(self, error: AuthError | None = None) -> str: ...
