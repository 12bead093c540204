"""API keys in a header, a query parameter or a cookie."""

from __future__ import annotations

import hmac
from types import SimpleNamespace
from typing import Any

import pytest

from a2a_serverless.auth import ApiKey, ApiKeyAuthenticator, InvalidCredentials, RequestView
from a2a_serverless.auth import apikey as apikey_module
from a2a_serverless.models import APIKeySecurityScheme
from a2a_serverless.v03 import card as v03_card

ALICE = "alice-key-0123456789abcdef"
BOT = "bot-key-fedcba9876543210xyz"


def authenticator(**options: Any) -> ApiKeyAuthenticator:
    options.setdefault("keys", {ALICE: "alice", BOT: ApiKey("bot", frozenset({"tasks:read"}))})
    return ApiKeyAuthenticator("apiKey", **options)


def scope_request(headers: list[tuple[bytes, bytes]], query_string: bytes = b"") -> RequestView:
    scope = {"type": "http", "headers": headers, "query_string": query_string}
    return RequestView.from_asgi_scope(scope)


async def test_header() -> None:
    auth = authenticator()
    identity = await auth.authenticate(scope_request([(b"x-api-key", ALICE.encode())]))
    assert identity is not None
    assert (identity.subject, identity.owner) == ("alice", "apiKey:alice")
    assert identity.scopes == frozenset()
    identity = await auth.authenticate(scope_request([(b"X-Api-Key", BOT.encode())]))
    assert identity is not None and identity.scopes == {"tasks:read"}


async def test_query() -> None:
    auth = authenticator(location="query", param_name="api_key")
    request = scope_request([], b"a=1&api_key=" + ALICE.encode() + b"&api_key=other")
    identity = await auth.authenticate(request)
    assert identity is not None and identity.subject == "alice"
    assert await auth.authenticate(scope_request([(b"x-api-key", ALICE.encode())])) is None


async def test_cookie() -> None:
    auth = authenticator(location="cookie", param_name="session_key")
    cookie = f'theme=dark; session_key="{ALICE}"; session_key=shadowed'.encode()
    identity = await auth.authenticate(scope_request([(b"cookie", cookie)]))
    assert identity is not None and identity.subject == "alice"
    assert await auth.authenticate(scope_request([(b"cookie", b"theme=dark")])) is None


async def test_absent_empty_wrong() -> None:
    auth = authenticator()
    assert await auth.authenticate(scope_request([])) is None
    with pytest.raises(InvalidCredentials) as caught:
        await auth.authenticate(scope_request([(b"x-api-key", b"  ")]))
    assert caught.value.error == "invalid_request"
    for wrong in (ALICE[:-1], ALICE + "x", ALICE.upper(), "x" * 5000):
        with pytest.raises(InvalidCredentials, match="not valid"):
            await auth.authenticate(scope_request([(b"x-api-key", wrong.encode())]))


async def test_every_key_is_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    compare = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return compare(a, b)

    monkeypatch.setattr(apikey_module, "hmac", SimpleNamespace(compare_digest=spy))
    auth = authenticator()
    # right key (first entry) and wrong key: the same number of comparisons, all digests
    assert await auth.authenticate(scope_request([(b"x-api-key", ALICE.encode())])) is not None
    assert len(calls) == 2
    with pytest.raises(InvalidCredentials):
        await auth.authenticate(scope_request([(b"x-api-key", b"wrong-key-0123456789")]))
    assert len(calls) == 4
    assert all(len(a) == len(b) == 32 for a, b in calls)  # SHA-256 digests, never raw keys


async def test_lookup_function_sync_and_async() -> None:
    def lookup(key: str) -> str | None:
        return "carol" if key == "carol-key-0123456789" else None

    async def alookup(key: str) -> ApiKey | None:
        return ApiKey("dave", frozenset({"x"})) if key == "dave-key-0123456789" else None

    sync_auth = ApiKeyAuthenticator("apiKey", keys=lookup)
    identity = await sync_auth.authenticate(
        scope_request([(b"x-api-key", b"carol-key-0123456789")])
    )
    assert identity is not None and identity.owner == "apiKey:carol"
    async_auth = ApiKeyAuthenticator("apiKey", keys=alookup, owner_prefix="key")
    identity = await async_auth.authenticate(
        scope_request([(b"x-api-key", b"dave-key-0123456789")])
    )
    assert identity is not None and identity.owner == "key:dave" and identity.scopes == {"x"}
    with pytest.raises(InvalidCredentials):
        await async_auth.authenticate(scope_request([(b"x-api-key", b"nobody-0123456789")]))


def test_scopes_per_subject() -> None:
    auth = ApiKeyAuthenticator("apiKey", keys={ALICE: "alice"}, scopes={"alice": ["a", "b"]})
    assert auth._table[0][1].scopes == {"a", "b"}


def test_configuration_is_checked() -> None:
    with pytest.raises(ValueError, match="no API keys"):
        ApiKeyAuthenticator("apiKey", keys={})
    with pytest.raises(ValueError, match="shorter than 16") as caught:
        ApiKeyAuthenticator("apiKey", keys={"short": "alice"})
    assert "short" not in str(caught.value).replace("shorter", "")
    with pytest.raises(ValueError, match="header, query or cookie"):
        ApiKeyAuthenticator("apiKey", keys={ALICE: "a"}, location="body")  # type: ignore[arg-type]
    with pytest.raises(InvalidCredentials):
        ApiKeyAuthenticator("apiKey", keys={ALICE: "bad\nsubject"})


def test_card_scheme_and_challenge() -> None:
    auth = authenticator(location="cookie", param_name="k", description="Ask us for a key")
    scheme = auth.security_scheme()
    assert isinstance(scheme, APIKeySecurityScheme)
    assert scheme.model_dump() == {
        "name": "k",
        "location": "cookie",
        "description": "Ask us for a key",
    }
    assert v03_card.scheme_of(scheme).model_dump() == {
        "type": "apiKey",
        "name": "k",
        "in": "cookie",
        "description": "Ask us for a key",
    }
    assert auth.challenge() == 'ApiKey realm="a2a", in="cookie", name="k"'
    refused = auth.challenge(InvalidCredentials("the API key is not valid"))
    assert refused.endswith('error="invalid_token", error_description="the API key is not valid"')
