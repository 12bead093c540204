"""The AWS HTTP handler's cold path: building the handler on the memory store, and serving its
first message/send (A2A 0.3 over JSON-RPC, a payload v2 event), loads none of what that request
does not need (issue 34); an agent with remote agents, which may receive durable calls'
callbacks, has what the first callback needs loaded at init instead (issue 33). Run in a fresh
interpreter, so nothing another test imported counts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

# What loads on first use, never at init nor for a first 0.3 message/send.
NOT_ON_THE_COLD_PATH = (
    # The client, push delivery and what they need (httpx: the client and webhooks only).
    "a2a_serverless.client",
    "a2a_serverless.push.delivery",
    "httpx",
    "httpcore",
    # Spans (A2A_TRACING off) and the operator's tools.
    "a2a_serverless.otel",
    "opentelemetry",
    "a2a_serverless.inspector",
    "a2a_serverless.cli",
    "a2a_serverless.ops",
    "a2a_serverless.devserver",
    # The a2a-sdk bridge, FastAPI and friends.
    "a2a_serverless.a2a_sdk",
    "a2a",
    "a2a_serverless.fastapi",
    "fastapi",
    "starlette",
    "pydantic",
    # The other protocol version and the HTTP+JSON bindings: no request has asked for them.
    "a2a_serverless.v10",
    "a2a_serverless.rest",
    # The card (none asked for; 0.3's form of it too), the list methods' page tokens, and the
    # optional packages' look-ups (importlib.util; dev mode and remote agents only).
    "a2a_serverless.card",
    "a2a_serverless.v03.card",
    "a2a_serverless.pagetoken",
    "a2a_serverless.extras",
    # The loop's thread pool: an async agent on the memory store runs nothing in a thread.
    "concurrent.futures.thread",
    # OpenSSL's hashes: an artifact's id is a SHA-1 of CPython's own module (ids.py).
    "hashlib",
    # Authentication, not configured (no A2A_AUTH_* setting): none of auth/, nor what the
    # schemes verify with.
    "a2a_serverless.auth",
    "a2a_serverless.jwks",
    "jwt",
    "cryptography",
    # Durable calls' machinery (no turn has called), the AWS SDK (no AWS store or queue), and
    # Mangum (a payload v2 event is translated without it).
    "a2a_serverless.durable.session",
    "boto3",
    "a2a_serverless_aws.dynamodb",
    "mangum",
    # SnapStart's hooks: this init is not for a snapshot.
    "a2a_serverless_aws.snapstart",
)

PROGRAM = """
import json, sys
from a2a_serverless import Settings, agent
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import make_http_handler
from a2a_serverless_aws.config import AwsSettings

@agent(name="Echo", description="Says back what it is told.")
async def echo(text: str) -> str:
    return text

handler = make_http_handler(
    echo, Settings(store_url="memory://"), AwsSettings(), queue=InProcessQueue()
)
at_init = sorted(sys.modules)
# The bench's probe events: the standard library only, so they load nothing of their own.
sys.path.insert(0, "bench/function")
from events import LambdaContext, http_api_event, send_body

answer = handler(http_api_event(send_body("hi", request_id=1)), LambdaContext())
print(json.dumps({"init": at_init, "served": sorted(sys.modules), "answer": answer}))
"""


def loaded(modules: list[str], prefix: str) -> list[str]:
    return [m for m in modules if m == prefix or m.startswith(prefix + ".")]


def run(program: str) -> dict[str, Any]:
    """What `program` printed last (the handler's JSON logs go to stdout too), run afresh."""
    env = {**os.environ, "AWS_REGION": "us-east-1", "POWERTOOLS_LOG_LEVEL": "ERROR"}
    env.pop("A2A_TRACING", None)
    env.pop("A2A_REMOTE_AGENTS", None)
    result = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=REPO,
        env=env,
    )
    found: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


def test_the_handler_loads_only_what_its_first_request_needs() -> None:
    found = run(PROGRAM)
    assert json.loads(found["answer"]["body"])["result"]["status"]["state"] == "completed"
    _check_cold_path(found)


# Its first SendMessage in A2A 1.0 loads 1.0's codec, and nothing else of the list above.
FIRST_REQUEST_IN_1_0 = frozenset({"a2a_serverless.v10"})


