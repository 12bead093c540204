"""The GCP HTTP function serving a FastAPI app with the agent under /agent
(`http_function(agent, app=api)`, functions_fastapi_main.py) on a real functions-framework
server beside the deployment's worker (Pub/Sub, Firestore and Cloud Tasks emulators): the app's
route with its lifespan's state, the card's URLs under the prefix, a non-blocking send run by
the worker, the task read over both REST flavours and a live SSE stream under the prefix."""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import (
    REPO,
    Deployment,
    FunctionServer,
    http_status,
    start_process,
    stop_group,
    wait_until,
)

pytestmark = pytest.mark.gcp

MAIN = Path(__file__).resolve().parent / "functions_fastapi_main.py"


@pytest.fixture(scope="module")
def app_function(
    deployment: Deployment, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FunctionServer]:
    from tests.support.server import free_port

    port = free_port()
    log_path = tmp_path_factory.mktemp("fastapi-function") / "a2a_app.log"
    args = [sys.executable, "-m", "functions_framework", "--target", "a2a_app"]
    args += ["--source", str(MAIN), "--host", "127.0.0.1", "--port", str(port)]
    # A worktree's own adapters over the editable install's (as conftest.py does).
    python_path = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {**os.environ, **deployment.env, "PYTHONPATH": python_path, "PYTHONUNBUFFERED": "1"}
    process = start_process(args, log_path, env)
    server = FunctionServer("a2a_app", port, process, log_path)
    try:
        wait_until(lambda: http_status(f"{server.url}/hello") == 200, process, "a2a_app", log_path)
        yield server
    finally:
        stop_group(process)


def message(text: str) -> dict[str, Any]:
    return {
        "kind": "message",
        "role": "user",
        "messageId": uuid.uuid4().hex,
        "parts": [{"kind": "text", "text": text}],
    }


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


def test_the_app_and_the_agent_under_its_prefix(app_function: FunctionServer) -> None:
    url = app_function.url
    with httpx.Client(timeout=30) as client:
        assert client.get(f"{url}/hello").json() == {"hello": "hello from the lifespan"}
        card = client.get(f"{url}/.well-known/agent-card.json").json()
        assert card["url"] == f"{url}/agent/"
        assert {i["url"] for i in card["additionalInterfaces"]} == {f"{url}/agent/", f"{url}/agent"}
        assert card["capabilities"]["streaming"] is True

        params = {"message": message("from fastapi"), "configuration": {"blocking": False}}
        sent = client.post(card["url"], json=rpc("message/send", params)).json()["result"]
        deadline = time.monotonic() + 60
        while True:
            got = client.get(f"{url}/agent/v1/tasks/{sent['id']}")
            assert got.status_code == 200, app_function.tail()
            if got.json()["status"]["state"] == "TASK_STATE_COMPLETED":
                break
            assert time.monotonic() < deadline, f"not completed: {got.text}"
            time.sleep(0.2)
        v10 = client.get(f"{url}/agent/tasks/{sent['id']}", headers={"A2A-Version": "1.0"})
        assert v10.json()["artifacts"][0]["parts"][0]["text"] == "echo: from fastapi"

        frames: list[dict[str, Any]] = []
        stream = rpc("message/stream", {"message": message("streamed")})
        with client.stream("POST", f"{url}/agent/", json=stream) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            for line in response.iter_lines():
                if line.startswith("data: "):
                    frames.append(json.loads(line[6:])["result"])
        assert frames[0]["kind"] == "task"
        assert frames[-1]["kind"] == "status-update" and frames[-1]["final"] is True
        assert frames[-1]["status"]["state"] == "completed"
