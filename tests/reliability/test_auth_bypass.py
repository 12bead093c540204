"""Authentication bypass attempts over both transports, against a deployment configured with
A2A_AUTH_* settings (RS256 JWTs with a static public key, and an API key).

tests/integration/test_auth_http.py covers missing, malformed, expired, wrong-audience,
wrong-issuer and wrong-signature credentials over both transports; tests/auth/test_bearer.py
covers alg=none and HS256 key confusion on the authenticator alone. Here every attack of
`jwt_attacks.attacks()` goes through the real app, on every route kind (JSON-RPC, REST, the
extended card): each gets 401 with a WWW-Authenticate challenge, the -32000 error over JSON-RPC,
and nothing is created. The good token is accepted, so the refusals are not a broken setup.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from a2a_serverless import agent, skill
from tests.reliability.jwt_attacks import AUTH_SETTINGS, attacks, good_token

API_KEY = "bypass-test-key-0123456789abcdef"
SETTINGS = {**AUTH_SETTINGS, "auth_api_keys": f"{API_KEY}=alice"}
# Names only: the tokens are made when each test runs (made at import, one could expire first).
ATTACK_NAMES = sorted(attacks())


@agent(
    name="Guarded",
    description="Echoes for callers who signed in.",
    extended_skills=[skill("inner", "Inner", "Only for signed-in callers")],
)
def guarded(text: str) -> str:
    return text


@pytest.fixture
async def client(make_client: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(guarded, **SETTINGS) as (client, _app):
        yield client


def message(message_id: str) -> dict[str, Any]:
    return {"role": "user", "messageId": message_id, "parts": [{"kind": "text", "text": "hi"}]}


async def attempt(client: httpx.AsyncClient, route: str, token: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"}
    if route == "jsonrpc":
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send"}
        body["params"] = {"message": message("bypass")}
        return await client.post("/", json=body, headers=headers)
    if route == "jsonrpc-extended-card":
        body = {"jsonrpc": "2.0", "id": 1, "method": "agent/getAuthenticatedExtendedCard"}
        return await client.post("/", json=body, headers=headers)
    if route == "rest":
        rest = {"message": {"messageId": "bypass", "role": "ROLE_USER", "content": [{"text": "x"}]}}
        return await client.post("/v1/message:send", json=rest, headers=headers)
    return await client.get("/v1/card", headers=headers)


ROUTES = ["jsonrpc", "jsonrpc-extended-card", "rest", "rest-extended-card"]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", ATTACK_NAMES)
async def test_attack_is_refused(client: httpx.AsyncClient, route: str, name: str) -> None:
    token = attacks()[name]
    response = await attempt(client, route, token)
    assert response.status_code == 401, (name, response.status_code, response.text)
    assert response.headers.get_list("www-authenticate"), response.headers
    error = response.json()["error"]
    assert error["code"] == -32000 and error["data"]["httpStatus"] == 401, error
    assert token not in response.text
    listed = await client.post(
        "/",
        json={"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": {}},
        headers={"X-API-Key": API_KEY},
    )
    assert listed.json()["result"]["tasks"] == []


@pytest.mark.parametrize("route", ROUTES)
async def test_the_good_token_is_accepted(client: httpx.AsyncClient, route: str) -> None:
    response = await attempt(client, route, good_token())
    assert response.status_code == 200, response.text
    assert "error" not in response.json(), response.text
