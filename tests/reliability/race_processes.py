"""The race scenarios of tests/reliability/races.py with each app instance an OS process.

`processes(start, open_store)` is a `races.Deploy`: it brings up the two instances of one
store's deployment (`start` returns its `Processes`: two dev-like servers on one SQLite file,
two awslambdaric runtimes per instance on DynamoDB Local, two functions-framework servers per
instance on the Firestore emulator) and gives the scenarios a `ProcessPair` that runs the same
checks as in thread mode. What crosses processes:

- the scenarios' calls: JSON-RPC to an instance over HTTP (or as a Lambda invocation event);
- the agents' reports: each process's agent (race_instance.py) waits at its gate and says which
  message each turn was for through HTTP requests to a coordinator in the driver (a
  `WebhookServer` whose replies are the `Observer`'s answers), so a gate opens across
  processes and the turns are seen in the order they ran;
- the ledger: each process appends the task writes its store acknowledged (and refused) and
  its kit's ERROR records to a file of its own; at every `drain` the driver merges the files
  (`race_instance.read_ledgers`), so the checks compare the same acknowledged writes with what
  is stored;
- the reads of the checks: the driver's own Store client per instance (`open_store(0|1)`) on
  the same database, table or emulator;
- the turns: each deployment's queue (a hand-off to the other process, SQS on moto, Pub/Sub);
  see the store's test file for which process runs a turn.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

from a2a_serverless.store.base import Store, TaskEvent, TaskRecord
from tests.push.webhook_server import Received, Reply, WebhookServer
from tests.reliability.race_instance import read_ledgers
from tests.reliability.races import Deploy, Ledger, Observer, RacePair, StoreFactory


class Processes(Protocol):
    """One store's two running instances, as the driver reaches them."""

    async def rpc(self, index: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A JSON-RPC call to instance `index`; the whole response object."""
        ...

    async def drain(self) -> None:
        """Wait until every job queued so far is done (retries included)."""
        ...

    async def redeliver(self) -> None:
        """Queue every run-agent job so far once more."""
        ...

    def dead_letters(self) -> list[str]:
        """The dead letters found at the last `drain`."""
        ...


# Starts a store's processes with these RACE_* settings added to their environment, and
# stops them when the context ends.
StartProcesses = Callable[[dict[str, str]], AbstractAsyncContextManager[Processes]]


class Coordinator:
    """The driver's end of the agents' hooks: POST /arrive/<key> is answered once the gate of
    `key` opens; POST /saw records a turn."""

    def __init__(self, observer: Observer) -> None:
        self.observer = observer
        self.server = WebhookServer(self._answer)

    async def _answer(self, received: Received) -> Reply:
        if received.path.startswith("/arrive/"):
            await self.observer.arrive(received.path.removeprefix("/arrive/"))
        elif received.path == "/saw":
            turn = json.loads(received.body)
            await self.observer.saw(turn["taskId"], turn["messageId"])
        else:
            return Reply(404, body=b"no such hook")
        return Reply()


class ProcessInstance:
    """One instance seen from the driver: calls go to its process, reads to a Store client
    of the driver's on the same database."""

    def __init__(self, processes: Processes, index: int, store: Store) -> None:
        self.processes = processes
        self.index = index
        self.store = store

    async def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await self.processes.rpc(self.index, method, params)

    async def read(self, task_id: str) -> TaskRecord | None:
        return await self.store.get_task(task_id)

    async def events(self, task_id: str) -> list[TaskEvent]:
        return await self.store.read_events(task_id, 0)


class ProcessPair:
    mode = "processes"

    def __init__(self, processes: Processes, stores: Sequence[Store], ledger_dir: Path) -> None:
        self.processes = processes
        self.instances = tuple(ProcessInstance(processes, i, s) for i, s in enumerate(stores))
        self.ledger_dir = ledger_dir
        self._ledger = Ledger()
        self._logged: list[str] = []

    @property
    def ledger(self) -> Ledger:
        return self._ledger

    def instance(self, index: int) -> ProcessInstance:
        return self.instances[index % 2]

    async def drain(self) -> None:
        await self.processes.drain()
        self._ledger, self._logged = read_ledgers(self.ledger_dir)

    async def redeliver(self) -> None:
        await self.processes.redeliver()

    def trouble(self) -> list[str]:
        dead = [f"dead letter: {d}" for d in self.processes.dead_letters()]
        return dead + [f"error logged: {line}" for line in self._logged]


def processes(start: StartProcesses, open_store: StoreFactory) -> Deploy:
    """Two instances as processes started by `start`; `open_store(0|1)` opens the driver's
    Store clients for the checks."""

    @asynccontextmanager
    async def deploy(agent_name: str, observer: Observer) -> AsyncIterator[RacePair]:
        coordinator = Coordinator(observer)
        await coordinator.server.start()
        stores = [open_store(0), open_store(1)]
        try:
            with tempfile.TemporaryDirectory(prefix="race-ledger-") as ledger_dir:
                env = {
                    "RACE_AGENT": agent_name,
                    "RACE_HOOKS_URL": coordinator.server.url(""),
                    "RACE_LEDGER_DIR": ledger_dir,
                }
                async with start(env) as started:
                    yield ProcessPair(started, stores, Path(ledger_dir))
        finally:
            for store in stores:
                await store.close()
            await coordinator.server.stop()

    return deploy
