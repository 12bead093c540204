"""`a2a-serverless check`: passes on our dev server in each configuration (streaming on and off,
push on and off, authentication on and off), reports each fault of a deliberately broken agent,
and runs against the official a2a-sdk 1.x server, naming where it departs from the spec."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.cli import main
from a2a_serverless.client import CredentialOptions
from a2a_serverless.client.check import CheckResult, run_checks
from tests.client.asgi import read_body, send_json
from tests.support.server import LiveServer, free_port, start_live_server, start_server

API_KEY = "check-test-key-0123456789abcdef"


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    started: list[LiveServer] = []

    def start(**env: str) -> LiveServer:
        server = start_live_server(
            "tests.client.agents:app", {"A2A_STORE_URL": f"sqlite:///{tmp_path / 't.db'}", **env}
        )
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def outcomes(results: list[dict[str, Any]] | list[CheckResult]) -> dict[tuple[str, str], str]:
    rows = [r.as_json() if isinstance(r, CheckResult) else r for r in results]
    return {(row["check"], row["interface"]): row["outcome"] for row in rows}


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    status = main(["check", *args, "--json"])
    document = json.loads(capsys.readouterr().out)
    return status, document


@pytest.mark.parametrize(
    ("env", "not_applicable"),
    [
        ({}, {"auth"}),
        ({"A2A_STREAMING": "false", "A2A_PUSH_NOTIFICATIONS": "false"}, {"auth", "stream", "push"}),
        ({"A2A_AUTH_API_KEYS": f"{API_KEY}=ci"}, set()),
    ],
    ids=["streaming-push", "neither", "auth"],
)
def test_check_passes_on_our_dev_server(
    agent: Callable[..., LiveServer],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    not_applicable: set[str],
) -> None:
    server = agent(**env)
    monkeypatch.setenv("A2A_CLIENT_API_KEY", API_KEY)
    webhook = f"http://127.0.0.1:{free_port()}/hook"
    status, document = run_cli(capsys, server.url, "--webhook-url", webhook)
    failed = [row for row in document["checks"] if row["outcome"] == "fail"]
    assert failed == []
    assert status == 0 and document["passed"] is True
    skipped = {row["check"] for row in document["checks"] if row["outcome"] == "n/a"}
    assert skipped == not_applicable
    interfaces = {row["interface"] for row in document["checks"] if row["interface"]}
    assert {"1.0 JSONRPC", "1.0 HTTP+JSON", "0.3 JSONRPC", "0.3 HTTP+JSON"} <= interfaces
    sections = {row["check"]: row["section"] for row in document["checks"]}
    assert sections["card"] == "0.3 §5.3, 1.0 §8.2"


def test_check_without_the_credential_fails_and_says_why(
    agent: Callable[..., LiveServer], capsys: pytest.CaptureFixture[str]
) -> None:
    server = agent(A2A_AUTH_API_KEYS=f"{API_KEY}=ci")
    status = main(["check", server.url])
    table = capsys.readouterr().out
    assert status == 1
    assert "AuthorizationError" in table
    assert "auth      1.0 JSONRPC    PASS" in table  # the 401 challenge itself is right


def broken_agent() -> Any:
    """An A2A 1.0 JSON-RPC agent that gets things wrong: a card without skills that declares an
    API key it never asks for; GetTask answers a task for any id; ListTasks lists nothing; a
    stream request gets plain JSON; cancel answers a completed task; an unknown method gets
    -32603."""
    task = {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        host = dict(scope["headers"])[b"host"].decode()
        if scope["path"] == "/.well-known/agent-card.json":
            answer: Any = {
                "name": "Broken",
                "description": "Wrong on purpose.",
                "version": "1",
                "supportedInterfaces": [
                    {
                        "url": f"http://{host}/",
                        "protocolBinding": "JSONRPC",
                        "protocolVersion": "1.0",
                    }
                ],
                "capabilities": {"streaming": True, "pushNotifications": False},
                "defaultInputModes": ["text/plain"],
                "defaultOutputModes": ["text/plain"],
                "securitySchemes": {
                    "key": {"apiKeySecurityScheme": {"name": "X-API-Key", "location": "header"}}
                },
                "securityRequirements": [{"schemes": {"key": {"list": []}}}],
            }
        else:
            request = json.loads(body)
            results: dict[str, Any] = {
                "SendMessage": {"task": task},
                "SendStreamingMessage": {"task": task},
                "GetTask": task,
                "ListTasks": {"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0},
                "CancelTask": task,
            }
            if request.get("method") in results:
                answer = {
                    "jsonrpc": "2.0",
                    "id": request["id"],
                    "result": results[request["method"]],
                }
            else:
                error = {"code": -32603, "message": "boom"}
                answer = {"jsonrpc": "2.0", "id": request.get("id"), "error": error}
        await send_json(send, 200, answer)

    return app


async def test_check_reports_each_fault_of_a_broken_agent(
    serve_asgi: Callable[[Any], AbstractAsyncContextManager[str]],
) -> None:
    async with serve_asgi(broken_agent()) as url:
        results = await run_checks(
            url, credentials=CredentialOptions(api_key=API_KEY), allow_private_urls=True
        )
    found = outcomes(results)
    on = "1.0 JSONRPC"
    assert found == {
        ("card", ""): "pass",
        ("card-0.3", ""): "n/a",
        ("card-1.0", ""): "fail",
        ("answers", on): "fail",
        ("send", on): "pass",
        ("get", on): "pass",
        ("list", on): "fail",
        ("stream", on): "fail",
        ("cancel", on): "fail",
        ("errors", on): "fail",
        ("auth", on): "fail",
        ("push", ""): "n/a",
    }
    details = {(r.check, r.interface): r.detail for r in results}
    assert "skills" in details[("card-1.0", "")]
    assert "answered no error" in details[("answers", on)]
    assert "text/event-stream" not in details[("stream", on)] and details[("stream", on)]
    assert "completed, not canceled" in details[("cancel", on)]
    assert "-32603, not -32601" in details[("errors", on)]
    assert "not 401" in details[("auth", on)]


@pytest.mark.interop
def test_check_against_the_official_sdk1_server(
    sdk1_server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    webhook = f"http://127.0.0.1:{free_port()}/hook"
    status, document = run_cli(capsys, sdk1_server.url, "--webhook-url", webhook)
    found = outcomes(document["checks"])
    for interface in ("1.0 JSONRPC", "1.0 HTTP+JSON", "0.3 JSONRPC", "0.3 HTTP+JSON"):
        for check in ("answers", "send", "get", "stream"):
            assert found[(check, interface)] == "pass", (check, interface)
    assert found[("card-1.0", "")] == found[("card-0.3", "")] == "pass"
    assert found[("push", "1.0 JSONRPC")] == "pass"
    # Where the SDK departs from the spec: its 0.3 compatibility layer answers a send without a
    # message with -32600 (not -32602), and has no 0.3 HTTP+JSON route for listing tasks.
    assert found[("errors", "0.3 JSONRPC")] == "fail"
    assert found[("list", "0.3 HTTP+JSON")] == "fail"
    assert status == 1 and document["passed"] is False


@pytest.mark.interop
def test_check_against_the_official_sdk03_server(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()
    script = str(Path(__file__).with_name("sdk03_agent.py"))
    server = start_server(
        [sys.executable, script, str(port), "--push-sender"], port, {}, what="sdk03 agent"
    )
    try:
        webhook = f"http://127.0.0.1:{free_port()}/hook"
        status, document = run_cli(capsys, server.url, "--webhook-url", webhook)
    finally:
        server.stop()
    found = outcomes(document["checks"])
    for interface in ("0.3 JSONRPC", "0.3 HTTP+JSON"):
        for check in ("answers", "send", "get", "stream"):
            assert found[(check, interface)] == "pass", (check, interface)
    assert found[("card-0.3", "")] == "pass" and found[("card-1.0", "")] == "n/a"
    assert found[("list", "0.3 JSONRPC")] == "n/a"  # no tasks/list: optional in 0.3
    assert found[("push", "0.3 JSONRPC")] == "pass"
    # 0.3.26's REST handler answers a send without a message, and tasks, with HTTP 500.
    assert found[("errors", "0.3 HTTP+JSON")] == "fail"
    assert found[("list", "0.3 HTTP+JSON")] == "fail"
    assert status == 1