def test_a_first_request_in_a2a_1_0_loads_its_codec_and_nothing_more() -> None:
    program = PROGRAM.replace(
        "import json, sys", "import json, os, sys; os.environ['BENCH_A2A_PROTOCOL'] = '1.0'"
    )
    found = run(program)
    task = json.loads(found["answer"]["body"])["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    _check_cold_path(found, served_also=FIRST_REQUEST_IN_1_0)


def _check_cold_path(found: dict[str, Any], served_also: frozenset[str] = frozenset()) -> None:
    """Nothing of NOT_ON_THE_COLD_PATH loaded at init nor by the first request, but what it
    `served_also` needs (which it must have loaded)."""
    assert found["answer"]["statusCode"] == 200, found["answer"]
    for when in ("init", "served"):
        modules = found[when]
        assert "a2a_serverless.store.memory" in modules
        allowed = served_also if when == "served" else set()
        unexpected = {
            name: loaded(modules, name) for name in NOT_ON_THE_COLD_PATH if name not in allowed
        }
        assert {k: v for k, v in unexpected.items() if v} == {}, when
    for name in served_also:
        assert loaded(found["served"], name), name


PROGRAM_WITH_AN_EXECUTOR = """
import json, sys
from a2a_serverless import Agent, Settings
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import make_http_handler
from a2a_serverless_aws.config import AwsSettings

class EchoExecutor:
    async def execute(self, context, updater):
        await updater.add_artifact(context.text, name="echo")
        await updater.complete()

echo = Agent(name="Echo", description="Says back what it is told.", executor=EchoExecutor())
handler = make_http_handler(
    echo, Settings(store_url="memory://"), AwsSettings(), queue=InProcessQueue()
)
sys.path.insert(0, "bench/function")
from events import LambdaContext, http_api_event, send_body

answer = handler(http_api_event(send_body("hi", request_id=1)), LambdaContext())
print(json.dumps({"served": sorted(sys.modules), "answer": answer}))
"""


def test_an_agent_with_an_executor_class_never_loads_the_function_wrapper() -> None:
    found = run(PROGRAM_WITH_AN_EXECUTOR)
    assert json.loads(found["answer"]["body"])["result"]["status"]["state"] == "completed"
    modules = found["served"]
    unexpected = {name: loaded(modules, name) for name in NOT_ON_THE_COLD_PATH}
    assert {k: v for k, v in unexpected.items() if v} == {}
    assert loaded(modules, "a2a_serverless.function_agent") == []


# A callback's first handling: the resumer, the JWT's check (PyJWT, cryptography), the client
# that reads the remote task, httpx.
CALLBACK_NEEDS = (
    "a2a_serverless.durable.resume",
    "a2a_serverless.durable.session",
    "a2a_serverless.webhook_receiver",
    "jwt",
    "cryptography",
    "a2a_serverless.client",
    "httpx",
)

PROGRAM_WITH_REMOTES = """
import json, sys
from a2a_serverless import Settings, agent
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import make_http_handler
from a2a_serverless_aws.config import AwsSettings

@agent(name="Asker", description="Asks another.", remote_agents={"other": "https://o.example"})
async def asker(text: str) -> str:
    return text

handler = make_http_handler(
    asker, Settings(store_url="memory://"), AwsSettings(prime=PRIME), queue=InProcessQueue()
)
print(json.dumps({"init": sorted(sys.modules)}))
"""


def test_a_handler_with_remote_agents_loads_what_a_callback_needs_at_init() -> None:
    primed = run(PROGRAM_WITH_REMOTES.replace("PRIME", "True"))["init"]
    assert {name: bool(loaded(primed, name)) for name in CALLBACK_NEEDS} == dict.fromkeys(
        CALLBACK_NEEDS, True
    )
    # A2A_PRIME=false: the first callback pays for them, as before (but for the client's
    # modules, which the Runtime of an agent with remote agents loads to name them).
    unprimed = run(PROGRAM_WITH_REMOTES.replace("PRIME", "False"))["init"]
    assert [name for name in CALLBACK_NEEDS if loaded(unprimed, name)] == ["a2a_serverless.client"]


PROGRAM_WITHOUT_PUSH = """
import json, logging, sys
from a2a_serverless import Settings, agent
from a2a_serverless.queue.inprocess import InProcessQueue
from a2a_serverless_aws import make_http_handler
from a2a_serverless_aws.config import AwsSettings

@agent(name="Echo", description="Says back what it is told.")
async def echo(text: str) -> str:
    return text

handler = make_http_handler(
    echo,
    Settings(store_url="memory://", push_notifications=False),
    AwsSettings(),
    queue=InProcessQueue(),
)
sys.path.insert(0, "bench/function")
from events import LambdaContext, http_api_event, send_body

context = LambdaContext()
answer = handler(http_api_event(send_body("hi", request_id=1)), context)
served = sorted(sys.modules)
# The first record a kit logger lets through builds the Logger, with the invocation's keys.
logging.getLogger("a2a_serverless.x").warning("w")
print(json.dumps({"served": served, "answer": answer, "request_id": context.aws_request_id}))
"""


def test_a_function_that_logs_nothing_never_loads_powertools_before_it_answers() -> None:
    # Push off on purpose: init has nothing to warn about, the first request logs nothing.
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM_WITHOUT_PUSH],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=REPO,
        env={**os.environ, "AWS_REGION": "us-east-1", "POWERTOOLS_SERVICE_NAME": "echo"},
    )
    lines = result.stdout.strip().splitlines()
    found = json.loads(lines[-1])
    assert found["answer"]["statusCode"] == 200
    assert loaded(found["served"], "aws_lambda_powertools") == []
    (record,) = [json.loads(line) for line in lines[:-1] if '"level"' in line]
    assert record["message"] == "w" and record["level"] == "WARNING"
    # The keys the invocation set while the Logger was not built yet.
    assert record["service"] == "echo" and record["cold_start"] is True
    assert record["function_request_id"] == found["request_id"]
