"""The operator commands (`a2a-serverless tasks ...`, `dead-letters ...`) against a real store.

`check_operator_commands(store_url)` is the whole scenario, run by one test per store
(tests/integration: SQLite; tests/aws: DynamoDB Local; tests/gcp: the Firestore emulator):

1. an app on that store (dev mode, the example trip planner, signing keys of its own) takes a
   message with a push config whose webhook answers 400: the task asks for input, and that
   notification is dead-lettered at once (a 4xx is permanent);
2. `tasks tail` runs in a subprocess while the client answers; it prints the new events as
   they are logged and exits when the task completes, whose notification is dead-lettered too;
3. `tasks list` and `tasks show` (table and --json) see the task, its artifacts and its letters,
   and `dead-letters list` finds them, for the owner and with `--all-owners`;
4. the webhook now answers 200: `dead-letters redrive` sends both, signed with the
   deployment's keys; a second redrive sends nothing (safe to repeat), and `dead-letters list`
   shows none pending (`--all` shows them redriven).

The commands run as the installed CLI would (`python -m a2a_serverless.cli`, in a subprocess
with the test's environment), against the store the app wrote to.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import jwt

from a2a_serverless.app import create_app
from a2a_serverless.config import Settings
from a2a_serverless.push import generate_keys_json
from a2a_serverless.store import open_store
from tests.push.webhook_server import Received, Reply, WebhookServer

REPO = Path(__file__).resolve().parents[2]


def trip_planner() -> Any:
    spec = importlib.util.spec_from_file_location(
        "a2a_ops_trip_planner", REPO / "examples" / "trip_planner.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.trip_planner


async def cli(*args: str, env: dict[str, str], timeout: float = 60) -> tuple[int, str, str]:
    """`a2a-serverless args...` in a subprocess: (exit status, stdout, stderr)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "a2a_serverless.cli",
        *args,
        cwd=REPO,
        env={**os.environ, **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}


def user_message(text: str, **ids: str) -> dict[str, Any]:
    return {
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": text}],
        **ids,
    }


async def wait_for_letters(store_url: str, task_id: str, count: int) -> list[dict[str, Any]]:
    store = open_store(store_url)
    try:
        deadline = time.monotonic() + 20
        while True:
            record = await store.get_task(task_id)
            letters = [] if record is None else record.internal.get("pushDeadLetters", [])
            if len(letters) >= count:
                return list(letters)
            assert time.monotonic() < deadline, f"{len(letters)} dead letter(s), not {count}"
            await asyncio.sleep(0.1)
    finally:
        await store.close()


