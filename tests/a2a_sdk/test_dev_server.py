"""a2a-sdk AgentExecutors (the sample-style ones of executors03.py / executors1.py) run by
`a2a-serverless dev` over real HTTP, under a2a-sdk 0.3.x (this venv) and 1.x (.venv-a2a-sdk1,
made by scripts/interop-venv.sh; the server runs with that venv's python): echo, a raising
executor, multi-turn input-required, streamed artifact chunks (over SSE in A2A 0.3 and 1.0),
cancel of a long task with a resubscribed stream and a push webhook watching it.

Without .venv-a2a-sdk1 the 1.x tests FAIL (never skip: CI treats a missing tool as a failure)
and say to run scripts/interop-venv.sh.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.a2a_sdk import scenarios
from tests.integration.agent_fixtures import parse_sse
from tests.push.webhook_server import WebhookServer
from tests.support.server import LiveServer, free_port, start_server

pytestmark = pytest.mark.interop

REPO = Path(__file__).resolve().parents[2]
SDK1_PYTHON = REPO / ".venv-a2a-sdk1" / "bin" / "python"
SETUP_HINT = "run scripts/interop-venv.sh to create .venv-a2a-sdk1 with a2a-sdk 1.x"
TARGET = "tests.a2a_sdk.sdk_agents:samples"


class DevDeployment:
    def __init__(
        self,
        server: LiveServer,
        log: Path,
        client: httpx.AsyncClient,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.server = server
        self.log = log
        self.client = client
        # Sent with every request: a caller's credentials, on a server that asks for them.
        self.headers = headers or {}

    def as_caller(self, headers: dict[str, str]) -> DevDeployment:
        return DevDeployment(self.server, self.log, self.client, headers)

    async def rpc(self, method: str, params: Any, *, version: str = "0.3") -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        headers = {**self.headers, "A2A-Version": version}
        response = await self.client.post("/", json=body, headers=headers)
        assert response.status_code == 200, response.text
        payload: dict[str, Any] = response.json()
        return payload

    async def pump(self) -> None:
        await asyncio.sleep(0.05)

    async def sse(
        self, method: str, params: Any, *, version: str = "0.3", last_event_id: int | None = None
    ) -> list[tuple[int | None, dict[str, Any]]]:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        headers = {"A2A-Version": version}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        async with self.client.stream("POST", "/", json=body, headers=headers) as response:
            assert response.status_code == 200
            raw = (await response.aread()).decode()
        return parse_sse(raw)


def _python(line: str) -> Path:
    if line == "0.3":
        return Path(sys.executable)
    if not SDK1_PYTHON.exists():
        pytest.fail(f"{SDK1_PYTHON} is missing: {SETUP_HINT}", pytrace=False)
    probe = subprocess.run(
        [str(SDK1_PYTHON), "-c", "import msgspec, uvicorn, a2a.helpers"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        pytest.fail(f"{SDK1_PYTHON} lacks what it needs: {probe.stderr}{SETUP_HINT}")
    return SDK1_PYTHON


def _serve(
    line: str, tmp_path_factory: pytest.TempPathFactory, **env: str
) -> Iterator[tuple[LiveServer, Path, str]]:
    python = _python(line)
    tmp = tmp_path_factory.mktemp(f"sdk{line}")
    log = tmp / "executors.log"
    port = free_port()
    env = {
        "A2A_STORE_URL": f"sqlite:///{tmp / 'tasks.db'}",
        "SDK_TEST_LOG": str(log),
        "LOG_PATH": str(tmp / "server.log"),
        **env,
    }
    args = [str(python), "-m", "a2a_serverless.cli", "dev", TARGET, "--port", str(port)]
    server = start_server(args, port, env, timeout=60, what=f"dev server (a2a-sdk {line})")
    try:
        yield server, log, line
    finally:
        server.stop()


@pytest.fixture(scope="module", params=["0.3", "1"], ids=["a2a-sdk-0.3", "a2a-sdk-1"])
def dev_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[LiveServer, Path, str]]:
    yield from _serve(request.param, tmp_path_factory)


ALICE = {"X-API-Key": "alice-key-0123456789abcdef"}
BOB = {"X-API-Key": "bob-key-0123456789abcdef00"}


@pytest.fixture(scope="module", params=["0.3", "1"], ids=["a2a-sdk-0.3", "a2a-sdk-1"])
def keyed_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[LiveServer, Path, str]]:
    keys = f"{ALICE['X-API-Key']}=alice,{BOB['X-API-Key']}=bob"
    yield from _serve(request.param, tmp_path_factory, A2A_AUTH_API_KEYS=keys)


@pytest.fixture
async def dev(dev_server: tuple[LiveServer, Path, str]) -> AsyncIterator[DevDeployment]:
    server, log, _ = dev_server
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        yield DevDeployment(server, log, client)


def test_the_server_runs_the_sdk_line_asked_for(
    dev_server: tuple[LiveServer, Path, str],
) -> None:
    server, _, line = dev_server
    python = _python(line)
    probe = subprocess.run(
        [str(python), "-c", "from a2a_serverless.a2a_sdk import sdk_line; print(sdk_line())"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert probe.stdout.strip() == line, probe.stderr
    card = httpx.get(f"{server.url}/.well-known/agent-card.json").json()
    assert card["name"] == "SDK Samples"
    assert [i["protocolVersion"] for i in card["supportedInterfaces"]][:1] == ["1.0"]


async def test_echo(dev: DevDeployment) -> None:
    await scenarios.echo_answers_with_a_message(dev)


async def test_a_raising_executor(dev: DevDeployment) -> None:
    await scenarios.a_raising_executor_fails_the_task(dev)


async def test_multi_turn(dev: DevDeployment) -> None:
    await scenarios.multi_turn_asks_then_answers(dev)


async def test_streamed_artifact_chunks_over_sse_in_both_versions(dev: DevDeployment) -> None:
    await scenarios.streamed_chunks_make_one_artifact(dev)

    events = await dev.sse("message/stream", {"message": scenarios.message("story sse")})
    results = [payload["result"] for _, payload in events]
    kinds = [r["kind"] for r in results]
    assert kinds[0] == "task"
    chunks = [r for r in results if r["kind"] == "artifact-update"]
    assert [c["artifact"]["parts"][0]["text"] for c in chunks] == ["Once ", "upon ", "a time."]
    assert [c.get("append", False) for c in chunks] == [False, True, True]
    assert [c.get("lastChunk", False) for c in chunks] == [False, False, True]
    statuses = [r["status"]["state"] for r in results if r["kind"] == "status-update"]
    assert statuses == ["working", "completed"]
    assert results[-1]["final"] is True

    # The same agent streamed to an A2A 1.0 client, and a replay of the first stream's log.
    v1_params = {
        "message": {"messageId": "m-story-v1", "role": "ROLE_USER", "parts": [{"text": "story"}]}
    }
    v1_events = [
        p["result"] for _, p in await dev.sse("SendStreamingMessage", v1_params, version="1.0")
    ]
    v1_chunks = [e["artifactUpdate"] for e in v1_events if "artifactUpdate" in e]
    assert [c["artifact"]["parts"] for c in v1_chunks] == [
        [{"text": "Once "}],
        [{"text": "upon "}],
        [{"text": "a time."}],
    ]
    assert v1_events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"

    task_id = results[0]["id"]
    first_id = events[0][0]
    assert first_id is not None
    replay = await dev.sse("tasks/resubscribe", {"id": task_id}, last_event_id=first_id)
    replayed = [p["result"] for _, p in replay]
    assert replayed[-1]["status"]["state"] == "completed"
    assert [
        r["artifact"]["parts"][0]["text"] for r in replayed if r["kind"] == "artifact-update"
    ] == [
        "Once ",
        "upon ",
        "a time.",
    ]


async def test_cancel_with_a_resubscribed_stream_and_a_webhook(dev: DevDeployment) -> None:
    receiver = await WebhookServer().start()
    try:
        config = {"pushNotificationConfig": {"url": receiver.url(), "token": "sdk-tok"}}
        task = await scenarios.send(dev, "slow job", config=config)
        await scenarios.until(dev, task["id"], scenarios.state_is("working"))
        follow = asyncio.create_task(dev.sse("tasks/resubscribe", {"id": task["id"]}))
        await asyncio.sleep(0.3)
        response = await dev.rpc("tasks/cancel", {"id": task["id"]})
        assert scenarios.result(response)["status"]["state"] == "canceled"
        await scenarios.wait_for_lines(
            dev.log, [f"execute-cancelled {task['id']}", f"cancel {task['id']} slow working"]
        )
        followed = [p["result"] for _, p in await asyncio.wait_for(follow, 30)]
        assert followed[-1]["status"]["state"] == "canceled" and followed[-1]["final"] is True

        notified: list[str] = []
        for _ in range(100):
            notified = [json.loads(n.body)["status"]["state"] for n in receiver.notifications()]
            if "canceled" in notified:
                break
            await asyncio.sleep(0.1)
        # Status changes that end a turn are pushed (working is not, by default).
        assert notified == ["canceled"], notified
        assert all(
            n.headers["x-a2a-notification-token"] == "sdk-tok" for n in receiver.notifications()
        )
    finally:
        await receiver.stop()


async def session_answer(path: DevDeployment, text: str, context_id: str) -> str:
    task = await scenarios.send(path, text, context_id=context_id)
    done = await scenarios.until(path, task["id"], scenarios.state_is(*scenarios.TERMINAL))
    assert done["status"]["state"] == "completed", done
    return scenarios.status_text(done)


async def test_the_executor_gets_the_caller_and_contexts_stay_their_owners(
    keyed_server: tuple[LiveServer, Path, str],
) -> None:
    # Issue 31: every executor got an unauthenticated user and any caller could name any
    # contextId, so an executor keying sessions as ADK's does ran Bob's message in Alice's.
    server, log, _ = keyed_server
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        alice = DevDeployment(server, log, client, ALICE)
        bob = alice.as_caller(BOB)
        first = await session_answer(alice, "session one", "ctx-alice")
        assert first == "user=apiKey:alice authenticated=True seen=", first
        second = await session_answer(alice, "session two", "ctx-alice")
        assert second == "user=apiKey:alice authenticated=True seen=session one", second

        for version in ("0.3", "1.0"):
            wire = scenarios.message("session three", context_id="ctx-alice")
            if version == "1.0":
                wire = {
                    "messageId": wire["messageId"],
                    "role": "ROLE_USER",
                    "parts": [{"text": "session three"}],
                    "contextId": "ctx-alice",
                }
            method = "SendMessage" if version == "1.0" else "message/send"
            refused = await bob.rpc(method, {"message": wire}, version=version)
            assert refused["error"]["code"] == -32602, refused
            assert "another caller" in refused["error"]["message"]

        own = await session_answer(bob, "session four", "ctx-bob")
        assert own == "user=apiKey:bob authenticated=True seen=", own
        third = await session_answer(alice, "session five", "ctx-alice")
        assert third.endswith("seen=session one|session two"), "Bob never reached it"


async def test_an_anonymous_caller_is_the_sdks_unauthenticated_user(dev: DevDeployment) -> None:
    answer = await session_answer(dev, "session anonymous", "ctx-anon")
    assert answer == "user=A2A_USER_ctx-anon authenticated=False seen=", answer
