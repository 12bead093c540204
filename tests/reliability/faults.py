"""Shared helpers of the fault tests (tests/aws/runtime/test_faults.py, tests/gcp/runtime/).

- `log_problems(record, events)`: what must hold of every task whatever failed while it ran:
  its event log runs gap-free from 1 to the record's `last_seq`, at most one terminal event and
  only as the last one, and the stored task is exactly what its log folds to (status, history,
  artifacts), so no write landed half.
- `RestartableDynamoDB`: a DynamoDB Local of a test's own, file-backed (``-dbPath``) so what
  it stored survives a restart, which the test kills (SIGKILL, as a crash) and starts again on
  the same port, or freezes (SIGSTOP) and thaws.
- `Outcomes`: a thread-safe tally of what clients got during a fault (by kind), with examples.
- `faulty`: the agent the fault tests deploy (AWS: tests/aws/runtime/functions.py; Google
  Cloud: the main.py tests/gcp/runtime/test_faults.py writes). It streams an answer in chunks
  and stops, hangs or overruns where its message says (below).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from a2a_serverless import Agent, Context, TaskUpdater, progress
from a2a_serverless.function_agent import FunctionExecutor
from a2a_serverless.lifecycle import apply_event
from a2a_serverless.models import Task, TaskStatusUpdateEvent
from a2a_serverless.store.base import TaskEvent, TaskRecord


def log_problems(record: TaskRecord, events: Sequence[TaskEvent]) -> list[str]:
    """What is wrong with a single-turn task's record and log (nothing: an empty list)."""
    task = record.task
    problems = []
    seqs = [e.seq for e in events]
    if seqs != list(range(1, len(events) + 1)):
        problems.append(f"sequence numbers are not 1..n without gaps: {seqs}")
    if record.last_seq != len(events):
        problems.append(f"record.last_seq={record.last_seq} but the log has {len(events)} events")
    statuses = [e for e in events if isinstance(e.payload, TaskStatusUpdateEvent)]
    terminal = [e.seq for e in statuses if e.payload.status.state.is_terminal]  # type: ignore[union-attr]
    if len(terminal) > 1:
        problems.append(f"{len(terminal)} terminal events: seqs {terminal}")
    if terminal and terminal[-1] != seqs[-1]:
        problems.append(f"the terminal event (seq {terminal[-1]}) is not the last ({seqs[-1]})")
    if any(e.payload.task_id != task.id for e in events):
        problems.append("an event names another task")
    if not statuses or statuses[0].seq != 1:
        problems.append("the log does not start with the task's first status")
        return problems
    # Fold the log over the task as it was created (its first message, its first status).
    first = statuses[0].payload
    assert isinstance(first, TaskStatusUpdateEvent)
    history = (task.history or [])[:1]
    folded = Task(id=task.id, context_id=task.context_id, status=first.status, history=history)
    for event in events[1:]:
        folded = apply_event(folded, event.payload)
    if folded.status.model_dump() != task.status.model_dump():
        problems.append(f"stored status {task.status.state} is not the log's {folded.status.state}")
    if _ids(folded.history) != _ids(task.history):
        problems.append("the stored history is not the log's")
    if _dump(folded.artifacts) != _dump(task.artifacts):
        problems.append(
            f"the stored artifacts are not the log's: {_dump(task.artifacts)} != "
            f"{_dump(folded.artifacts)}"
        )
    return problems


def _ids(messages: Sequence[object] | None) -> list[str]:
    return [m.message_id for m in messages or []]  # type: ignore[attr-defined]


def _dump(artifacts: Sequence[object] | None) -> list[object]:
    return [a.model_dump() for a in artifacts or []]  # type: ignore[attr-defined]


def artifact_texts(task: Task) -> list[str]:
    """The text of each of the task's artifacts (its text parts joined)."""
    texts = []
    for artifact in task.artifacts or []:
        texts.append("".join(getattr(p, "text", "") for p in artifact.parts))
    return texts


class Outcomes:
    """What the clients got, by kind ("ok", "503", ...), with one example of each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: collections.Counter[str] = collections.Counter()
        self.examples: dict[str, str] = {}

    def add(self, kind: str, example: str = "") -> None:
        with self._lock:
            self.counts[kind] += 1
            self.examples.setdefault(kind, example[:600])

    def __repr__(self) -> str:
        return f"Outcomes({dict(self.counts)}, examples={self.examples})"


class RestartableDynamoDB:
    """``java -jar DynamoDBLocal.jar -dbPath <dir> -sharedDb -port <port>``, stoppable and
    restartable on the same port; its output is appended to `log_path`."""

    def __init__(self, jar: Path, db_dir: Path, port: int, log_path: Path) -> None:
        self.jar = jar
        self.db_dir = db_dir
        self.port = port
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60.0) -> float:
        """Start it and wait until it answers; returns the seconds that took."""
        java = shutil.which("java")
        if java is None:
            raise RuntimeError("DynamoDB Local needs java on PATH")
        command = [
            java,
            f"-Djava.library.path={self.jar.parent / 'DynamoDBLocal_lib'}",
            "-jar",
            str(self.jar),
            "-dbPath",
            str(self.db_dir),
            "-sharedDb",
            "-port",
            str(self.port),
        ]
        began = time.monotonic()
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=self.jar.parent, stdout=log, stderr=subprocess.STDOUT
            )
        self.starts += 1
        while not _answers(self.port):
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"DynamoDB Local exited with {self.process.returncode}:\n{self.log_tail()}"
                )
            if time.monotonic() - began > timeout_s:
                raise RuntimeError(f"DynamoDB Local not up after {timeout_s} s:\n{self.log_tail()}")
            time.sleep(0.05)
        return time.monotonic() - began

    def kill(self) -> None:
        """Kill it as a crash would (SIGKILL): no shutdown, whatever it was doing."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(15)

    def freeze(self) -> None:
        """Stop it where it stands (SIGSTOP): connections open, nothing answered."""
        if self.process is not None:
            self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        self.thaw()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(15)

    def log_tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return "(no log)"


