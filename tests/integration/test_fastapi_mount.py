"""The A2A app mounts inside a FastAPI application like any ASGI app; `mount_agent` puts an
agent there with its card's URLs under the prefix (from the public URL, a trusted proxy's
headers or the request), the card at the root well-known path too, and its runtime in the
app's lifespan."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import fastapi
import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from a2a_serverless import Settings, agent, create_app
from a2a_serverless.fastapi import agent_mounts, mount_agent, mounted


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text


async def test_mounted_under_a_path_serves_card_and_jsonrpc() -> None:
    a2a_app = create_app(echo, Settings(store_url="memory://"))
    api = FastAPI()

    @api.get("/other")
    def other() -> dict[str, str]:
        return {"app": "fastapi"}

    api.mount("/agents/echo", a2a_app)
    transport = httpx.ASGITransport(app=api)
    async with httpx.AsyncClient(transport=transport, base_url="http://example.test") as client:
        assert (await client.get("/other")).json() == {"app": "fastapi"}
        card = (await client.get("/agents/echo/.well-known/agent-card.json")).json()
        assert card["url"] == "http://example.test/agents/echo/"
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {
                "message": {
                    "role": "user",
                    "messageId": "m1",
                    "parts": [{"kind": "text", "text": "hi"}],
                }
            },
        }
        reply = (await client.post("/agents/echo/", json=body)).json()
        assert reply["result"]["status"]["state"] == "completed"
        assert reply["result"]["artifacts"][0]["parts"][0]["text"] == "hi"
    await a2a_app.runtime.aclose()


def card_urls(card: dict[str, object]) -> set[str]:
    interfaces = card["additionalInterfaces"]
    assert isinstance(interfaces, list)
    return {str(card["url"]), *(str(i["url"]) for i in interfaces)}


async def test_mount_agent_adds_the_prefix_to_the_public_url() -> None:
    api = FastAPI()
    mount_agent(
        api,
        echo,
        prefix="/a2a/",
        settings=Settings(store_url="memory://", public_url="https://api.example.com/"),
    )
    transport = httpx.ASGITransport(app=api)
    async with httpx.AsyncClient(transport=transport, base_url="http://internal") as client:
        card = (await client.get("/a2a/.well-known/agent-card.json")).json()
    assert card_urls(card) == {"https://api.example.com/a2a/", "https://api.example.com/a2a"}


async def test_a_trusted_proxys_prefix_comes_before_the_mounts() -> None:
    api = FastAPI()
    settings = Settings(store_url="memory://", trusted_proxies="127.0.0.1")
    mount_agent(api, echo, settings=settings)
    transport = httpx.ASGITransport(app=api, client=("127.0.0.1", 4000))
    headers = {
        "x-forwarded-proto": "https",
        "x-forwarded-host": "edge.example",
        "x-forwarded-prefix": "/svc",
    }
    async with httpx.AsyncClient(transport=transport, base_url="http://internal") as client:
        for path in ("/agent/.well-known/agent-card.json", "/.well-known/agent.json"):
            card = (await client.get(path, headers=headers)).json()
            assert card_urls(card) == {
                "https://edge.example/svc/agent/",
                "https://edge.example/svc/agent",
            }


def test_the_apps_lifespan_starts_and_closes_the_agents_runtime() -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, str]]:
        events.append("app started")
        yield {"greeting": "hello"}
        events.append("app stopped")

    api = FastAPI(lifespan=lifespan)

    @api.get("/greeting")
    def greeting(request: fastapi.Request) -> dict[str, str]:
        return {"greeting": request.state.greeting}

    mount = mount_agent(api, echo, settings=Settings(store_url="memory://"))
    with TestClient(api) as client:
        assert mount.app.runtime.store is not None
        assert client.get("/greeting").json() == {"greeting": "hello"}
        assert client.get("/agent/health").json() == {"status": "ok"}
        assert events == ["app started"]
    assert events == ["app started", "app stopped"]
    assert mount._started is False


def test_mounting_mistakes_are_refused_clearly() -> None:
    api = FastAPI()
    with pytest.raises(ValueError, match="under a prefix such as '/agent'"):
        mount_agent(api, echo, prefix="/")
    mount_agent(api, echo, prefix="/one")
    with pytest.raises(ValueError, match="already mounted at '/one'"):
        mount_agent(api, echo, prefix="/one", well_known=False)
    with pytest.raises(ValueError, match="pass well_known=False"):
        mount_agent(api, echo, prefix="/two")
    mount_agent(api, echo, prefix="/two", well_known=False)
    assert [m.prefix for m in agent_mounts(api)] == ["/one", "/two"]
    with pytest.raises(ValueError, match="mount it first"):
        mounted(FastAPI(), echo)
