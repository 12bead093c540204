"""main.py's functions as functions-framework serves them: the A2A function answers with the
agent card, the worker refuses callers without the shared secret. (Nothing here reaches Google
Cloud: a card needs neither Firestore nor Pub/Sub.)"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from functions_framework.aio import create_asgi_app

MAIN = str(Path(__file__).resolve().parents[1] / "main.py")


@pytest.fixture(autouse=True)
def function_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2A_STORE_URL", "memory://")
    monkeypatch.setenv("A2A_PUBSUB_TOPIC", "projects/demo/topics/jobs")
    monkeypatch.setenv("A2A_WORKER_SECRET", "a-long-shared-secret-for-tests")


async def test_the_a2a_function_serves_the_card() -> None:
    app = create_asgi_app(target="a2a", source=MAIN)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        response = await client.get("{% if cookiecutter.fastapi == "yes" %}/agent{% endif %}/.well-known/agent-card.json")
{%- if cookiecutter.fastapi == "yes" %}
        hello = await client.get("/hello")
    assert hello.json() == {"hello": "world"}
    assert response.json()["url"] == "http://testserver/agent/"
{%- endif %}
    assert response.status_code == 200
    assert response.json()["name"] == {{ cookiecutter.agent_name | tojson }}


async def test_the_worker_refuses_callers_without_the_secret() -> None:
    app = create_asgi_app(target="worker", source=MAIN)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        response = await client.post("/", json={"message": {"data": ""}})
    assert response.status_code in (401, 403)
