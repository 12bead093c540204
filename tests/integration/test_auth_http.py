"""Authentication and tenancy over both transports, configured the way a deployment is
(A2A_AUTH_* settings): 401 + WWW-Authenticate, owners, the extended card."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from a2a_serverless import Context, DirectContext, agent, skill

ALICE_KEY = "alice-key-0123456789abcdef"
BOB_KEY = "bob-key-0123456789abcdef00"
ISSUER = "https://issuer.example.com"
AUDIENCE = "https://agent.example.com"
SIGNING = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PUBLIC_PEM = (
    SIGNING.public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode()
)
AUTH = {
    "auth_api_keys": f"{ALICE_KEY}=alice,{BOB_KEY}=bob",
    "auth_jwt_issuer": ISSUER,
    "auth_jwt_audience": AUDIENCE,
    "auth_jwt_keys": PUBLIC_PEM,
}


@agent(
    name="Guarded",
    description="Echoes, for authenticated callers.",
    extended_skills=[skill("secret", "Secret", "Only for callers who signed in")],
)
def guarded(text: str) -> str:
    return text


def token(key: Any = SIGNING, **overrides: Any) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "carol", "iat": now, "exp": now + 300}
    claims.update(overrides)
    return jwt.encode(claims, key, algorithm="RS256")


def key(value: str) -> dict[str, str]:
    return {"X-API-Key": value}


def rpc(method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        body["params"] = params
    return body


def message(text: str, message_id: str) -> dict[str, Any]:
    return {"role": "user", "messageId": message_id, "parts": [{"kind": "text", "text": text}]}


async def send_jsonrpc(client: Any, headers: dict[str, str], message_id: str) -> Any:
    return await client.post(
        "/", json=rpc("message/send", {"message": message("hi", message_id)}), headers=headers
    )


async def send_rest(client: Any, headers: dict[str, str], message_id: str) -> Any:
    body = {
        "message": {"messageId": message_id, "role": "ROLE_USER", "content": [{"text": "hi"}]},
        "configuration": {"blocking": True},
    }
    return await client.post("/v1/message:send", json=body, headers=headers)


SENDERS = {"jsonrpc": send_jsonrpc, "rest": send_rest}


async def test_card_stays_public_and_declares_the_schemes(make_client: Any) -> None:
    async with make_client(guarded, **AUTH) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert set(card["securitySchemes"]) == {"apiKey", "bearer"}
        api_key = card["securitySchemes"]["apiKey"]
        # v0.3's members, and v1.0's oneof form of the same scheme beside them.
        v1_form = api_key.pop("apiKeySecurityScheme")
        assert api_key == {"type": "apiKey", "name": "X-API-Key", "in": "header"}
        assert v1_form == {"name": "X-API-Key", "location": "header"}
        assert card["securitySchemes"]["bearer"]["scheme"].lower() == "bearer"
        assert card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "bearer"
        assert {frozenset(r) for r in card["security"]} == {
            frozenset({"apiKey"}),
            frozenset({"bearer"}),
        }
        assert card["securityRequirements"] == [
            {"schemes": {name: {"list": []}}} for r in card["security"] for name in r
        ]
        assert card["supportsAuthenticatedExtendedCard"] is True
        assert card["capabilities"]["extendedAgentCard"] is True
        assert [s["id"] for s in card["skills"]] == ["guarded"]  # the extended skill stays hidden


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])
@pytest.mark.parametrize(
    "headers",
    [
        {},
        key("wrong-key-0123456789abcdef"),
        {"Authorization": "Bearer not.a.jwt"},
        {"Authorization": f"Bearer {token(exp=int(time.time()) - 3600)}"},
        {"Authorization": f"Bearer {token(aud='https://someone-else.example.com')}"},
        {"Authorization": f"Bearer {token(key=OTHER)}"},
        {"Authorization": f"Bearer {token(iss='https://evil.example.com')}"},
    ],
    ids=[
        "missing",
        "bad-key",
        "malformed",
        "expired",
        "wrong-audience",
        "wrong-signature",
        "wrong-issuer",
    ],
)
async def test_bad_or_missing_credentials_get_401_with_a_challenge(
    make_client: Any, transport: str, headers: dict[str, str]
) -> None:
    async with make_client(guarded, **AUTH) as (client, _app):
        response = await SENDERS[transport](client, headers, "m-denied")
        assert response.status_code == 401
        assert response.headers.get_list("www-authenticate")
        error = response.json()["error"]
        assert error["code"] == -32000 and error["data"]["httpStatus"] == 401
        secrets = [ALICE_KEY, BOB_KEY, *headers.values()]
        assert not [secret for secret in secrets if secret in response.text]
        listed = await client.post("/", json=rpc("tasks/list", {}), headers=key(ALICE_KEY))
        assert listed.json()["result"]["tasks"] == []  # nothing was created


@pytest.mark.parametrize("transport", ["jsonrpc", "rest"])
@pytest.mark.parametrize("credentials", ["api-key", "bearer"])
async def test_good_credentials_are_accepted(
    make_client: Any, transport: str, credentials: str
) -> None:
    # Minted when the test runs: a token made at collection could expire before its turn.
    headers = key(ALICE_KEY) if credentials == "api-key" else {"Authorization": f"Bearer {token()}"}
    async with make_client(guarded, **AUTH) as (client, _app):
        response = await SENDERS[transport](client, headers, "m-ok")
        assert response.status_code == 200, response.text


async def test_tasks_are_owned_by_their_creator_over_both_transports(make_client: Any) -> None:
    async with make_client(guarded, **AUTH) as (client, app):
        alice, bob = key(ALICE_KEY), key(BOB_KEY)
        created = await send_jsonrpc(client, alice, "m-alice")
        task_id = created.json()["result"]["id"]
        record = await app.runtime.store.get_task(task_id)
        assert record.owner == "apiKey:alice"

        # JSON-RPC: Bob sees nothing of Alice's task, exactly as if it did not exist.
        push = {"url": "http://127.0.0.1:9/hook"}
        for method, params in [
            ("tasks/get", {"id": task_id}),
            ("tasks/cancel", {"id": task_id}),
            (
                "tasks/pushNotificationConfig/set",
                {"taskId": task_id, "pushNotificationConfig": push},
            ),
            ("tasks/pushNotificationConfig/get", {"id": task_id}),
            ("tasks/pushNotificationConfig/list", {"id": task_id}),
            (
                "tasks/pushNotificationConfig/delete",
                {"id": task_id, "pushNotificationConfigId": task_id},
            ),
            ("message/send", {"message": message("hi", "m-bob") | {"taskId": task_id}}),
        ]:
            reply = (await client.post("/", json=rpc(method, params), headers=bob)).json()
            assert reply["error"]["code"] == -32001, (method, reply)
        assert (await client.post("/", json=rpc("tasks/list", {}), headers=bob)).json()["result"][
            "tasks"
        ] == []
        async with client.stream(
            "POST", "/", json=rpc("tasks/resubscribe", {"id": task_id}), headers=bob
        ) as r:
            text = "".join([line async for line in r.aiter_lines()])
        assert "-32001" in text and task_id not in text.replace(f'"taskId":"{task_id}"', "")

        # REST: the same, as 404s.
        for verb, path, body in [
            ("GET", f"/v1/tasks/{task_id}", None),
            ("POST", f"/v1/tasks/{task_id}:cancel", {}),
            ("POST", f"/v1/tasks/{task_id}:subscribe", {}),
            ("GET", f"/v1/tasks/{task_id}/pushNotificationConfigs", None),
            (
                "POST",
                f"/v1/tasks/{task_id}/pushNotificationConfigs",
                {
                    "name": f"tasks/{task_id}/pushNotificationConfigs/x",
                    "pushNotificationConfig": push,
                },
            ),
        ]:
            response = await client.request(verb, path, json=body, headers=bob)
            assert response.status_code == 404, (verb, path, response.text)
        assert (await client.get("/v1/tasks", headers=bob)).json()["tasks"] == []

        # Alice still has it, untouched.
        mine = (
            await client.post("/", json=rpc("tasks/get", {"id": task_id}), headers=alice)
        ).json()
        assert mine["result"]["status"]["state"] == "completed"


async def test_extended_card_is_served_only_to_authenticated_callers(make_client: Any) -> None:
    async with make_client(guarded, **AUTH) as (client, _app):
        anonymous = await client.post("/", json=rpc("agent/getAuthenticatedExtendedCard"))
        assert anonymous.status_code == 401
        card = (
            await client.post(
                "/", json=rpc("agent/getAuthenticatedExtendedCard"), headers=key(ALICE_KEY)
            )
        ).json()
        assert [s["id"] for s in card["result"]["skills"]] == ["guarded", "secret"]
        rest_card = await client.get("/v1/card", headers=key(ALICE_KEY))
        assert [s["id"] for s in rest_card.json()["skills"]] == ["guarded", "secret"]
        assert (await client.get("/v1/card")).status_code == 401


async def test_without_auth_the_extended_card_is_not_configured(make_client: Any) -> None:
    async with make_client(guarded) as (client, _app):
        reply = (await client.post("/", json=rpc("agent/getAuthenticatedExtendedCard"))).json()
        assert reply["error"]["code"] == -32007
        card = (await client.get("/.well-known/agent-card.json")).json()
        assert "supportsAuthenticatedExtendedCard" not in card and "securitySchemes" not in card


async def test_the_card_can_be_protected_too(make_client: Any) -> None:
    async with make_client(guarded, auth_public_card=False, **AUTH) as (client, _app):
        assert (await client.get("/.well-known/agent-card.json")).status_code == 401
        assert (
            await client.get("/.well-known/agent-card.json", headers=key(BOB_KEY))
        ).status_code == 200


def whose(context: DirectContext) -> Any:
    """Answers "direct" messages at once; leaves the rest to a task."""
    return f"direct {context.context_id}" if context.text == "direct" else None


@agent(name="Sessions", description="Says whose turn it runs.", direct=whose)
def sessions(ctx: Context) -> str:
    return f"{ctx.owner}|{ctx.context_id}"


async def send_in_context(
    client: Any, headers: dict[str, str], transport: str, context_id: str, text: str = "hi"
) -> Any:
    """A message naming `context_id`, in each transport and version's own form."""
    message_id = f"m-{transport}-{text}-{context_id}-{sorted(headers.values())[0][:5]}"
    if transport in ("jsonrpc", "jsonrpc-1.0"):
        wire = message(text, message_id) | {"contextId": context_id}
        version = {"A2A-Version": "1.0"} if transport == "jsonrpc-1.0" else {}
        method = "SendMessage" if version else "message/send"
        if version:
            wire = {
                "messageId": message_id,
                "role": "ROLE_USER",
                "parts": [{"text": text}],
                "contextId": context_id,
            }
        return await client.post(
            "/", json=rpc(method, {"message": wire}), headers={**headers, **version}
        )
    rest = {"messageId": message_id, "role": "ROLE_USER", "contextId": context_id}
    if transport == "rest":
        body = {
            "message": rest | {"content": [{"text": text}]},
            "configuration": {"blocking": True},
        }
        return await client.post("/v1/message:send", json=body, headers=headers)
    body = {"message": rest | {"parts": [{"text": text}]}}
    return await client.post("/message:send", json=body, headers={**headers, "A2A-Version": "1.0"})


