"""What every process of a process-mode race runs besides its app (tests/reliability/races.py).

The driver (tests/reliability/race_processes.py) starts each process with:

    RACE_AGENT       the scenario's agent, `races.RACER` or `races.CONVERSATION`
    RACE_HOOKS_URL   the driver's coordinator: the agent waits at its gate and says which
                     message each turn was for there, over HTTP (`HooksClient`)
    RACE_LEDGER_DIR  where the process appends its ledger, `<pid>.jsonl` (`LedgerFile`): one
                     JSON line per task write its store acknowledged or refused, and one per
                     ERROR record of the kit's loggers

and the process's entry point (race_sqlite_app.py, tests/aws/runtime/race_functions.py,
tests/gcp/runtime/race_main.py) builds its app with `race_agent()` and `ledger_store(store)`.
`read_ledgers` is the driver's half of the file format: it merges every process's file into
one `Ledger`, so the checks read the same ledger as in thread mode. A process's other records
for the driver go to files of their own beside it (`JsonLines`, read with `read_json_lines`;
e.g. the jobs the GCP functions published, race_main.py).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from a2a_serverless import Agent
from a2a_serverless.store.base import (
    Store,
    TaskEvent,
    TaskRecord,
    event_from_json,
    event_to_json,
    record_from_json,
    record_to_json,
)
from tests.reliability.races import WAIT_S, Ledger, LedgerStore, refusal, scenario_agent

# A process's ledger file: `<pid>.jsonl`.
LEDGER_SUFFIX = ".jsonl"
# The kit's loggers whose ERROR records a healthy race never has.
KIT_LOGGERS = ("a2a_serverless", "a2a_serverless_aws", "a2a_serverless_gcp")


class HooksClient:
    """The agent's `AgentHooks` in a process: each call is a request to the driver, answered
    once the driver has taken it in (a gate: once the driver lets the agent go)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")

    async def arrive(self, key: str) -> None:
        await self._post(f"/arrive/{key}", {})

    async def saw(self, task_id: str, message_id: str) -> None:
        await self._post("/saw", {"taskId": task_id, "messageId": message_id})

    async def _post(self, path: str, body: dict[str, str]) -> None:
        # A client per call: the process may run its agent on more than one event loop (a
        # Lambda container's loop, a server's), and a client belongs to one.
        async with httpx.AsyncClient(timeout=WAIT_S + 10) as client:
            response = await client.post(f"{self.url}{path}", json=body)
            response.raise_for_status()


class JsonLines:
    """A file of this process's own in `directory`, `<pid><suffix>`, that JSON objects are
    appended to, one per line (from any thread)."""

    def __init__(self, directory: Path, suffix: str) -> None:
        self.path = directory / f"{os.getpid()}{suffix}"
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._lock = threading.Lock()

    def append(self, entry: dict[str, Any]) -> None:
        # One write() per line on an O_APPEND file: lines of concurrent writers never mix.
        data = (json.dumps(entry) + "\n").encode()
        with self._lock:
            os.write(self._fd, data)


def read_json_lines(directory: Path, suffix: str) -> list[dict[str, Any]]:
    """Every complete line of every process's `JsonLines` file of `suffix` in `directory`."""
    entries = []
    for path in sorted(directory.glob(f"*{suffix}")):
        text = path.read_text()
        # A line being written as the file is read is left for the next read.
        entries += [json.loads(line) for line in text[: text.rfind("\n") + 1].splitlines()]
    return entries


class LedgerFile(JsonLines):
    """A process's ledger: `Acknowledgements` appended as JSON lines to its own file."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory, LEDGER_SUFFIX)

    def acknowledged(self, record: TaskRecord, events: Sequence[TaskEvent]) -> None:
        self.append(
            {
                "write": record_to_json(record),
                "events": [[event.seq, event_to_json(event)] for event in events],
            }
        )

    def refused(self, error: Exception, record: TaskRecord) -> None:
        text = f"task {record.task_id} v{record.version}: {error!r}"
        self.append({"refused": refusal(error), "text": text})

    def logged(self, line: str) -> None:
        self.append({"error": line})


class ErrorsToLedger(logging.Handler):
    """ERROR records of the kit's loggers, into the process's ledger file."""

    def __init__(self, ledger: LedgerFile) -> None:
        super().__init__(logging.ERROR)
        self.ledger = ledger

    def emit(self, record: logging.LogRecord) -> None:
        self.ledger.logged(f"{record.name}: {record.getMessage()}")


_ledger: LedgerFile | None = None


def ledger_file() -> LedgerFile:
    """This process's ledger file (made once, with the handler of the kit's ERROR records)."""
    global _ledger
    if _ledger is None:
        _ledger = LedgerFile(Path(os.environ["RACE_LEDGER_DIR"]))
        handler = ErrorsToLedger(_ledger)
        for name in KIT_LOGGERS:
            logging.getLogger(name).addHandler(handler)
    return _ledger


def ledger_store(inner: Store) -> LedgerStore:
    """`inner`, telling this process's ledger file every write it acknowledges or refuses."""
    return LedgerStore(inner, ledger_file())


def race_agent() -> Agent:
    """The scenario's agent (RACE_AGENT), reporting to the driver (RACE_HOOKS_URL)."""
    hooks = HooksClient(os.environ["RACE_HOOKS_URL"])
    return scenario_agent(os.environ["RACE_AGENT"], hooks, seed=os.getpid())


def read_ledgers(directory: Path) -> tuple[Ledger, list[str]]:
    """Every process's ledger file merged: the ledger, and the ERROR records logged."""
    ledger = Ledger()
    logged: list[str] = []
    for entry in read_json_lines(directory, LEDGER_SUFFIX):
        if "write" in entry:
            events = [event_from_json(seq, text) for seq, text in entry["events"]]
            ledger.acknowledged(record_from_json(entry["write"]), events)
        elif "refused" in entry:
            ledger.tally(entry["refused"], entry["text"])
        else:
            logged.append(entry["error"])
    return ledger, logged
