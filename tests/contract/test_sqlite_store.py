"""The Store contract against SqliteStore, and what only a file shared by processes can show."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import a2a_serverless.store as store_package
from a2a_serverless.store import (
    MemoryStore,
    SqliteStore,
    Store,
    TaskQuery,
    VersionConflict,
    open_store,
)
from a2a_serverless.store.sqlite import SCHEMA_VERSION
from a2a_serverless.testing.store_contract import (
    StoreContract,
    make_record,
    push_config,
    status_event,
    step,
)

REPO_ROOT = Path(store_package.__file__).resolve().parents[2]


class TestSqliteStore(StoreContract):
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[Store]:
        store = SqliteStore(tmp_path / "store.db")
        yield store
        await store.close()


# --- the file ---


async def test_creates_parent_directory_and_schema(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "deeper" / "a2a.db"
    store = SqliteStore(path)
    await store.close()
    assert path.exists()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert {"tasks", "events", "push_configs", "idempotency_keys"} <= tables
    assert {"tasks_by_owner", "tasks_by_owner_context"} <= tables


async def test_data_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "a2a.db"
    record = make_record(last_seq=1)
    store = SqliteStore(path)
    await store.create_task(record, [status_event(record, 1)], idempotency_key="k-1")
    await store.close()

    store = SqliteStore(path)
    assert await store.get_task(record.task_id) == record
    assert len(await store.read_events(record.task_id)) == 1
    assert await store.find_idempotency_key("k-1") == record.task_id
    await store.close()


async def test_refuses_a_file_from_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "a2a.db"
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(RuntimeError, match="schema version"):
        SqliteStore(path)


async def test_two_store_objects_on_one_file_see_each_other(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    a, b = SqliteStore(path), SqliteStore(path)
    try:
        record = make_record(last_seq=1)
        await a.create_task(record, [status_event(record, 1)], idempotency_key="k-a")
        assert await b.get_task(record.task_id) == record
        assert await b.find_idempotency_key("k-a") == record.task_id

        following, events = step(record, 2)
        await b.update_task(following, events)
        assert await a.get_task(record.task_id) == following
        assert len(await a.read_events(record.task_id)) == 3

        # A's view of version 1 is stale now.
        stale, stale_events = step(record, 1)
        with pytest.raises(VersionConflict):
            await a.update_task(stale, stale_events)

        page = await a.list_tasks(TaskQuery(owner=record.owner))
        assert page.records == [following]

        config = push_config(record.task_id, "cfg")
        await b.put_push_config(config)
        assert await a.list_push_configs(record.task_id) == [config]
        assert await a.delete_push_config(record.task_id, "cfg") is True
        assert await b.get_push_config(record.task_id, "cfg") is None
    finally:
        await a.close()
        await b.close()


# Each process reads the task, adds one to a counter and writes it back at the next version,
# as fast as it can. A lost update would leave the counter below the number of writes that
# reported success.
RACER = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from pathlib import Path

    from a2a_serverless.store.base import VersionConflict
    from a2a_serverless.store.sqlite import SqliteStore
    from a2a_serverless.testing.store_contract import step

    async def main(path: str, task_id: str, rounds: int, ready: str, go: str) -> None:
        store = SqliteStore(path)
        Path(ready).touch()
        while not Path(go).exists():
            time.sleep(0.001)
        wins = conflicts = 0
        for _ in range(rounds):
            record = await store.get_task(task_id)
            count = record.internal.get("count", 0)
            following, events = step(record, 1, internal={"count": count + 1})
            try:
                await store.update_task(following, events)
            except VersionConflict:
                conflicts += 1
            else:
                wins += 1
        await store.close()
        print(json.dumps({"wins": wins, "conflicts": conflicts}))

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]))
    """
)


