"""Records written before the models moved to msgspec read back, in today's model.

`tests/fixtures/stored-v0.1/records.json` holds a task record (with a claim, history, artifacts
with a file by bytes and by URI, internal state), its three events and a push config, as the
previous model layer (`wire.py`) wrote them: 0.3's shapes, which the store layer reads since
the internal model became A2A 1.0's (`store/legacy.py`; the contract suite's
`test_records_of_earlier_versions_read_back` holds every store to it). Every store keeps these
JSON texts as they are (SQLite as TEXT, DynamoDB and Firestore zlib-packed in a body attribute)
and reads them through the same functions of `a2a_serverless.store.base`, tested here; the
SQLite test also reads them out of a store file, as rows an older version left there. Written
again, a record is in today's form, and reads back the same. The push config is 0.3's nested
form, which the store layer reads into today's flat config and writes in today's form (the store
contract reads such configs back through every store).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless.models import (
    AuthenticationInfo,
    Part,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a_serverless.store.base import (
    StoredPushConfig,
    event_from_json,
    event_to_json,
    push_config_from_json,
    push_config_to_json,
    record_from_json,
    record_to_json,
)
from a2a_serverless.store.sqlite import SqliteStore

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "stored-v0.1" / "records.json"
STORED: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_record_reads_back_and_is_written_the_same() -> None:
    record = record_from_json(STORED["record"])
    assert record.task.status.state is TaskState.COMPLETED
    assert record.claim is not None and record.claim.attempt == 2
    assert record.internal["push"] == {"cfg-1": 2}
    history = record.task.history
    assert history is not None and len(history) == 2
    assert history[0].parts[1] == Part(raw="aGk=", media_type="text/plain", filename="hi.txt")
    assert history[0].parts[2] == Part(data={"a": [1, 2.5, None, True]})
    artifacts = record.task.artifacts
    assert artifacts is not None
    assert artifacts[0].parts[1] == Part(
        url="https://example.com/f.pdf", media_type="application/pdf"
    )
    written = record_to_json(record)
    assert '"kind"' not in written
    assert record_from_json(written) == record


def test_events_and_push_config_read_back_and_are_written_the_same() -> None:
    finals = []
    for seq, text in STORED["events"].items():
        event = event_from_json(int(seq), text)
        assert event.seq == int(seq)
        written = event_to_json(event)
        assert written.startswith(('{"statusUpdate":', '{"artifactUpdate":'))
        assert event_from_json(int(seq), written) == event
        finals.append(event.is_final)
    assert finals == [False, False, True]
    config = push_config_from_json(STORED["pushConfig"])
    assert config == PUSH_CONFIG
    assert push_config_from_json(push_config_to_json(config)) == config


# The fixture's push config, as it reads now: flat, its one scheme the first of the list.
PUSH_CONFIG = StoredPushConfig(
    task_id="t-1",
    owner="user:alice",
    config=TaskPushNotificationConfig(
        url="https://hooks.example.com/a2a",
        id="cfg-1",
        task_id="t-1",
        token="tok",
        authentication=AuthenticationInfo(scheme="Bearer", credentials="secret"),
    ),
)


@pytest.mark.asyncio
async def test_sqlite_file_with_rows_of_the_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    SqliteStore(path)  # creates the schema
    record = json.loads(STORED["record"])
    task = record["task"]
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO tasks (task_id, owner, context_id, state, version, last_seq, created_at,"
            " updated_at, expires_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                task["id"],
                record["owner"],
                task["contextId"],
                task["status"]["state"],
                record["version"],
                record["lastSeq"],
                record["createdAt"],
                record["updatedAt"],
                None,  # kept from expiry: the test's clock is the wall clock
                STORED["record"],
            ),
        )
        conn.executemany(
            "INSERT INTO events (task_id, seq, body) VALUES (?, ?, ?)",
            [(task["id"], int(seq), text) for seq, text in STORED["events"].items()],
        )
        conn.execute(
            "INSERT INTO push_configs (task_id, config_id, owner, body) VALUES (?, ?, ?, ?)",
            (task["id"], "cfg-1", record["owner"], STORED["pushConfig"]),
        )
    store = SqliteStore(path)
    got = await store.get_task(task["id"])
    assert got is not None and got.task == record_from_json(STORED["record"]).task
    events = await store.read_events(task["id"])
    assert events == [event_from_json(int(s), text) for s, text in STORED["events"].items()]
    config = await store.get_push_config(task["id"], "cfg-1")
    assert config == PUSH_CONFIG
    await store.close()