def _answers(port: int) -> bool:
    # Any HTTP answer will do (DynamoDB Local says 400 to a bare GET).
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            return sock.recv(12).startswith(b"HTTP/")
    except OSError:
        return False


# --- the agent ----------------------------------------------------------------------------------
#
# `faulty` streams an answer of <n> chunks ("chunk 0 ", "chunk 1 ", ...) from a generator, as a
# plain @agent function would, and records each run of a turn in $TEST_RUNS_DIR/<task id>. Its
# message says what else it does:
#
#   "stop <point> <n>"   the first run of the turn stops at <point>, touches
#                        $TEST_RUNS_DIR/<task id>.at-<point> and waits to be killed (the test
#                        SIGKILLs the process); later runs go straight through. Points, in order:
#                        claimed    the turn is claimed, no event written yet
#                        working    "working" and a progress message written
#                        partial    the first chunk of the answer written (lastChunk false)
#                        streamed   every chunk and the closing lastChunk written, not `completed`
#                        completed  `completed` written, the worker has not answered its queue
#   "stream <n> <pause>"  <n> chunks with <pause> seconds between them (killed at random times)
#   "hang once <s>"      after "working", blocks the event loop for <s> seconds on the turn's
#                        first run (an agent the time budget cannot interrupt), not on later ones
#   "hang always <s>"    the same on every run
#   "overrun <s>"        after "working", sleeps <s> seconds without blocking the loop (the time
#                        budget stops it)
#
# A stop that is not killed within STOP_WAIT_S gives up with an error, so a test that failed to
# kill sees the task fail instead of hanging.

STOP_WAIT_S = 20.0


def _marker(task_id: str, point: str) -> Path:
    return _runs_dir() / f"{task_id}.at-{point}"


def _first_time(task_id: str, point: str) -> bool:
    """True the first time a turn of `task_id` reaches `point` (it leaves a marker file)."""
    marker = _marker(task_id, point)
    if marker.exists():
        return False
    marker.touch()
    return True


def _stop_sync(task_id: str, point: str, plan: list[str]) -> None:
    if plan[:2] == ["stop", point] and _first_time(task_id, point):
        time.sleep(STOP_WAIT_S)
        raise RuntimeError(f"stopped at {point} and was not killed")


async def _stop(task_id: str, point: str, plan: list[str]) -> None:
    if plan[:2] == ["stop", point] and _first_time(task_id, point):
        await asyncio.sleep(STOP_WAIT_S)
        raise RuntimeError(f"stopped at {point} and was not killed")


def _answer(ctx: Context) -> Iterator[Any]:
    plan = ctx.text.split()
    yield progress("working on it")
    _stop_sync(ctx.task_id, "working", plan)
    if plan[0] == "overrun":
        time.sleep(float(plan[1]))
    chunks = int(plan[-1]) if plan[0] == "stop" else int(plan[1]) if plan[0] == "stream" else 1
    pause = float(plan[2]) if plan[0] == "stream" else 0.0
    for index in range(chunks):
        yield f"chunk {index} "
        if index == 0:
            _stop_sync(ctx.task_id, "partial", plan)
        time.sleep(pause)


def _record_run(task_id: str) -> None:
    with open(_runs_dir() / task_id, "a") as log:
        log.write(f"run {os.getpid()}\n")


class _StopBeforeComplete:
    """The updater the generator's executor writes through: `complete` stops first (the point
    "streamed": every chunk written, the turn not yet completed)."""

    def __init__(self, updater: TaskUpdater, task_id: str, plan: list[str]) -> None:
        self._updater = updater
        self._task_id = task_id
        self._plan = plan

    async def complete(self, *args: Any, **kwargs: Any) -> None:
        await _stop(self._task_id, "streamed", self._plan)
        await self._updater.complete(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._updater, name)


class FaultyExecutor:
    def __init__(self) -> None:
        self._stream = FunctionExecutor(_answer)

    async def execute(self, context: Context, updater: TaskUpdater) -> None:
        _record_run(context.task_id)
        plan = context.text.split()
        await _stop(context.task_id, "claimed", plan)
        if plan[0] == "hang" and (plan[1] == "always" or _first_time(context.task_id, "hang")):
            await updater.start_work("hanging")
            time.sleep(float(plan[2]))  # noqa: ASYNC251 - blocks the loop: no timeout can fire
        gated: Any = _StopBeforeComplete(updater, context.task_id, plan)
        await self._stream.execute(context, gated)
        await _stop(context.task_id, "completed", plan)


faulty = Agent(
    name="Faulty",
    description="Streams an answer and stops, hangs or overruns where its message says.",
    executor=FaultyExecutor(),
)


def _runs_dir() -> Path:
    return Path(os.environ["TEST_RUNS_DIR"])