def run_racers(path: Path, task_id: str, rounds: int, workdir: Path) -> list[dict[str, int]]:
    """Start two racer processes, release them together, and collect their tallies."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
    }
    go = workdir / "go"
    readies = [workdir / f"ready-{n}" for n in range(2)]
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(path), task_id, str(rounds), str(ready), str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for ready in readies
    ]
    try:
        deadline = time.monotonic() + 60
        while not all(ready.exists() for ready in readies):
            assert all(racer.poll() is None for racer in racers), "a racer died while starting"
            assert time.monotonic() < deadline, "racers did not start"
            time.sleep(0.01)
        go.touch()
        outputs = [racer.communicate(timeout=120) for racer in racers]
    finally:
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
                racer.wait()
    for racer, (_, err) in zip(racers, outputs, strict=True):
        assert racer.returncode == 0, err
    return [json.loads(out) for out, _ in outputs]


async def test_two_processes_lose_no_update(tmp_path: Path) -> None:
    path, rounds = tmp_path / "race.db", 300
    store = SqliteStore(path)
    record = make_record()
    await store.create_task(record)

    results = await asyncio.to_thread(run_racers, path, record.task_id, rounds, tmp_path)
    wins = sum(result["wins"] for result in results)
    assert sum(result["wins"] + result["conflicts"] for result in results) == 2 * rounds

    final = await store.get_task(record.task_id)
    assert final is not None
    assert final.internal["count"] == wins
    assert final.version == 1 + wins
    assert final.last_seq == wins
    events = await store.read_events(record.task_id)
    assert [event.seq for event in events] == list(range(1, wins + 1))
    await store.close()


# --- open_store and the package ---


async def test_open_store_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    memory = open_store("memory://")
    assert isinstance(memory, MemoryStore)

    opened: list[Store] = []
    relative = open_store("sqlite:///data/relative.db")
    absolute = open_store(f"sqlite:///{tmp_path / 'absolute.db'}")
    plain = open_store(str(tmp_path / "plain.db"))
    opened += [relative, absolute, plain]
    try:
        assert isinstance(relative, SqliteStore) and relative.path == Path("data/relative.db")
        assert (tmp_path / "data" / "relative.db").exists()
        assert isinstance(absolute, SqliteStore) and absolute.path == tmp_path / "absolute.db"
        assert isinstance(plain, SqliteStore) and (tmp_path / "plain.db").exists()
    finally:
        for store in opened:
            await store.close()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("redis://localhost", "unknown store scheme"),
        ("memory://something", "only options"),
        ("sqlite://relative.db", "sqlite:///"),
        ("sqlite:///", "sqlite:///"),
        ("tasks.json", "unknown store"),
        ("", "unknown store"),
    ],
)
def test_open_store_refuses(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        open_store(url)


@pytest.mark.parametrize("url", ["dynamodb://tasks", "firestore://project"])
def test_open_store_names_the_missing_adapter(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The test environment has both adapters installed: pretend they are not.
    monkeypatch.setattr(store_package, "_adapter_entry_points", lambda _scheme: [])
    with pytest.raises(ValueError, match="adapter distribution"):
        open_store(url)


def test_importing_the_package_does_not_import_sqlite3() -> None:
    code = (
        "import sys, a2a_serverless.store as s; "
        "assert 'sqlite3' not in sys.modules, 'sqlite3 imported eagerly'; "
        "s.MemoryStore; assert 'sqlite3' not in sys.modules; "
        "s.SqliteStore; assert 'sqlite3' in sys.modules"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_kit_adapters_stores_are_the_ones_their_distributions_register() -> None:
    # open_store finds them without reading every distribution's metadata: the same factories.
    from importlib.metadata import entry_points

    registered = {
        entry.name: entry.value
        for entry in entry_points(group=store_package.ENTRY_POINT_GROUP)
        if entry.name in store_package._KIT_STORES
    }
    assert registered == store_package._KIT_STORES
    for scheme, value in store_package._KIT_STORES.items():
        (found,) = store_package._adapter_entry_points(scheme)
        module, _, name = value.partition(":")
        assert found.load() is getattr(importlib.import_module(module), name)