async def check_operator_commands(store_url: str) -> None:
    keys = generate_keys_json("ES256")
    [key] = json.loads(keys)
    refusing = True

    def answer(_request: Received) -> Reply:
        return Reply(400, body=b"no such hook") if refusing else Reply(200)

    webhook = await WebhookServer(answer).start()
    env = {"A2A_STORE_URL": store_url, "A2A_PUSH_SIGNING_KEYS": keys, "A2A_DEV_MODE": "true"}
    app = create_app(
        trip_planner(), Settings(store_url=store_url, dev_mode=True, push_signing_keys=keys)
    )
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
    try:
        # 1. Input required; its notification is dead-lettered.
        config = {"url": webhook.url(), "token": "t0k"}
        params = {
            "message": user_message("Plan a trip please"),
            "configuration": {"pushNotificationConfig": config},
        }
        task = (await client.post("/", json=rpc("message/send", params))).json()["result"]
        task_id, context_id = task["id"], task["contextId"]
        assert task["status"]["state"] == "input-required"
        [first] = await wait_for_letters(store_url, task_id, 1)
        assert "400" in first["reason"]
        seq_before = int(first["seq"])

        # 2. `tasks tail` follows the answer to completion.
        tail = asyncio.ensure_future(
            cli("tasks", "tail", task_id, "--after", str(seq_before), "--interval", "0.2", env=env)
        )
        await asyncio.sleep(2)  # the tail is up and polling (it also reads what it missed)
        answer_params = {
            "message": user_message("to Lisbon for 2 days", taskId=task_id, contextId=context_id)
        }
        done = (await client.post("/", json=rpc("message/send", answer_params))).json()["result"]
        assert done["status"]["state"] == "completed"
        status, out, err = await tail
        assert status == 0, err
        assert f"Following task {task_id} (input-required)" in out
        assert "artifact" in out and "Lisbon" in out
        assert "completed (final)" in out
        assert f"Task {task_id} is completed." in out
        letters = await wait_for_letters(store_url, task_id, 2)
        nids = [letter["notificationId"] for letter in letters]

        # 3. list and show.
        status, out, err = await cli("tasks", "list", env=env)
        assert status == 0, err
        assert "TASK" in out and "DEAD LETTERS" in out
        [row] = [line for line in out.splitlines() if line.startswith(task_id)]
        assert row.split()[1:2] == ["completed"] and row.split()[-1] == "2"
        status, out, err = await cli("tasks", "list", "--state", "completed", "--json", env=env)
        assert status == 0, err
        listed = {t["taskId"]: t for t in json.loads(out)["tasks"]}
        assert listed[task_id]["pendingDeadLetters"] == 2
        status, out, err = await cli("tasks", "list", "--state", "working", "--json", env=env)
        assert task_id not in {t["taskId"] for t in json.loads(out)["tasks"]}
        status, out, err = await cli("tasks", "show", task_id, env=env)
        assert status == 0, err
        assert "State     completed" in out and "Artifacts (1)" in out
        assert "Dead letters (2)" in out and webhook.url() in out
        status, out, err = await cli("tasks", "show", task_id, "--json", env=env)
        shown = json.loads(out)
        assert shown["task"]["id"] == task_id
        assert [e["seq"] for e in shown["events"]] == list(range(1, shown["lastSeq"] + 1))
        assert [c["url"] for c in shown["pushConfigs"]] == [webhook.url()]
        assert [d["notificationId"] for d in shown["deadLetters"]] == nids
        status, _, err = await cli("tasks", "show", "no-such-task", env=env)
        assert status == 1 and "no task 'no-such-task'" in err

        status, out, err = await cli("dead-letters", "list", "--json", env=env)
        assert status == 0, err
        pending = [d for d in json.loads(out) if d["taskId"] == task_id]
        assert [d["notificationId"] for d in pending] == nids
        assert all("400" in d["reason"] for d in pending)
        # Every owner's, through the store's DeadLetterScan (every shipped store has one).
        status, out, err = await cli("dead-letters", "list", "--all-owners", "--json", env=env)
        assert status == 0, err
        everyones = [d for d in json.loads(out) if d["taskId"] == task_id]
        assert [d["notificationId"] for d in everyones] == nids
        assert {d["owner"] for d in everyones} == {"anonymous"}

        # 4. Redrive, twice.
        refusing = False
        posted = len(webhook.notifications())
        status, out, err = await cli("dead-letters", "redrive", "--task", task_id, env=env)
        assert status == 0, err
        assert out.count(": delivered") == 2 and "2 delivered, 0 failed, of 2 pending" in out
        resent = webhook.notifications()[posted:]
        assert sorted(r.notification_id or "" for r in resent) == sorted(nids)
        for received in resent:
            token = received.headers["authorization"].removeprefix("Bearer ")
            assert jwt.get_unverified_header(token)["kid"] == key["kid"]
            assert received.headers["x-a2a-notification-token"] == "t0k"
            assert json.loads(received.body)["id"] == task_id
        # This task's letters only: a shared table (DynamoDB Local, the Firestore emulator)
        # holds other tests' dead letters of the same owner, whose receivers are gone.
        status, out, err = await cli(
            "dead-letters", "redrive", "--task", task_id, "--json", env=env
        )
        assert status == 0, err
        assert json.loads(out) == {"redriven": [], "failed": 0}
        assert len(webhook.notifications()) == posted + 2
        status, out, err = await cli("dead-letters", "list", "--task", task_id, env=env)
        assert "0 pending dead letter(s)" in out
        status, out, err = await cli("dead-letters", "list", "--all", "--json", env=env)
        mine = [d for d in json.loads(out) if d["taskId"] == task_id]
        assert len(mine) == 2 and all(d["redrivenAt"] for d in mine)
        status, out, err = await cli(
            "dead-letters", "list", "--all-owners", "--all", "--json", env=env
        )
        assert status == 0, err
        mine = [d for d in json.loads(out) if d["taskId"] == task_id]
        assert len(mine) == 2 and all(d["redrivenAt"] for d in mine)
    finally:
        await client.aclose()
        await app.runtime.aclose()
        await webhook.stop()
