"""The wiring the app does, end to end over ASGI (httpx's ASGI transport): authenticate from the
scope, answer 401 / 403 / 503 with the errors' status and headers, pass the owner on."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import httpx

from a2a_serverless.auth import (
    ApiKeyAuthenticator,
    AuthError,
    BearerJWTAuthenticator,
    RequestView,
    Security,
)

from .support import AUDIENCE, ISSUER, Keys, mint

KEY = "alice-key-0123456789abcdef"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def make_app(security: Security) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        view = RequestView.from_asgi_scope(scope)
        try:
            identity = await security.authenticate(view)
        except AuthError as error:
            body = json.dumps(error.jsonrpc_body(None)).encode()
            headers = [(b"content-type", b"application/json"), *error.headers()]
            await send({"type": "http.response.start", "status": error.status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        body = json.dumps({"owner": identity.owner, "scopes": sorted(identity.scopes)}).encode()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    return app


async def test_over_asgi(keys: Keys) -> None:
    security = Security(
        [
            ApiKeyAuthenticator("apiKey", keys={KEY: "alice"}, location="query", param_name="key"),
            BearerJWTAuthenticator(
                "bearer",
                issuer=ISSUER,
                audience=AUDIENCE,
                static_keys={"keys": [keys.rsa.jwk("k1")]},
            ),
        ],
        [{"apiKey": []}, {"bearer": ["a2a:invoke"]}],
    )
    transport = httpx.ASGITransport(app=make_app(security))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent") as client:
        missing = await client.post("/")
        assert missing.status_code == 401
        assert missing.headers.get_list("www-authenticate") == [
            'ApiKey realm="a2a", in="query", name="key"',
            'Bearer realm="a2a"',
        ]
        assert missing.json() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32000,
                "message": "credentials are required: apiKey or bearer[a2a:invoke]",
                "data": {"httpStatus": 401, "error": "unauthorized"},
            },
        }

        expired = await client.post(
            "/", headers={"authorization": f"Bearer {mint(keys.rsa, exp=1)}"}
        )
        assert expired.status_code == 401
        assert 'error="invalid_token"' in expired.headers.get_list("www-authenticate")[1]

        by_key = await client.post("/", params={"key": KEY})
        assert by_key.status_code == 200 and by_key.json()["owner"] == "apiKey:alice"

        token = mint(keys.rsa, sub="bob")
        by_token = await client.post("/", headers={"authorization": f"Bearer {token}"})
        assert by_token.json() == {"owner": "bearer:bob", "scopes": ["a2a:invoke", "tasks:read"]}

        narrow = mint(keys.rsa, scope="tasks:read")
        forbidden = await client.post("/", headers={"authorization": f"Bearer {narrow}"})
        assert forbidden.status_code == 403
        assert 'error="insufficient_scope"' in forbidden.headers["www-authenticate"]
        assert forbidden.json()["error"]["data"]["error"] == "forbidden"
