"""The agent and the Lambda handlers the tests deploy (under awslambdaric or in-process).

Handlers are module attributes made on first access (`functions.http_handler`, ...), from the
environment the test gives the function, as a user's 3-line handler module would make them:

    http_handler            make_http_handler(subject)
    worker_handler          make_worker_handler(subject)
    poison_worker_handler   a worker whose store refuses every claim on a turn (a job that
                            fails every time, short of abandoning it)
    fault_worker_handler    make_worker_handler(faulty), the fault tests' agent
                            (tests/reliability/faults.py: it stops, hangs or overruns on cue)
    fault_dead_letter_handler  make_dead_letter_handler(faulty)

The agent, `subject`, records each run of a turn in $TEST_RUNS_DIR/<task id> (one line per
run), then works according to its message:

    "crash once"   after its first progress write, the process dies (os._exit) the first time
    "sleep <s>"    sleeps that long between progress and answer
    "produce text <n>" / "produce file <n>" / "produce chunks <k> <n>"
                   answers <n> characters of text, a file part of <n> bytes, or <k> chunks of
                   <n> characters, streamed (the contract suite's `large_text` / `large_file`,
                   seeded 0, and 0..k-1 for chunks)
    anything else  answers "done: <text>"
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from a2a_serverless import Context, agent, progress
from a2a_serverless.store import open_store
from a2a_serverless.store.base import Store, StoreError, TaskEvent, TaskRecord

if os.environ.get("TEST_SPANS_FILE"):
    # The tracing tests: this process's spans go to that file (tests/support/spans.py).
    from tests.support.spans import install_from_env

    install_from_env()


def _runs_dir() -> Path:
    return Path(os.environ["TEST_RUNS_DIR"])


@agent(name="Tester", description="Does what its message says, for the Lambda tests.")
def subject(ctx: Context) -> Iterator[Any]:
    runs = _runs_dir()
    with open(runs / ctx.task_id, "a") as log:
        log.write(f"run {os.getpid()}\n")
    yield progress("working on it")
    text = ctx.text
    if text == "crash once":
        marker = runs / f"{ctx.task_id}.crashed"
        if not marker.exists():
            marker.touch()
            os._exit(17)  # the process dies mid-turn, as on an out-of-memory kill
    elif text.startswith("sleep "):
        time.sleep(float(text.split()[1]))
    elif text.startswith("produce "):
        yield from _produce(text.split()[1:])
        return
    yield f"done: {text}"


def _produce(words: list[str]) -> Iterator[Any]:
    from a2a_serverless.testing.store_contract import large_file, large_text

    kind, numbers = words[0], [int(word) for word in words[1:]]
    if kind == "text":
        yield large_text(numbers[0])
    elif kind == "file":
        yield large_file(numbers[0])
    else:
        for seed in range(numbers[0]):
            yield large_text(numbers[1], seed=seed)


class ClaimRefusingStore:
    """A store that refuses every write holding a worker's claim: a turn can never start, but
    abandoning it (a write that drops the claim) still works."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        if record.claim is not None:
            raise StoreError("the table refused the write (simulated)")
        await self.inner.update_task(record, events, idempotency_key=idempotency_key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def __getattr__(name: str) -> Any:
    from a2a_serverless_aws import make_dead_letter_handler, make_http_handler, make_worker_handler

    if name == "http_handler":
        handler: Any = make_http_handler(subject)
    elif name == "worker_handler":
        handler = make_worker_handler(subject)
    elif name == "poison_worker_handler":
        store = ClaimRefusingStore(open_store(os.environ["A2A_STORE_URL"]))
        handler = make_worker_handler(subject, store=store)
    elif name == "fault_worker_handler":
        from tests.reliability.faults import faulty

        handler = make_worker_handler(faulty)
    elif name == "fault_dead_letter_handler":
        from tests.reliability.faults import faulty

        handler = make_dead_letter_handler(faulty)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = handler
    return handler
