"""Per-skill authorization by scopes, over both transports (skills.py has the rules).

The spec's enterprise guidance: "specific OAuth scopes should grant an authenticated client
access to invoke certain skills but not others". A message names its skill in
`metadata.skillId`; a skill's `security` on the card says which scopes it needs.
"""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from a2a_serverless import Context, InputRequired, agent, skill

API_KEY = "bot-key-0123456789abcdef0000"
ISSUER = "https://issuer.example.com"
AUDIENCE = "https://agent.example.com"
SIGNING = rsa.generate_private_key(public_exponent=65537, key_size=2048)
AUTH = {
    "auth_api_keys": f"{API_KEY}=bot",
    "auth_jwt_issuer": ISSUER,
    "auth_jwt_audience": AUDIENCE,
    "auth_jwt_keys": SIGNING.public_key()
    .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    .decode(),
    "blocking_timeout_s": 5.0,
    "poll_interval_s": 0.02,
}


@agent(
    name="Reports",
    description="Reads reports for anyone, writes them for editors.",
    skills=[
        skill("read", "Read a report"),
        skill("write", "Write a report", security=[{"bearer": ["reports:write"]}]),
    ],
)
def reports(ctx: Context) -> str:
    if ctx.text == "ask" and len(ctx.history) == 1:
        raise InputRequired("which report?")
    return f"{ctx.skill_id}:{ctx.text}"


def bearer(*scopes: str) -> dict[str, str]:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "erin", "iat": now, "exp": now + 300}
    if scopes:
        claims["scope"] = " ".join(scopes)
    return {"Authorization": f"Bearer {jwt.encode(claims, SIGNING, algorithm='RS256')}"}


API = {"X-API-Key": API_KEY}
_counter = 0


def _next_id() -> str:
    global _counter
    _counter += 1
    return f"m-{_counter}"


async def send_jsonrpc(
    client: Any, headers: dict[str, str], text: str, metadata: Any, task_id: str | None
) -> tuple[int, dict[str, Any]]:
    msg: dict[str, Any] = {
        "role": "user",
        "messageId": _next_id(),
        "parts": [{"kind": "text", "text": text}],
    }
    if metadata is not None:
        msg["metadata"] = metadata
    if task_id:
        msg["taskId"] = task_id
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": msg}}
    response = await client.post("/", json=body, headers=headers)
    data = response.json()
    if "error" in data:
        return response.status_code, {"code": data["error"]["code"], **data["error"]}
    task = data["result"]
    state = task["status"]["state"]
    text_out = task["artifacts"][0]["parts"][0]["text"] if task.get("artifacts") else None
    return response.status_code, {"id": task["id"], "state": state, "text": text_out}


async def send_rest(
    client: Any, headers: dict[str, str], text: str, metadata: Any, task_id: str | None
) -> tuple[int, dict[str, Any]]:
    msg: dict[str, Any] = {
        "messageId": _next_id(),
        "role": "ROLE_USER",
        "content": [{"text": text}],
    }
    if metadata is not None:
        msg["metadata"] = metadata
    if task_id:
        msg["taskId"] = task_id
    body = {"message": msg, "configuration": {"blocking": True}}
    response = await client.post("/v1/message:send", json=body, headers=headers)
    data = response.json()
    if "error" in data:
        return response.status_code, data["error"]
    task = data["task"]
    state = {
        "TASK_STATE_COMPLETED": "completed",
        "TASK_STATE_INPUT_REQUIRED": "input-required",
    }[task["status"]["state"]]
    text_out = task["artifacts"][0]["parts"][0]["text"] if task.get("artifacts") else None
    return response.status_code, {"id": task["id"], "state": state, "text": text_out}


SENDERS = {"jsonrpc": send_jsonrpc, "rest": send_rest}
OK = {"jsonrpc": 200, "rest": 200}


@pytest.fixture(params=sorted(SENDERS))
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_card_declares_the_skill_requirements(make_client: Any) -> None:
    async with make_client(reports, dev_mode=False, **AUTH) as (client, _app):
        card = (await client.get("/.well-known/agent-card.json")).json()
    skills = {s["id"]: s for s in card["skills"]}
    assert skills["write"]["security"] == [{"bearer": ["reports:write"]}]
    assert "security" not in skills["read"]


