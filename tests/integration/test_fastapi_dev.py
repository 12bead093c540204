"""`a2a-serverless dev module:api` over real HTTP: a FastAPI app with its own route and an
agent mounted under /agent, the agent answering JSON-RPC and both REST flavours there, in both
protocol versions, its card naming those URLs; and what `dev` says of an app without an agent."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.server import REPO, LiveServer, start_live_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    store = tmp_path_factory.mktemp("fastapi-dev") / "tasks.db"
    live = start_live_server(
        "tests.integration.fastapi_app:api",
        {"A2A_STORE_URL": f"sqlite:///{store}"},
        health="/agent/health",
    )
    yield live
    live.stop()


def message_03(text: str, message_id: str) -> dict[str, object]:
    return {"role": "user", "messageId": message_id, "parts": [{"kind": "text", "text": text}]}


def message_10(text: str, message_id: str) -> dict[str, object]:
    return {"role": "ROLE_USER", "messageId": message_id, "parts": [{"text": text}]}


def test_the_apps_own_route_answers(server: LiveServer) -> None:
    assert httpx.get(f"{server.url}/hello").json() == {"hello": "world"}


@pytest.mark.parametrize(
    "path", ["/agent/.well-known/agent-card.json", "/.well-known/agent-card.json"]
)
def test_the_card_names_urls_under_the_prefix(server: LiveServer, path: str) -> None:
    card = httpx.get(f"{server.url}{path}").json()
    base = f"{server.url}/agent"
    assert card["name"] == "Echo"
    assert card["url"] == f"{base}/"
    assert {(i["transport"], i["url"]) for i in card["additionalInterfaces"]} == {
        ("JSONRPC", f"{base}/"),
        ("HTTP+JSON", base),
    }
    assert {
        (i["protocolBinding"], i["protocolVersion"], i["url"]) for i in card["supportedInterfaces"]
    } == {
        ("JSONRPC", "1.0", f"{base}/"),
        ("HTTP+JSON", "1.0", base),
        ("JSONRPC", "0.3", f"{base}/"),
        ("HTTP+JSON", "0.3", base),
    }
    assert "Serving the app tests.integration.fastapi_app:api" in server.log()


def test_jsonrpc_03_then_rest_03_under_the_prefix(server: LiveServer) -> None:
    card = httpx.get(f"{server.url}/agent/.well-known/agent-card.json").json()
    send = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {"message": message_03("hi 0.3", "fa-m-03")},
    }
    task = httpx.post(card["url"], json=send).json()["result"]
    assert task["status"]["state"] == "completed"
    assert task["artifacts"][0]["parts"][0]["text"] == "hi 0.3"
    rest = next(i["url"] for i in card["additionalInterfaces"] if i["transport"] == "HTTP+JSON")
    got = httpx.get(f"{rest}/v1/tasks/{task['id']}")
    assert got.status_code == 200, got.text
    assert got.json()["id"] == task["id"]
    body = {"message": message_10("rest 0.3", "fa-r"), "configuration": {"blocking": True}}
    sent = httpx.post(f"{rest}/v1/message:send", json=body)
    assert sent.status_code == 200, sent.text
    assert sent.json()["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_jsonrpc_10_then_rest_10_under_the_prefix(server: LiveServer) -> None:
    version = {"A2A-Version": "1.0"}
    card = httpx.get(f"{server.url}/agent/.well-known/agent-card.json", headers=version).json()
    urls = {
        (i["protocolBinding"], i["protocolVersion"]): i["url"] for i in card["supportedInterfaces"]
    }
    send = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": message_10("hi 1.0", "fa-m-10")},
    }
    reply = httpx.post(urls["JSONRPC", "1.0"], json=send, headers=version).json()
    task = reply["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    got = httpx.get(f"{urls['HTTP+JSON', '1.0']}/tasks/{task['id']}", headers=version)
    assert got.status_code == 200, got.text
    assert got.json()["artifacts"][0]["parts"][0]["text"] == "hi 1.0"
    sent = httpx.post(
        f"{urls['HTTP+JSON', '1.0']}/message:send",
        json={"message": message_10("rest 1.0", "fa-r-10")},
        headers=version,
    )
    assert sent.status_code == 200, sent.text
    assert sent.json()["task"]["artifacts"][0]["parts"][0]["text"] == "rest 1.0"


def test_an_app_without_an_agent_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "plain_api.py").write_text("from fastapi import FastAPI\n\napi = FastAPI()\n")
    result = subprocess.run(
        [sys.executable, "-m", "a2a_serverless.cli", "dev", "plain_api:api"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        "a2a-serverless dev: plain_api:api is a FastAPI app with no agent in it: put one in "
        "with a2a_serverless.fastapi.mount_agent(app, agent, prefix=...)"
    )


@pytest.mark.parametrize(
    "path", ["/hello", "/docs", "/openapi.json", "/agent/.well-known/agent-card.json"]
)
def test_a_rebound_host_name_is_refused_on_the_apps_own_routes_too(
    server: LiveServer, path: str
) -> None:
    # DNS rebinding: a page whose name now points here reads nothing, the app's API included.
    assert httpx.get(f"{server.url}{path}").status_code == 200
    rebound = httpx.get(f"{server.url}{path}", headers={"host": "attacker.example"})
    assert rebound.status_code == 421
    assert rebound.json() == {"error": "this server does not answer host 'attacker.example'"}
