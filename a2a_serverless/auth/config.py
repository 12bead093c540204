"""`security_from_settings`: a `Security` from `A2A_AUTH_*` settings (environment variables, or
the matching `auth_*` attributes of a settings object).

    A2A_AUTH_API_KEYS        API keys -> scheme "apiKey". "KEY=SUBJECT,KEY2=SUBJECT2" (a subject
                             may add scopes: "KEY=bot|tasks:read tasks:write"), or a JSON object
                             {"KEY": "alice", "KEY2": {"subject": "bot", "scopes": ["..."]}}.
                             Keys of at least 16 characters (`secrets.token_urlsafe(32)`).
    A2A_AUTH_API_KEY_NAME    the header / query parameter / cookie name (default X-API-Key)
    A2A_AUTH_API_KEY_IN      header (default), query or cookie
    A2A_AUTH_JWT_ISSUER      trusted `iss` (comma-separated for several) -> scheme "bearer"
    A2A_AUTH_JWT_AUDIENCE    this agent's audience(s), comma-separated (required with a JWT or
                             OIDC scheme)
    A2A_AUTH_JWT_JWKS_URL    where the issuer publishes its keys
    A2A_AUTH_JWT_KEYS        or static keys: a JWKS JSON document, or a PEM public key
    A2A_AUTH_JWT_ALGORITHMS  comma-separated (default: every asymmetric algorithm)
    A2A_AUTH_JWT_LEEWAY_S    clock skew allowed on exp/nbf/iat (default 60)
    A2A_AUTH_JWT_SCOPE_CLAIM the claim holding scopes (default: "scope", then "scp")
    A2A_AUTH_OIDC_URL        an OpenID provider's discovery URL (or issuer URL) -> scheme "oidc"
    A2A_AUTH_OIDC_AUDIENCE   its audience (default: A2A_AUTH_JWT_AUDIENCE)
    A2A_AUTH_UPSTREAM        trust the platform's authorizer -> scheme "upstream":
                             comma-separated sources (aws, gcp_iap, gcp_endpoints,
                             gcp_api_gateway, gcp_cloud_run). ONLY SAFE WHEN EVERY REQUEST
                             PASSES THAT AUTHORIZER (see upstream.py).
    A2A_AUTH_REQUIREMENTS    the card's `security` as JSON, e.g. '[{"apiKey": []},
                             {"bearer": ["a2a:invoke"]}]' (default: any one scheme)
    A2A_AUTH_PUBLIC_CARD     serve the card without credentials (default true)

With none of the schemes configured, the result is `Security.anonymous()`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from ..config import Settings, env_name, fields_from_env
from .base import Authenticator
from .policy import Security

if TYPE_CHECKING:
    from .apikey import ApiKey

# The `auth_*` fields are declared (with their types) once, on `Settings`; variables in a
# mapping are parsed by the same loader as the rest of the settings.
FIELDS = tuple(f.name for f in fields(Settings) if f.name.startswith("auth_"))


def security_from_settings(source: Mapping[str, Any] | object | None = None) -> Security:
    """A Security from `A2A_AUTH_*` entries of a mapping (default: the environment), or from
    the `auth_*` attributes of a settings object. Bad values raise ValueError naming them."""
    if source is None:
        source = os.environ
    if isinstance(source, Mapping):
        given = {name: source.get(env_name(name)) for name in FIELDS}
        # Text is parsed as the environment is; a value given as an object (a mapping of API
        # keys, a list of requirements, a bool) is taken as it is.
        text = {env_name(n): v for n, v in given.items() if isinstance(v, str)}
        values = fields_from_env(Settings, text, blank_is_default=True, only=FIELDS)
        values.update((n, v) for n, v in given.items() if not isinstance(v, str | None))
    else:
        values = {}
        for name in FIELDS:
            value = getattr(source, name, None)
            if isinstance(value, str):
                value = value.strip()
            if value not in (None, ""):
                values[name] = value

    authenticators: list[Authenticator] = []
    if "auth_api_keys" in values:
        from .apikey import ApiKeyAuthenticator

        location = values.get("auth_api_key_in", "header")
        if location not in ("header", "query", "cookie"):
            raise ValueError(f"A2A_AUTH_API_KEY_IN={location!r}: header, query or cookie")
        authenticators.append(
            ApiKeyAuthenticator(
                "apiKey",
                keys=_api_keys(values["auth_api_keys"]),
                location=location,
                param_name=values.get("auth_api_key_name", "X-API-Key"),
            )
        )
    jwt_audience = _list(values.get("auth_jwt_audience"))
    if "auth_jwt_issuer" in values or "auth_jwt_jwks_url" in values or "auth_jwt_keys" in values:
        from .bearer import DEFAULT_ALGORITHMS, BearerJWTAuthenticator

        if "auth_jwt_issuer" not in values:
            raise ValueError("A2A_AUTH_JWT_ISSUER is required for bearer JWTs")
        if not jwt_audience:
            raise ValueError("A2A_AUTH_JWT_AUDIENCE is required for bearer JWTs")
        authenticators.append(
            BearerJWTAuthenticator(
                "bearer",
                issuer=_list(values["auth_jwt_issuer"]),
                audience=jwt_audience,
                jwks_url=values.get("auth_jwt_jwks_url"),
                static_keys=_static_keys(values.get("auth_jwt_keys")),
                algorithms=_list(values.get("auth_jwt_algorithms")) or DEFAULT_ALGORITHMS,
                leeway_s=_float(values.get("auth_jwt_leeway_s", 60.0), "A2A_AUTH_JWT_LEEWAY_S"),
                scope_claim=values.get("auth_jwt_scope_claim"),
            )
        )
    if "auth_oidc_url" in values:
        from .oidc import OpenIdConnectAuthenticator

        audience = _list(values.get("auth_oidc_audience")) or jwt_audience
        if not audience:
            raise ValueError("A2A_AUTH_OIDC_AUDIENCE (or A2A_AUTH_JWT_AUDIENCE) is required")
        authenticators.append(
            OpenIdConnectAuthenticator(
                "oidc",
                discovery_url=values["auth_oidc_url"],
                audience=audience,
                leeway_s=_float(values.get("auth_jwt_leeway_s", 60.0), "A2A_AUTH_JWT_LEEWAY_S"),
                scope_claim=values.get("auth_jwt_scope_claim"),
            )
        )
    if "auth_upstream" in values:
        from .upstream import UpstreamIdentityAuthenticator

        authenticators.append(
            UpstreamIdentityAuthenticator("upstream", sources=_list(values["auth_upstream"]))
        )
    requirements = None
    if "auth_requirements" in values:
        requirements = _json(values["auth_requirements"], "A2A_AUTH_REQUIREMENTS")
        if not isinstance(requirements, list) or not all(
            isinstance(alt, dict)
            and all(
                isinstance(v, list) and all(isinstance(s, str) for s in v) for v in alt.values()
            )
            for alt in requirements
        ):
            raise ValueError('A2A_AUTH_REQUIREMENTS is a JSON list like [{"apiKey": []}]')
    public_card = _bool(values.get("auth_public_card", True), "A2A_AUTH_PUBLIC_CARD")
    return Security(authenticators, requirements, public_card=public_card)


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return [str(v) for v in value]


def _float(value: Any, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a number") from None


def _bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    lowered = str(value).strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name}={value!r} is not a boolean")


def _json(value: Any, name: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        raise ValueError(f"{name} is not valid JSON") from None


def _api_keys(value: Any) -> dict[str, str | ApiKey]:
    """Parse A2A_AUTH_API_KEYS; errors never repeat the value (it holds secrets)."""
    from .apikey import ApiKey

    if isinstance(value, str) and value.startswith("{"):
        value = _json(value, "A2A_AUTH_API_KEYS")
    keys: dict[str, str | ApiKey] = {}
    if isinstance(value, Mapping):
        for key, entry in value.items():
            if isinstance(entry, str):
                keys[str(key)] = entry
            elif isinstance(entry, Mapping) and isinstance(entry.get("subject"), str):
                keys[str(key)] = ApiKey(entry["subject"], frozenset(entry.get("scopes") or ()))
            else:
                raise ValueError("A2A_AUTH_API_KEYS: each key maps to a subject or an object")
        return keys
    if not isinstance(value, str):
        raise ValueError("A2A_AUTH_API_KEYS is a string or a JSON object")
    for number, item in enumerate(value.split(","), start=1):
        item = item.strip()
        if not item:
            continue
        key, sep, subject = item.rpartition("=")
        subject, _, scopes = subject.partition("|")
        if not sep or not key.strip() or not subject.strip():
            raise ValueError(f"A2A_AUTH_API_KEYS: entry {number} is not KEY=SUBJECT")
        keys[key.strip()] = ApiKey(subject.strip(), frozenset(scopes.split()))
    return keys


def _static_keys(value: Any) -> Any:
    if value is None or not isinstance(value, str):
        return value
    if value.startswith(("{", "[")):
        return _json(value, "A2A_AUTH_JWT_KEYS")
    return value.replace("\\n", "\n")  # a PEM in an environment variable
