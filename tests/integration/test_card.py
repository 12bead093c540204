"""The agent card: served at both well-known paths, built from the agent definition, truthful
capabilities, and a `url` that is where a client can actually reach the JSON-RPC endpoint.

Spec references: §5.3 (location `/.well-known/agent-card.json`), §5.5 (AgentCard fields),
§5.6 (`url` is the primary endpoint and MUST support `preferredTransport`; additionalInterfaces
SHOULD include the main url/transport), topics/streaming-and-async.md ("The A2A Server must
indicate its support for streaming by setting `capabilities.streaming: true`").
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from a2a.types import AgentCard as SdkAgentCard

from a2a_serverless import agent, skill
from a2a_serverless.models import AgentProvider
from tests.integration.jsonrpc_agents import JSON_HEADERS, error_of, request, user_message

CARD_PATHS = ["/.well-known/agent-card.json", "/.well-known/agent.json"]
FAST = {"blocking_timeout_s": 5.0, "poll_interval_s": 0.02, "stream_timeout_s": 5.0}


@agent(
    name="Card Agent",
    description="An agent whose card is under test.",
    version="2.3.4",
    skills=[
        skill(
            "summarize",
            "Summarize",
            "Summarizes a text.",
            tags=["text", "summary"],
            examples=["Summarize this article"],
            input_modes=["text/plain"],
            output_modes=["application/json"],
        ),
        skill("translate", tags=["text"]),
    ],
    input_modes=["text/plain", "application/json"],
    output_modes=["application/json"],
    provider=AgentProvider(organization="Example Org", url="https://example.org"),
    documentation_url="https://example.org/docs",
    icon_url="https://example.org/icon.png",
)
async def card_agent(text: str) -> str:
    return text


async def get_card(
    client: httpx.AsyncClient, path: str = CARD_PATHS[0], headers: dict[str, str] | None = None
) -> dict[str, Any]:
    response = await client.get(path, headers=headers or {})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].split(";")[0].strip() == "application/json"
    card: dict[str, Any] = response.json()
    return card


def base(url: str) -> str:
    """A card url without the trailing slash of a root endpoint."""
    return url.rstrip("/")


@pytest.mark.parametrize("path", CARD_PATHS)
async def test_card_fields_come_from_the_agent_definition(make_client: Any, path: str) -> None:
    async with make_client(card_agent, **FAST) as (client, _app):
        card = await get_card(client, path)
    assert card["name"] == "Card Agent"
    assert card["description"] == "An agent whose card is under test."
    assert card["version"] == "2.3.4"
    assert card["protocolVersion"] == "0.3.0"
    assert card["defaultInputModes"] == ["text/plain", "application/json"]
    assert card["defaultOutputModes"] == ["application/json"]
    assert card["provider"] == {"organization": "Example Org", "url": "https://example.org"}
    assert card["documentationUrl"] == "https://example.org/docs"
    assert card["iconUrl"] == "https://example.org/icon.png"
    assert card["skills"] == [
        {
            "id": "summarize",
            "name": "Summarize",
            "description": "Summarizes a text.",
            "tags": ["text", "summary"],
            "examples": ["Summarize this article"],
            "inputModes": ["text/plain"],
            "outputModes": ["application/json"],
        },
        {"id": "translate", "name": "translate", "description": "translate", "tags": ["text"]},
    ]
    # §5.6.1: preferredTransport is required and matches what the main url serves.
    assert card["preferredTransport"] == "JSONRPC"
    assert base(card["url"]) == "http://testserver"
    # §5.6.2/§5.6.4: additionalInterfaces includes the main url with its transport, no conflicts.
    assert {"transport": "JSONRPC", "url": card["url"]} in card["additionalInterfaces"]
    for interface in card["additionalInterfaces"]:
        if interface["url"] == card["url"]:
            assert interface["transport"] == "JSONRPC"
    # No authenticated extended card is configured (agent/getAuthenticatedExtendedCard: -32007).
    assert card.get("supportsAuthenticatedExtendedCard", False) is False
    # The official SDK accepts it.
    SdkAgentCard.model_validate(card)


async def test_both_well_known_paths_serve_the_same_card(make_client: Any) -> None:
    async with make_client(card_agent, **FAST) as (client, _app):
        cards = [await get_card(client, path) for path in CARD_PATHS]
    assert cards[0] == cards[1]


@pytest.mark.parametrize("streaming", [True, False])
@pytest.mark.parametrize("push", [True, False])
async def test_capabilities_are_truthful(make_client: Any, streaming: bool, push: bool) -> None:
    settings = {**FAST, "streaming": streaming}
    async with make_client(card_agent, push_notifications=push, **settings) as (client, _app):
        card = await get_card(client)
        capabilities = card["capabilities"]
        assert capabilities.get("streaming", False) is streaming
        assert capabilities.get("pushNotifications", False) is push

        # ...and the server behaves as the card says.
        params = {"message": user_message("hi")}
        response = await client.post(
            "/", content=json.dumps(request("message/stream", params, 1)), headers=JSON_HEADERS
        )
        if streaming:
            assert response.headers["content-type"].startswith("text/event-stream")
            first = json.loads(response.text.split("data:", 1)[1].split("\n", 1)[0])
            assert first["result"]["kind"] == "task"
        else:
            # Spec 1.0 §3.3.4: a card without streaming refuses streams (it once served a
            # buffered body; that is now `buffered_streams`, test_buffered_streams.py).
            assert error_of(response)["error"]["code"] == -32004

        set_params = {
            "taskId": "nothing",
            "pushNotificationConfig": {"url": "https://h.example/hook"},
        }
        response = await client.post(
            "/",
            content=json.dumps(request("tasks/pushNotificationConfig/set", set_params, 2)),
            headers=JSON_HEADERS,
        )
        expected_code = -32001 if push else -32003
        assert response.json()["error"]["code"] == expected_code


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"host": "agents.example.com"}, "http://agents.example.com"),
        ({"host": "agents.example.com:8443"}, "http://agents.example.com:8443"),
        (
            {"host": "agents.example.com", "x-forwarded-proto": "https"},
            "https://agents.example.com",
        ),
        (
            {"host": "10.0.0.7:8080", "x-forwarded-proto": "https", "x-forwarded-host": "pub.io"},
            "https://pub.io",
        ),
        (
            {
                "host": "10.0.0.7:8080",
                "x-forwarded-proto": "https, http",
                "x-forwarded-host": "pub.io:444, 10.0.0.7:8080",
            },
            "https://pub.io:444",
        ),
        (
            {
                "host": "10.0.0.7:8080",
                "x-forwarded-proto": "https",
                "x-forwarded-host": "pub.io",
                "x-forwarded-prefix": "/team/agent/",
            },
            "https://pub.io/team/agent",
        ),
        ({"host": "0.0.0.0:8000"}, "http://127.0.0.1:8000"),
        ({"host": "0.0.0.0"}, "http://127.0.0.1"),
        ({"host": "[::]:8000"}, "http://127.0.0.1:8000"),
        ({"host": "example.net", "x-forwarded-host": "0.0.0.0:9000"}, "http://127.0.0.1:9000"),
    ],
    ids=[
        "host",
        "host-port",
        "forwarded-proto",
        "forwarded-host",
        "forwarded-lists",
        "forwarded-prefix",
        "wildcard-v4-port",
        "wildcard-v4",
        "wildcard-v6",
        "forwarded-wildcard",
    ],
)
async def test_url_is_derived_from_the_request(
    make_client: Any, headers: dict[str, str], expected: str
) -> None:
    # The test client connects from 127.0.0.1: the proxy whose X-Forwarded-* are believed.
    async with make_client(card_agent, trusted_proxies="127.0.0.1", **FAST) as (client, _app):
        card = await get_card(client, headers=headers)
    assert base(card["url"]) == expected
    assert "0.0.0.0" not in card["url"] and "[::]" not in card["url"]
    assert card["additionalInterfaces"] == [
        {"transport": "JSONRPC", "url": card["url"]},
        {"transport": "HTTP+JSON", "url": card["url"].rstrip("/")},
    ]


@pytest.mark.parametrize("root_path", ["/mount", "/deep/mount"])
async def test_url_follows_the_asgi_root_path(make_client: Any, root_path: str) -> None:
    async with make_client(card_agent, **FAST) as (_plain, app):
        transport = httpx.ASGITransport(app=app, root_path=root_path)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            card = await get_card(client, f"{root_path}/.well-known/agent-card.json")
            assert base(card["url"]) == f"http://testserver{root_path}"
            # The url is where the JSON-RPC endpoint is: a request sent there is served.
            params = {"message": user_message("via the card url")}
            response = await client.post(
                card["url"],
                content=json.dumps(request("message/send", params, "c-1")),
                headers=JSON_HEADERS,
            )
            assert response.status_code == 200, response.text
            assert response.json()["result"]["status"]["state"] == "completed"


async def test_configured_public_url_wins(make_client: Any) -> None:
    public = "https://agents.example.com/prod/echo"
    async with make_client(card_agent, public_url=public, **FAST) as (_plain, app):
        transport = httpx.ASGITransport(app=app, root_path="/mount")
        async with httpx.AsyncClient(transport=transport, base_url="http://0.0.0.0:8000") as client:
            card = await get_card(
                client,
                "/mount/.well-known/agent-card.json",
                headers={
                    "x-forwarded-proto": "http",
                    "x-forwarded-host": "internal.lb",
                    "x-forwarded-prefix": "/other",
                },
            )
    assert base(card["url"]) == public
    assert card["additionalInterfaces"] == [
        {"transport": "JSONRPC", "url": card["url"]},
        {"transport": "HTTP+JSON", "url": card["url"].rstrip("/")},
    ]


async def test_public_url_with_trailing_slash(make_client: Any) -> None:
    async with make_client(card_agent, public_url="https://a.example.com/", **FAST) as (client, _):
        card = await get_card(client)
    assert base(card["url"]) == "https://a.example.com"
    assert "//" not in card["url"].removeprefix("https://")


async def test_url_includes_a_configured_rpc_path(make_client: Any) -> None:
    async with make_client(card_agent, rpc_path="/rpc", **FAST) as (client, _app):
        card = await get_card(client, headers={"host": "agents.example.com"})
        assert card["url"] == "http://agents.example.com/rpc"
        params = {"message": user_message("hi")}
        response = await client.post(
            "/rpc", content=json.dumps(request("message/send", params, 1)), headers=JSON_HEADERS
        )
        assert response.json()["result"]["kind"] == "task"


async def test_different_hosts_get_their_own_url(make_client: Any) -> None:
    # The card is cached per url: one host's card must never be served to another.
    async with make_client(card_agent, **FAST) as (client, _app):
        first = await get_card(client, headers={"host": "one.example.com"})
        second = await get_card(client, headers={"host": "two.example.com"})
        again = await get_card(client, headers={"host": "one.example.com"})
    assert base(first["url"]) == "http://one.example.com"
    assert base(second["url"]) == "http://two.example.com"
    assert again == first
