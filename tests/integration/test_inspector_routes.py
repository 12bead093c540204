"""Where the inspector is served, and who its API answers (the page itself: tests/inspector)."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from a2a_serverless import agent
from a2a_serverless.app import create_app
from a2a_serverless.config import Settings
from a2a_serverless.inspector import InspectorRefused
from tests.integration.test_push_wiring import send_body as send

ALICE = secrets.token_urlsafe(24)
BOB = secrets.token_urlsafe(24)
KEYS = {"auth_api_keys": f"{ALICE}=alice,{BOB}=bob"}


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text


async def test_dev_mode_serves_the_page_its_assets_and_api(make_client: Any) -> None:
    async with make_client(echo, dev_mode=True) as (client, _app):
        page = await client.get("/_inspector/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert b'src="static/inspector.js"' in page.content
        for name, kind in (("inspector.js", "text/javascript"), ("inspector.css", "text/css")):
            asset = await client.get(f"/_inspector/static/{name}")
            assert asset.status_code == 200 and asset.headers["content-type"].startswith(kind)
        assert (await client.get("/_inspector/static/../__init__.py")).status_code == 404
        assert (await client.get("/_inspector/static/index.html")).status_code == 404
        moved = await client.get("/_inspector")
        assert moved.status_code == 308 and moved.headers["location"] == "/_inspector/"
        info = (await client.get("/_inspector/api/info")).json()
        assert info["agent"] == "Echo" and info["rpcPath"] == "/"
        assert info["cards"] == [{"version": "0.3", "path": "/.well-known/agent-card.json"}]
        assert info["protocolVersions"] == ["1.0", "0.3"]  # the page speaks the first
        assert (await client.get("/_inspector/api/nothing")).status_code == 404


async def test_not_served_outside_dev_mode(make_client: Any) -> None:
    async with make_client(echo, dev_mode=False) as (client, _app):
        for path in ("/_inspector/", "/_inspector/api/info", "/_inspector/static/inspector.js"):
            assert (await client.get(path)).status_code == 404


def test_enabling_it_outside_dev_mode_without_authentication_is_refused() -> None:
    with pytest.raises(InspectorRefused, match="needs authentication"):
        create_app(echo, Settings(store_url="memory://", inspector=True))


async def test_enabled_with_authentication_answers_each_callers_own_tasks(
    make_client: Any,
) -> None:
    async with make_client(echo, dev_mode=False, inspector=True, **KEYS) as (client, _app):
        assert (await client.get("/_inspector/")).status_code == 200  # the page is public code
        assert (await client.get("/_inspector/api/info")).status_code == 401
        alice, bob = {"X-API-Key": ALICE}, {"X-API-Key": BOB}
        assert (await client.get("/_inspector/api/info", headers=alice)).status_code == 200
        task = (await client.post("/", json=send("m1"), headers=alice)).json()["result"]
        push = f"/_inspector/api/tasks/{task['id']}/push"
        assert (await client.get(push)).status_code == 401
        assert (await client.get(push, headers=bob)).status_code == 404
        mine = await client.get(push, headers=alice)
        assert mine.status_code == 200 and mine.json()["taskId"] == task["id"]


async def test_push_view_masks_secrets_and_redrive_needs_json(make_client: Any) -> None:
    async with make_client(echo, dev_mode=True) as (client, _app):
        config = {"url": "https://hooks.example/a", "token": "client-secret"}
        task = (await client.post("/", json=send("m1", pushNotificationConfig=config))).json()
        task_id = task["result"]["id"]
        view = (await client.get(f"/_inspector/api/tasks/{task_id}/push")).json()
        [config_view] = view["configs"]
        assert config_view["config"]["url"] == config["url"]
        assert "client-secret" not in str(view)
        redrive = f"/_inspector/api/tasks/{task_id}/dead-letters/nope/redrive"
        assert (await client.post(redrive, content=b"{}")).status_code == 415
        missing = await client.post(redrive, json={})
        assert missing.status_code == 404 and missing.json()["outcome"] == "missing"
