"""Races on SQLite with each app instance its own OS process: two servers on one SQLite file.

Each instance is `uvicorn --factory tests.reliability.race_sqlite_app:app`: the kit's app as
`a2a-serverless dev` serves it, on its own `SqliteStore` (connection) on the shared WAL file.
What crosses processes (tests/reliability/race_processes.py): the JSON-RPC calls (HTTP), the
agents' gates and turn reports (HTTP to the driver), each process's ledger (a file the driver
merges), and the turns: each process's queue hands every job to the *other* process's worker
(POST /race/jobs), so the agent runs in one process while the task's messages and cancels
arrive through the other (or both). The driver drains, redelivers and reads dead letters
through each process's /race/ controls, and checks with its own SqliteStores on the file.

The scenarios and checks are those of tests/reliability/races.py; docs/RELIABILITY.md
("Races") has the figures. `A2A_RACE_ROUNDS` sets the cancel-vs-complete rounds (default 250
here), `A2A_RACE_TASKS` the tasks of the concurrent-messages scenario (default 25). `-s`
prints a summary line per scenario.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from a2a_serverless.store import SqliteStore
from a2a_serverless.store.base import Store
from tests.reliability.race_processes import Processes, StartProcesses, processes
from tests.reliability.races import (
    Deploy,
    cancel_vs_complete,
    concurrent_messages,
    driver_client,
    env_int,
    post_rpc,
)
from tests.support.server import LiveServer, free_port, start_server

ROUNDS = env_int("A2A_RACE_ROUNDS", 250)
TASKS = env_int("A2A_RACE_TASKS", 25)


class SqliteProcesses:
    """Two server processes on one SQLite file, each handing its jobs to the other."""

    def __init__(self, servers: list[LiveServer]) -> None:
        self.servers = servers
        self.client = driver_client()
        self._dead: list[str] = []

    async def rpc(self, index: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return await post_rpc(self.client, f"{self.servers[index].url}/", method, params)

    async def _control(self, server: LiveServer, name: str) -> None:
        response = await self.client.post(f"{server.url}/race/{name}")
        response.raise_for_status()

    async def drain(self) -> None:
        # A job goes from one process to the other's worker, never back: two passes settle all.
        for _ in range(2):
            for server in self.servers:
                await self._control(server, "drain")
        self._dead = []
        for server in self.servers:
            response = await self.client.get(f"{server.url}/race/dead-letters")
            self._dead += response.text.splitlines()

    async def redeliver(self) -> None:
        for server in self.servers:
            await self._control(server, "redeliver")

    def dead_letters(self) -> list[str]:
        return list(self._dead)


def on_file(path: Path, log_dir: Path) -> StartProcesses:
    @asynccontextmanager
    async def start(env: dict[str, str]) -> AsyncIterator[Processes]:
        ports = [free_port(), free_port()]
        servers: list[LiveServer] = []
        try:
            for index, port in enumerate(ports):
                args = [sys.executable, "-m", "uvicorn", "--factory"]
                args += ["tests.reliability.race_sqlite_app:app", "--host", "127.0.0.1"]
                args += ["--port", str(port), "--log-level", "warning", "--no-access-log"]
                server_env = {
                    **env,
                    "RACE_SQLITE_PATH": str(path),
                    "RACE_PEER_URL": f"http://127.0.0.1:{ports[1 - index]}",
                    "LOG_PATH": str(log_dir / f"instance-{'ab'[index]}.log"),
                }
                servers.append(
                    await asyncio.to_thread(start_server, args, port, server_env, what="race app")
                )
            started = SqliteProcesses(servers)
            try:
                yield started
            finally:
                await started.client.aclose()
        finally:
            for server in servers:
                await asyncio.to_thread(server.stop)

    return start


def deploy(tmp_path: Path) -> Deploy:
    path = tmp_path / "races.db"

    def open_store(_instance: int) -> Store:
        return SqliteStore(path)

    return processes(on_file(path, tmp_path), open_store)


async def test_cancel_racing_completion(tmp_path: Path) -> None:
    result = await cancel_vs_complete(deploy(tmp_path), store="sqlite", rounds=ROUNDS)
    print(result.summary())
    assert result.problems == []
    assert result.outcomes["canceled"] > 0 and result.outcomes["completed"] > 0, result.outcomes


async def test_concurrent_messages_to_one_task(tmp_path: Path) -> None:
    result = await concurrent_messages(deploy(tmp_path), store="sqlite", tasks=TASKS)
    print(result.summary())
    assert result.problems == []


async def test_the_driver_sends_every_call_on_a_new_connection() -> None:
    """No call of the drivers of processes (here and tests/gcp/runtime/test_races_processes.py)
    can meet a kept-alive connection its server is closing (the ReadError of a busy machine):
    each goes on a connection of its own, though the server offers to keep them alive."""
    connections = 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":", 1)[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                await reader.readexactly(length)
                body = b'{"jsonrpc": "2.0", "id": 1, "result": {}}'
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Connection: keep-alive\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
                )
                await writer.drain()
        except asyncio.IncompleteReadError:
            pass  # the client closed the connection
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/"
    try:
        async with httpx.AsyncClient() as pooled:
            for _ in range(3):
                await post_rpc(pooled, url, "tasks/get", {"id": "t"})
        assert connections == 1, "an ordinary client reuses its connection"
        async with driver_client() as client:
            for _ in range(3):
                assert await post_rpc(client, url, "tasks/get", {"id": "t"}) == {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "result": {},
                }
        assert connections == 4
    finally:
        server.close()
        await server.wait_closed()
