"""Firestore that cannot be reached: every Store call ends within its bound, as the core's
`StoreUnavailable`, and the app answers 503 with Retry-After (not a 500 after minutes)."""

from __future__ import annotations

import time
import uuid

import httpx
import pytest

from a2a_serverless import Settings, agent, create_app
from a2a_serverless.store.base import StoreUnavailable, TaskQuery
from a2a_serverless_gcp.firestore import FirestoreStore
from tests.support.server import free_port

pytestmark = pytest.mark.gcp

BOUND_S = 1.5


@pytest.fixture
def unreachable_store(monkeypatch: pytest.MonkeyPatch) -> FirestoreStore:
    # An emulator address nothing listens on: every call meets a refused connection, which
    # the client retries as UNAVAILABLE.
    monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", f"127.0.0.1:{free_port()}")
    return FirestoreStore(project="demo-outage", prefix=uuid.uuid4().hex, call_timeout_s=BOUND_S)


async def test_every_call_is_bounded_and_typed(unreachable_store: FirestoreStore) -> None:
    calls = {
        "get_task": lambda: unreachable_store.get_task("t1"),
        "list_tasks": lambda: unreachable_store.list_tasks(TaskQuery(owner="o")),
        "read_events": lambda: unreachable_store.read_events("t1", 0),
        "find_idempotency_key": lambda: unreachable_store.find_idempotency_key("k"),
        "list_push_configs": lambda: unreachable_store.list_push_configs("t1"),
    }
    try:
        for name, call in calls.items():
            started = time.monotonic()
            with pytest.raises(StoreUnavailable, match="Firestore"):
                await call()
            # Generous: only that it ends near its bound, not after the client's minutes.
            assert time.monotonic() - started < BOUND_S + 10, name
    finally:
        await unreachable_store.close()


async def test_the_app_answers_503_with_retry_after(unreachable_store: FirestoreStore) -> None:
    @agent
    def echo(text: str) -> str:
        return text

    app = create_app(echo, Settings(dev_mode=True), store=unreachable_store)
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            response = await client.get("/v1/tasks/t1")
            assert response.status_code == 503
            assert response.headers["retry-after"].isdigit()
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tasks/get",
                "params": {"id": "t1"},
            }
            answer = (await client.post("/", json=body)).json()
            assert answer["error"]["code"] == -32603
            assert answer["error"]["data"]["reason"] == "store-unavailable"
    finally:
        await app.runtime.aclose()
