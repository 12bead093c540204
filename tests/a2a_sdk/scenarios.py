"""What every path (dev server, Lambda + SQS, GCP functions) checks of the a2a-sdk sample
executors (executors03.py / executors1.py, served by sdk_agents.py), whatever carries the
requests.

A path is a `Deployment`: `rpc` sends one JSON-RPC request (in A2A 0.3, or 1.0 with
`A2A-Version: 1.0`) and returns the response body; `pump` lets the worker run queued turns (the
test plays SQS's event source on AWS; elsewhere the queue delivers by itself). Sends are
non-blocking, so the same checks hold where the worker only runs when pumped.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

TERMINAL = {"completed", "canceled", "failed", "rejected"}


class Deployment(Protocol):
    async def rpc(self, method: str, params: Any, *, version: str = "0.3") -> dict[str, Any]: ...

    async def pump(self) -> None: ...


def message(text: str, **ids: str) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "kind": "message",
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": text}],
    }
    wire.update({"taskId" if k == "task_id" else "contextId": v for k, v in ids.items()})
    return wire


def result(response: dict[str, Any]) -> Any:
    assert "result" in response, response
    return response["result"]


async def send(
    path: Deployment, text: str, *, config: dict[str, Any] | None = None, **ids: str
) -> dict[str, Any]:
    params = {
        "message": message(text, **ids),
        "configuration": {"blocking": False, **(config or {})},
    }
    task: dict[str, Any] = result(await path.rpc("message/send", params))
    assert task["kind"] == "task", task
    return task


async def until(
    path: Deployment,
    task_id: str,
    done: Callable[[dict[str, Any]], bool],
    *,
    timeout_s: float = 60.0,
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        task: dict[str, Any] = result(await path.rpc("tasks/get", {"id": task_id}))
        if done(task):
            return task
        assert time.monotonic() < deadline, f"task never got there: {task}"
        await path.pump()


def state_is(*states: str) -> Callable[[dict[str, Any]], bool]:
    return lambda task: task["status"]["state"] in states


def status_text(task: dict[str, Any]) -> str:
    parts = (task["status"].get("message") or {}).get("parts", [])
    return "".join(p.get("text", "") for p in parts)


async def wait_for_lines(log: Path, wanted: list[str], timeout_s: float = 30.0) -> list[str]:
    """The lines of `log` (the executors' SDK_TEST_LOG), once each of `wanted` is among them."""
    deadline = time.monotonic() + timeout_s
    while True:
        lines = await asyncio.to_thread(_lines, log)
        if all(w in lines for w in wanted):
            return lines
        assert time.monotonic() < deadline, f"{wanted} not all in {lines}"
        await asyncio.sleep(0.05)


def _lines(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


# --- the scenarios ------------------------------------------------------------------------------


async def echo_answers_with_a_message(path: Deployment) -> None:
    """helloworld's bare Message completes the task with it, in 0.3 and in 1.0."""
    task = await send(path, "echo hi")
    done = await until(path, task["id"], state_is(*TERMINAL))
    assert done["status"]["state"] == "completed", done
    assert status_text(done) == "echo: echo hi"
    assert done["status"]["message"]["taskId"] == task["id"]

    params = {
        "message": {
            "messageId": str(uuid.uuid4()),
            "role": "ROLE_USER",
            "parts": [{"text": "echo v1"}],
        },
        "configuration": {"returnImmediately": True},
    }
    sent = result(await path.rpc("SendMessage", params, version="1.0"))["task"]
    await until(path, sent["id"], state_is(*TERMINAL))
    got = result(await path.rpc("GetTask", {"id": sent["id"]}, version="1.0"))
    assert got["status"]["state"] == "TASK_STATE_COMPLETED", got
    assert got["status"]["message"]["parts"] == [{"text": "echo: echo v1"}]


async def a_raising_executor_fails_the_task(path: Deployment) -> None:
    task = await send(path, "echo boom")
    done = await until(path, task["id"], state_is(*TERMINAL))
    assert done["status"]["state"] == "failed"
    # The reason the client sees is the kit's safe one; the traceback stays in the logs.
    assert status_text(done) == "The agent failed while working on this task."


async def multi_turn_asks_then_answers(path: Deployment) -> dict[str, Any]:
    task = await send(path, "trip please")
    asked = await until(path, task["id"], state_is("input-required", *TERMINAL))
    assert asked["status"]["state"] == "input-required", asked
    assert status_text(asked) == "Where to?"
    await send(path, "Lisbon", task_id=task["id"], context_id=task["contextId"])
    done = await until(path, task["id"], state_is(*TERMINAL))
    assert done["status"]["state"] == "completed", done
    (artifact,) = done["artifacts"]
    assert artifact["name"] == "plan"
    assert artifact["parts"] == [{"kind": "text", "text": "3 days in Lisbon"}]
    texts = [m["parts"][0]["text"] for m in done["history"]]
    assert texts == ["trip please", "Where to?", "Lisbon", "Planning…"], texts
    # The same task read in A2A 1.0.
    got = result(await path.rpc("GetTask", {"id": task["id"]}, version="1.0"))
    assert got["status"]["state"] == "TASK_STATE_COMPLETED"
    assert got["artifacts"][0]["parts"] == [{"text": "3 days in Lisbon"}]
    return done


async def streamed_chunks_make_one_artifact(path: Deployment) -> dict[str, Any]:
    task = await send(path, "story time")
    done = await until(path, task["id"], state_is(*TERMINAL))
    assert done["status"]["state"] == "completed", done
    (artifact,) = done["artifacts"]
    assert artifact["artifactId"] == "story"
    assert "".join(p["text"] for p in artifact["parts"]) == "Once upon a time."
    return done


async def cancel_stops_a_long_task(
    path: Deployment, log: Path, *, canceled: Callable[[], Awaitable[None]] | None = None
) -> str:
    """A running slow task is canceled: its execute is cancelled and its cancel() called."""
    task = await send(path, "slow job")
    await until(path, task["id"], state_is("working", *TERMINAL))
    response = await path.rpc("tasks/cancel", {"id": task["id"]})
    assert result(response)["status"]["state"] == "canceled", response
    if canceled is not None:
        await canceled()
    lines = await wait_for_lines(
        log, [f"execute-cancelled {task['id']}", f"cancel {task['id']} slow working"]
    )
    assert lines.index(f"execute-cancelled {task['id']}") < lines.index(
        f"cancel {task['id']} slow working"
    )
    done = result(await path.rpc("tasks/get", {"id": task["id"]}))
    # Nothing the executor did after the cancel (its own canceled status) was written.
    assert done["status"] == {"state": "canceled", "timestamp": done["status"]["timestamp"]}
    return str(task["id"])