async def test_a_caller_with_the_scope_may_use_the_skill(make_client: Any, transport: str) -> None:
    send = SENDERS[transport]
    async with make_client(reports, dev_mode=False, **AUTH) as (client, _app):
        status, task = await send(client, bearer("reports:write"), "q1", {"skillId": "write"}, None)
        assert (status, task["state"], task["text"]) == (200, "completed", "write:q1")
        status, task = await send(client, API, "q2", {"skillId": "read"}, None)
        assert (status, task["state"], task["text"]) == (200, "completed", "read:q2")


@pytest.mark.parametrize("who", ["bearer-without-scope", "api-key"])
async def test_a_caller_without_the_scope_gets_403_and_nothing_is_stored(
    make_client: Any, transport: str, who: str
) -> None:
    send = SENDERS[transport]
    headers = bearer("reports:read") if who == "bearer-without-scope" else API
    async with make_client(reports, dev_mode=False, **AUTH) as (client, _app):
        status, error = await send(client, headers, "q", {"skillId": "write"}, None)
        assert status == 403
        assert error["code"] == -32000
        assert error["data"]["skillId"] == "write"
        assert error["data"]["error"] == "forbidden"
        assert "reports:write" in error["message"]
        listed = await client.post(
            "/", json={"jsonrpc": "2.0", "id": 9, "method": "tasks/list"}, headers=headers
        )
        assert listed.json()["result"]["tasks"] == []


async def test_a_message_naming_no_skill_is_for_the_default_skill(
    make_client: Any, transport: str
) -> None:
    send = SENDERS[transport]
    async with make_client(reports, dev_mode=False, **AUTH) as (client, _app):
        status, task = await send(client, API, "q", None, None)
    assert (status, task["text"]) == (200, "read:q")


@pytest.mark.parametrize(
    ("metadata", "fragment"),
    [
        ({"skillId": "delete"}, "Unknown skill"),
        ({"skillId": 7}, ""),
    ],
)
async def test_an_unknown_or_malformed_skill_is_invalid_params(
    make_client: Any, transport: str, metadata: Any, fragment: str
) -> None:
    send = SENDERS[transport]
    async with make_client(reports, dev_mode=False, **AUTH) as (client, _app):
        status, error = await send(client, bearer("reports:write"), "q", metadata, None)
    assert error["code"] == -32602
    assert status == (200 if transport == "jsonrpc" else 400)
    assert fragment in error["message"]


async def test_params_and_message_metadata_must_agree(make_client: Any) -> None:
    async with make_client(reports, dev_mode=False, **AUTH) as (client, _app):
        msg = {
            "role": "user",
            "messageId": _next_id(),
            "parts": [{"kind": "text", "text": "q"}],
            "metadata": {"skillId": "read"},
        }
        params = {"message": msg, "metadata": {"skillId": "write"}}
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}
        response = await client.post("/", json=body, headers=bearer("reports:write"))
        assert response.json()["error"]["code"] == -32602
        params["metadata"] = {"skillId": "read"}
        response = await client.post("/", json=body, headers=bearer("reports:write"))
        assert response.json()["result"]["status"]["state"] == "completed"


async def test_a_continuing_message_keeps_the_task_skill_and_its_check(
    make_client: Any, transport: str
) -> None:
    send = SENDERS[transport]
    async with make_client(reports, dev_mode=False, **AUTH) as (client, _app):
        status, task = await send(
            client, bearer("reports:write"), "ask", {"skillId": "write"}, None
        )
        assert task["state"] == "input-required"
        # Same owner (sub "erin"), but a token that lost the scope: refused.
        status, error = await send(client, bearer(), "annual", None, task["id"])
        assert status == 403 and error["data"]["skillId"] == "write"
        status, done = await send(client, bearer("reports:write"), "annual", None, task["id"])
        assert (done["state"], done["text"]) == ("completed", "write:annual")


async def test_a_single_skill_agent_implies_its_skill(make_client: Any) -> None:
    @agent(
        name="Editor",
        description="Writes only.",
        skills=[skill("write", "Write", security=[{"bearer": ["reports:write"]}])],
    )
    def editor(ctx: Context) -> str:
        return f"{ctx.skill_id}:{ctx.text}"

    async with make_client(editor, dev_mode=False, **AUTH) as (client, _app):
        status, task = await send_jsonrpc(client, bearer("reports:write"), "x", None, None)
        assert task["text"] == "write:x"
        status, error = await send_jsonrpc(client, API, "x", None, None)
        assert status == 403 and error["code"] == -32000