@pytest.mark.parametrize("transport", ["jsonrpc", "jsonrpc-1.0", "rest", "rest-1.0"])
async def test_a_context_is_its_first_owners_and_refused_to_others(
    make_client: Any, transport: str
) -> None:
    # Issue 31: any caller could name any contextId, so executors keying sessions on the
    # context ran Bob's message in Alice's conversation.
    async with make_client(sessions, **AUTH) as (client, app):
        alice, bob = key(ALICE_KEY), key(BOB_KEY)
        first = await send_in_context(client, alice, transport, "ctx-shared")
        assert first.status_code == 200, first.text
        assert "apiKey:alice|ctx-shared" in first.text, "the agent sees whose task it runs"

        for text in ("hi", "direct"):
            refused = await send_in_context(client, bob, transport, "ctx-shared", text)
            body = refused.json()
            if transport.startswith("jsonrpc"):
                assert body["error"]["code"] == -32602, body
            else:
                assert refused.status_code == 400, refused.text
            assert "ctx-shared" in refused.text and "another caller" in refused.text
        listed = await client.post("/", json=rpc("tasks/list", {}), headers=bob)
        assert listed.json()["result"]["tasks"] == [], "nothing stored for Bob"

        # Alice goes on in her context; a context Bob starts is his, and refused to Alice.
        again = await send_in_context(client, alice, transport, "ctx-shared", "again")
        assert "apiKey:alice|ctx-shared" in again.text, again.text
        assert (await send_in_context(client, bob, transport, "ctx-bob")).status_code == 200
        refused = await send_in_context(client, alice, transport, "ctx-bob")
        assert "another caller" in refused.text, refused.text

        # A context the server makes up is its caller's too.
        made = await send_jsonrpc(client, alice, f"m-made-{transport}")
        context_id = made.json()["result"]["contextId"]
        taken = await send_in_context(client, bob, transport, context_id)
        assert "another caller" in taken.text, taken.text
        record = await app.runtime.store.get_task(made.json()["result"]["id"])
        assert record.owner == "apiKey:alice"


async def test_anonymous_deployments_share_their_contexts(make_client: Any) -> None:
    async with make_client(sessions) as (client, _app):
        for attempt in ("one", "two"):
            sent = await send_in_context(client, {"x-try": attempt}, "jsonrpc", "ctx-any")
            assert "None|ctx-any" in sent.text, sent.text
