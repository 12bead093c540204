"""Two dev agents in one folder: a store file and its queued turns belong to the agent that
made them (devstore.py, queue/sqlite.py), and the dev server says what its store holds."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_serverless.devstore import StoreTakenError, claim
from a2a_serverless.holders import local_holder_id
from a2a_serverless.queue.base import Job, RunAgentJob, RunTurn, decode_job, encode_job
from a2a_serverless.queue.sqlite import SqliteQueue
from tests.support.operator_cli import rpc, user_message
from tests.support.server import REPO, LiveServer
from tests.unit.test_job_wire import PREVIOUS

KEEPER = "tests.integration.dev_store_agents:keeper"
OTHER = "tests.integration.dev_store_agents:other"


def dead_holder() -> str:
    """The holder id of a process of this host that has exited."""
    exited = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return local_holder_id().split("/")[0] + f"/{exited.stdout.strip()}/x"


def task_of(server: LiveServer, task_id: str) -> dict[str, Any]:
    got = httpx.post(server.url, json=rpc("tasks/get", {"id": task_id}), timeout=10).json()
    result: dict[str, Any] = got["result"]
    return result


def wait_state(server: LiveServer, task_id: str, state: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while (task := task_of(server, task_id))["status"]["state"] != state:
        assert time.monotonic() < deadline, f"task never {state}: {task}"
        time.sleep(0.05)
    return task


def test_an_agent_killed_mid_turn_keeps_its_task_from_the_next_agent_in_the_folder(
    live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'a2a-tasks.db'}"
    gate = tmp_path / "gate"
    keeper = live_server(KEEPER, A2A_STORE_URL=store, A2A_TEST_GATE=str(gate))
    assert f"store:      {store} (empty; the tasks of 'Keeper')" in keeper.log()
    params = {"message": user_message("plan"), "configuration": {"blocking": False}}
    task_id = httpx.post(keeper.url, json=rpc("message/send", params), timeout=10).json()["result"][
        "id"
    ]
    wait_state(keeper, task_id, "working")
    os.kill(keeper.process.pid, signal.SIGKILL)
    keeper.process.wait()

    # Another agent started in the same folder is refused, in one line naming the file's agent.
    gate.touch()
    env = {**os.environ, "PYTHONPATH": str(REPO), "A2A_STORE_URL": store}
    refused = subprocess.run(
        [sys.executable, "-m", "a2a_serverless.cli", "dev", OTHER, "--port", "9"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert refused.stderr.strip().splitlines()[-1:] == [
        f"a2a-serverless dev: the store {tmp_path / 'a2a-tasks.db'} is the store of 'Keeper', "
        "not of 'Other': it holds their tasks (1 task, 1 not finished, 1 queued job). Give this "
        "agent a store of its own (--store sqlite:///<name>-tasks.db), or serve it from another "
        "folder"
    ]

    # Its own agent, started again, finishes the turn with its own code.
    again = live_server(KEEPER, A2A_STORE_URL=store, A2A_TEST_GATE=str(gate))
    assert "(1 task, 1 not finished, 1 queued job; the tasks of 'Keeper')" in again.log()
    task = wait_state(again, task_id, "completed")
    assert "Keeper ran: plan" in str(task["artifacts"])


def test_a_running_dev_server_keeps_even_an_empty_store_to_itself(tmp_path: Path) -> None:
    path = tmp_path / "a2a-tasks.db"
    assert claim(path, ["Keeper"]) == "empty; the tasks of 'Keeper'"
    # This process is the Keeper's dev server, alive.
    with pytest.raises(StoreTakenError, match="a dev server of 'Keeper' is using it"):
        claim(path, ["Other"])
    # An app serving the Keeper beside another agent takes the file over.
    assert claim(path, ["Keeper", "Other"]) == "empty; the tasks of 'Keeper', 'Other'"


def test_an_empty_store_of_a_stopped_agent_is_free(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "a2a-tasks.db"
    claim(path, ["Keeper"])
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE a2a_dev_agents SET holder = ?", (dead_holder(),))
    assert claim(path, ["Other"]) == "empty; the tasks of 'Other'"


async def test_a_queued_job_waits_for_its_own_agent(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ran: dict[str, list[str]] = {"Keeper": [], "Other": []}

    def handler(name: str) -> Callable[[Job], Any]:
        async def handle(job: Job) -> None:
            ran[name].append(job.id)

        return handle

    path = tmp_path / "a2a-tasks.db"
    other = SqliteQueue(path, handler("Other"), agent="Other")
    keeper = SqliteQueue(path, handler("Keeper"), agent="Keeper")
    job = RunAgentJob(task_id="t", payload=RunTurn("s"))
    anyones = RunAgentJob(task_id="u", payload=RunTurn("s"))
    # The Keeper's process was killed holding its job; a job from before jobs had agents.
    other._db.executemany(
        "INSERT INTO a2a_jobs (id, body, run_at, holder, lease_until, agent) "
        "VALUES (?, ?, 0, ?, ?, ?)",
        [
            (job.id, encode_job(job).decode(), dead_holder(), 2**62, "Keeper"),
            (anyones.id, encode_job(anyones).decode(), None, None, None),
        ],
    )
    try:
        with caplog.at_level(logging.WARNING, "a2a_serverless.queue"):
            assert await other.recover() == 1
            await other.drain()
            assert await other.recover() == 0
        assert ran == {"Keeper": [], "Other": [anyones.id]}
        said = [r.getMessage() for r in caplog.records if "belongs to agent" in r.getMessage()]
        assert said == [
            f"job {job.id} (run-agent) of task t belongs to agent 'Keeper', not 'Other': left "
            "in the queue for it"
        ]
        assert await keeper.recover() == 1
        await keeper.drain()
        assert ran == {"Keeper": [job.id], "Other": [anyones.id]}
        assert keeper._db.execute("SELECT COUNT(*) FROM a2a_jobs").fetchone()[0] == 0
    finally:
        await other.aclose()
        await keeper.aclose()


async def test_the_jobs_the_previous_version_left_in_the_file_are_taken_over(
    tmp_path: Path,
) -> None:
    """A dev server of the previous version stopped with jobs in the table: the new one reads
    each as it was written, and runs it."""
    ran: list[Job] = []

    async def handle(job: Job) -> None:
        ran.append(job)

    # Each as the previous version wrote it, with an id of its own (a row's key is its id).
    bodies = {
        f"j{n}": text.replace(f'"id":"{json.loads(text)["id"]}"', f'"id":"j{n}"', 1)
        for n, text in enumerate(PREVIOUS.values())
    }
    queue = SqliteQueue(tmp_path / "a2a-tasks.db", handle, agent="Keeper")
    queue._db.executemany(
        "INSERT INTO a2a_jobs (id, body, run_at, holder, lease_until, agent) "
        "VALUES (?, ?, 0, NULL, NULL, 'Keeper')",
        list(bodies.items()),
    )
    try:
        assert await queue.recover() == len(PREVIOUS)
        await queue.drain()
        assert sorted(ran, key=lambda job: job.id) == [decode_job(b) for b in bodies.values()]
        assert queue._db.execute("SELECT COUNT(*) FROM a2a_jobs").fetchone()[0] == 0
    finally:
        await queue.aclose()


def test_a_store_in_memory_says_it_keeps_nothing(live_server: Callable[..., LiveServer]) -> None:
    server = live_server(OTHER, A2A_STORE_URL="memory://")
    assert "store:      memory:// (in memory: nothing is kept when the server stops)" in (
        server.log()
    )
