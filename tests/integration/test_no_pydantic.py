"""No pydantic on the request path: the core and both adapters serve without importing it.

pydantic (and pydantic-core) stay installed in the test environment (the official a2a-sdk the
interop tests use needs them), so only a fresh process can tell what our code imports. Each
test runs a script in its own interpreter that builds the app on the memory store, serves a
blocking `message/send` and a `tasks/get` through the entry point users deploy, and prints the
modules it ended up with whose name starts with "pydantic": there must be none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

AGENT = """
import asyncio, json, sys
from a2a_serverless import Settings, agent

@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text

SEND = {
    "jsonrpc": "2.0", "id": 1, "method": "message/send",
    "params": {"message": {"kind": "message", "messageId": "m-1", "role": "user",
                           "parts": [{"kind": "text", "text": "hello"}]}},
}

def get(task_id):
    return {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}}

def report(sent, got):
    assert sent["result"]["status"]["state"] == "completed", sent
    assert got["result"]["id"] == sent["result"]["id"], got
    loaded = sorted(name for name in sys.modules if name.startswith("pydantic"))
    print(json.dumps({"pydantic": loaded}))
"""

ASGI = """
async def post(app, body):
    raw = json.dumps(body).encode()
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/", "raw_path": b"/",
             "query_string": b"", "root_path": "", "server": ("test", 80),
             "client": ("127.0.0.1", 1234),
             "headers": [(b"host", b"test"), (b"content-type", b"application/json")]}
    messages = [{"type": "http.request", "body": raw, "more_body": False}]
    chunks = []

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return json.loads(b"".join(chunks))
"""

CORE = """
from a2a_serverless import create_app

async def main():
    app = create_app(echo, Settings(store_url="memory://"))
    sent = await post(app, SEND)
    report(sent, await post(app, get(sent["result"]["id"])))

asyncio.run(main())
"""

AWS = """
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import make_http_handler

class Context:
    function_name = "a2a"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:a2a"
    aws_request_id = "req-1"

    def get_remaining_time_in_millis(self):
        return 60_000

def event(body):
    raw = json.dumps(body)
    return {
        "version": "2.0", "routeKey": "$default", "rawPath": "/", "rawQueryString": "",
        "headers": {"content-type": "application/json", "host": "example.com"},
        "requestContext": {"http": {"method": "POST", "path": "/", "protocol": "HTTP/1.1",
                                    "sourceIp": "203.0.113.7", "userAgent": "test"},
                           "requestId": "r", "routeKey": "$default", "stage": "$default",
                           "domainName": "example.com", "accountId": "1", "apiId": "a",
                           "timeEpoch": 0},
        "body": raw, "isBase64Encoded": False,
    }

queue = InProcessQueue()
handler = make_http_handler(echo, Settings(store_url="memory://"), queue=queue)
queue.start(handler.container.runtime.jobs)
sent = json.loads(handler(event(SEND), Context())["body"])
report(sent, json.loads(handler(event(get(sent["result"]["id"])), Context())["body"]))
"""

GCP = """
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_gcp import http_function

queue = InProcessQueue()
function = http_function(echo, settings=Settings(store_url="memory://"), queue=queue,
                         configure_logging=False)

async def main():
    app = await function(None)  # the request is not read: the app answers the ASGI scope
    queue.start(app.app.runtime.jobs)
    sent = await post(app, SEND)
    report(sent, await post(app, get(sent["result"]["id"])))

asyncio.run(main())
"""


def run_script(script: str, env: dict[str, str] | None = None) -> Any:
    """Run `script` in a fresh interpreter on this checkout (no A2A_ or AWS_ variables but
    `env`); the JSON of its last line of output."""
    path = os.pathsep.join(
        [str(REPO), str(REPO / "adapters" / "aws"), str(REPO / "adapters" / "gcp")]
    )
    environ = {
        key: value for key, value in os.environ.items() if not key.startswith(("A2A_", "AWS_"))
    }
    environ.update(PYTHONPATH=path, **(env or {}))
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def modules_loaded(script: str, env: dict[str, str] | None = None) -> list[str]:
    loaded: list[str] = run_script(script, env)["pydantic"]
    return loaded


def test_the_core_serves_without_pydantic() -> None:
    assert modules_loaded(AGENT + ASGI + CORE) == []


def test_the_aws_http_handler_serves_without_pydantic() -> None:
    env = {"AWS_DEFAULT_REGION": "us-east-1", "POWERTOOLS_METRICS_NAMESPACE": "test"}
    assert modules_loaded(AGENT + AWS, env) == []


def test_the_gcp_http_function_serves_without_pydantic() -> None:
    assert modules_loaded(AGENT + ASGI + GCP) == []
