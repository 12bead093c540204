"""examples/webhook_receiver.py receives, verifies and de-duplicates real notifications."""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from a2a_serverless.push import WebhookVerifier

from .conftest import HarnessFactory, JwksServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "webhook_receiver.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("webhook_receiver_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def serve_example(example: ModuleType) -> Iterator[Any]:
    servers: list[ThreadingHTTPServer] = []

    def serve(verifier_factory: Any, received: list[Any]) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), None)  # type: ignore[arg-type]
        url = f"http://127.0.0.1:{server.server_address[1]}/webhook"
        server.RequestHandlerClass = example.make_handler(
            verifier_factory(url), on_notification=received.append
        )
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return url

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


async def test_the_example_receiver_verifies_and_prints_notifications(
    harness: HarnessFactory, jwks_server: JwksServer, serve_example: Any
) -> None:
    h = await harness(push_verify_ownership=True)
    jwks_url = await jwks_server(h.notifier)
    received: list[Any] = []
    url = serve_example(
        lambda url: WebhookVerifier(jwks_url, audience=url, token="s3cret"), received
    )
    task_id = await h.send("ask", url, token="s3cret")  # passes the ownership challenge
    await h.drain()
    await h.send("the red one", None, task_id=task_id)
    await h.drain()
    assert [n.task["status"]["state"] for n in received] == ["input-required", "completed"]
    assert {n.task_id for n in received} == {task_id}
    assert await h.notifier.dead_letters(task_id) == []


async def test_the_example_receiver_rejects_forgeries(
    harness: HarnessFactory, jwks_server: JwksServer, serve_example: Any
) -> None:
    h = await harness()
    jwks_url = await jwks_server(h.notifier)
    received: list[Any] = []
    url = serve_example(lambda url: WebhookVerifier(jwks_url, audience=url), received)
    async with httpx.AsyncClient() as client:
        forged = await client.post(
            url, content=b'{"id": "x"}', headers={"Authorization": "Bearer x"}
        )
        assert forged.status_code == 401
        challenge = await client.get(url, params={"validationToken": "abc"})
        assert challenge.text == "abc"
    # A notification with the wrong token is rejected; the agent dead-letters it (no retry).
    url2 = serve_example(lambda url: WebhookVerifier(jwks_url, audience=url, token="a"), received)
    task_id = await h.send("hello", url2, token="b")
    await h.drain()
    [letter] = await h.notifier.dead_letters(task_id)
    assert letter.reason.startswith("HTTP 401 (")  # the body (which names the failure) stays out
    assert received == []


def test_the_example_receiver_skips_duplicates(example: ModuleType) -> None:
    seen = example.SeenNotifications(size=2)
    assert seen.first_time("a") and not seen.first_time("a")
    assert seen.first_time("b") and seen.first_time("c")
    assert seen.first_time("a")  # forgotten: only the last `size` ids are kept
