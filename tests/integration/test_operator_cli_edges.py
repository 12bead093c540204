"""The operator commands' edges (issue 31 items 3 and 9, issue 36 item 7), in process against
SQLite files this test writes: client text escaped on the terminal, stores that are not there or
are no stores, dead letters told from deliveries, every owner's dead letters, and a redrive
against the dev server's file signed with the key the server kept beside it.
(tests/support/operator_cli.py runs the commands' whole scenario on each store.)"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from a2a_serverless import agent, ops
from a2a_serverless.app import create_app
from a2a_serverless.cli import main
from a2a_serverless.devserver import DevTarget
from a2a_serverless.models import Artifact, Message, Part, Task, TaskState, TaskStatus
from a2a_serverless.push.keys import DEV_KEY_SUFFIX
from a2a_serverless.store import SqliteStore
from a2a_serverless.store.bookkeeping import DeadLetteredNotification, PushCursor, stored_updates
from a2a_serverless.testing.store_contract import (
    artifact_event,
    make_record,
    push_config,
    status_event,
)
from tests.push.webhook_server import Received, Reply, WebhookServer

# What a client may choose: a context id, an artifact's name, message text.
HOSTILE = "x\x1b]0;owned\x07\x1b[2K\rFAKE ROW\n\x9b1m\u202e"
ESCAPED = "x\\x1b]0;owned\\x07\\x1b[2K\\rFAKE ROW\\n\\x9b1m\\u202e"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\r")


def run(*argv: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def letter(config_id: str, seq: int, *, redriven: bool = False) -> DeadLetteredNotification:
    return DeadLetteredNotification(
        notification_id=f"n-{config_id}-{seq}",
        config_id=config_id,
        seq=seq,
        url="https://hooks.example/a",
        reason="HTTP 400",
        attempts=1,
        at="2026-01-01T00:00:00Z",
        redriven_at="2026-01-02T00:00:00Z" if redriven else None,
        redrive_attempts=1 if redriven else 0,
    )


def hostile_task(path: Path) -> str:
    """A finished task whose client-chosen text is hostile, in a new store at `path`."""

    async def write() -> str:
        store = SqliteStore(path)
        text = [Part(text=f"said {HOSTILE}")]
        task = Task(
            id="task-1",
            context_id=HOSTILE,
            status=TaskStatus(
                state=TaskState.COMPLETED,
                message=Message(message_id="m", role="agent", parts=list(text)),
            ),
            artifacts=[Artifact(artifact_id="a-1", name=HOSTILE, parts=list(text))],
        )
        record = make_record(owner="anonymous", task=task, last_seq=2)
        events = [artifact_event(record, 1, text=HOSTILE), status_event(record, 2)]
        await store.create_task(record, events)
        await store.close()
        return record.task_id

    return asyncio.run(write())


# --- issue 31 item 3: terminal escapes -----------------------------------------------------------


def test_list_show_and_tail_escape_what_clients_chose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'tasks.db'}"
    task_id = hostile_task(tmp_path / "tasks.db")
    commands = [
        ("tasks", "list", "--store", url),
        ("tasks", "show", task_id, "--store", url),
        ("tasks", "tail", task_id, "--store", url, "--timeout", "5"),
    ]
    for command in commands:
        status, out, err = run(*command, capsys=capsys)
        assert status == 0, err
        assert not any(char in out for char in RAW), (command, out)
        # (Message text has its whitespace, CR and LF included, folded into spaces.)
        assert "x\\x1b]0;owned\\x07\\x1b[2K" in out and "\\x9b1m\\u202e" in out, out
        if command[1] != "tail":
            assert ESCAPED in out, (command, out)  # a context id, an artifact name
        # Nothing a client sent starts a line of its own.
        assert not any(line.startswith("FAKE ROW") for line in out.splitlines())


def test_json_output_is_the_same_json_with_nothing_raw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'tasks.db'}"
    task_id = hostile_task(tmp_path / "tasks.db")
    status, out, err = run("tasks", "show", task_id, "--store", url, "--json", capsys=capsys)
    assert status == 0, err
    assert not any(char in out for char in RAW)
    shown = json.loads(out)
    assert shown["contextId"] == HOSTILE
    assert shown["task"]["artifacts"][0]["name"] == HOSTILE


# --- issue 31 item 9: odd store URLs -------------------------------------------------------------


def test_a_mistyped_sqlite_path_is_an_error_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no" / "such" / "tasks.db"
    for command in (("tasks", "list"), ("dead-letters", "list"), ("dead-letters", "redrive")):
        status, out, err = run(*command, "--store", f"sqlite:///{missing}", capsys=capsys)
        assert status == 1
        assert out == ""
        assert err == f"a2a-serverless {command[0]}: no SQLite store at {missing} (no such file)\n"
    assert not (tmp_path / "no").exists()


def _not_a_database(tmp_path: Path) -> str:
    path = tmp_path / "notes.db"
    path.write_text("hello, not a database\n")
    return f"sqlite:///{path}"


def _another_programs_database(tmp_path: Path) -> str:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE things (x)")
    return f"sqlite:///{path}"


@pytest.mark.parametrize(
    ("make_url", "message"),
    [
        (lambda tmp: f"sqlite:///{tmp}", "is a directory, not a file"),
        (_not_a_database, "file is not a database"),
        (_another_programs_database, "is an SQLite database but no a2a-serverless store"),
        (lambda tmp: "dynamodb://tasks", "has no region: add ?region=... to the URL"),
    ],
    ids=["directory", "not-a-database", "another-database", "dynamodb-without-region"],
)
def test_a_store_that_cannot_be_opened_is_one_line(
    make_url: Any,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_CONFIG_FILE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    url = make_url(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    status, out, err = run("tasks", "list", "--store", url, capsys=capsys)
    assert status == 1 and out == ""
    assert err.startswith("a2a-serverless tasks: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# --- issue 36 item 7: dead letters ---------------------------------------------------------------


def letters_store(path: Path) -> None:
    """Two owners' tasks: alice's with config c1 dead-lettered at seq 2 and delivered up to 3,
    config c2 delivered; bob's with one pending and one redriven letter; carol's with none."""

    async def write() -> None:
        store = SqliteStore(path)
        cursors = {"c1": PushCursor(delivered=3), "c2": PushCursor(delivered=3)}
        internal = stored_updates({}, push=cursors, dead_letters=[letter("c1", 2)])
        alice = make_record("task-alice", owner="alice", last_seq=3, internal=internal)
        await store.create_task(alice, [status_event(alice, s) for s in (1, 2, 3)])
        for cid in ("c1", "c2"):
            await store.put_push_config(push_config(alice.task_id, cid, owner="alice"))
        internal = stored_updates(
            {}, dead_letters=[letter("c9", 1), letter("c9", 2, redriven=True)]
        )
        bob = make_record("task-bob", owner="bob", last_seq=2, internal=internal)
        await store.create_task(bob, [status_event(bob, s) for s in (1, 2)])
        carol = make_record("task-carol", owner="carol", last_seq=1)
        await store.create_task(carol, [status_event(carol, 1)])
        await store.close()

    asyncio.run(write())


def test_show_tells_dead_lettered_notifications_from_delivered_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'tasks.db'}"
    letters_store(tmp_path / "tasks.db")
    status, out, err = run("tasks", "show", "task-alice", "--store", url, capsys=capsys)
    assert status == 0, err
    assert "DELIVERED UP TO SEQ" not in out
    rows = {
        line.split()[0]: line.split()[2:] for line in out.splitlines() if line[:2] in ("c1", "c2")
    }
    assert rows == {"c1": ["3", "2", "-"], "c2": ["3", "-", "-"]}
    status, out, err = run("tasks", "show", "task-alice", "--store", url, "--json", capsys=capsys)
    assert json.loads(out)["deadLetteredSeqs"] == {"c1": [2]}


def test_dead_letters_of_every_owner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'tasks.db'}"
    letters_store(tmp_path / "tasks.db")
    status, out, err = run("dead-letters", "list", "--store", url, "--json", capsys=capsys)
    assert status == 0 and json.loads(out) == []  # the default owner, "anonymous", has none
    status, out, _ = run(
        "dead-letters", "list", "--owner", "bob", "--json", "--store", url, capsys=capsys
    )
    assert [(d["taskId"], d["seq"]) for d in json.loads(out)] == [("task-bob", 1)]
    status, out, err = run(
        "dead-letters", "list", "--all-owners", "--all", "--json", "--store", url, capsys=capsys
    )
    assert status == 0, err
    listed = [(d["owner"], d["taskId"], d["seq"]) for d in json.loads(out)]
    assert listed == [("alice", "task-alice", 2), ("bob", "task-bob", 1), ("bob", "task-bob", 2)]
    status, out, err = run("dead-letters", "list", "--all-owners", "--store", url, capsys=capsys)
    assert status == 0, err
    assert "2 pending dead letter(s) of every owner" in out


def test_every_owner_is_refused_clearly_where_a_store_cannot_scan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'tasks.db'}"
    letters_store(tmp_path / "tasks.db")
    # A store without DeadLetterScan (a third-party one: every shipped store has it).
    monkeypatch.setattr(ops, "DeadLetterScan", type("NoStoreScans", (), {}))
    status, out, err = run("dead-letters", "list", "--all-owners", "--store", url, capsys=capsys)
    assert status == 1
    assert "cannot list every owner's tasks" in err and "--owner" in err
    # One owner's letters are still found, task by task.
    status, out, err = run("dead-letters", "list", "--owner", "bob", "--store", url, capsys=capsys)
    assert status == 0 and "1 pending dead letter(s) of 'bob'" in out


@agent(name="Echo", description="Says it back.")
def echo(text: str) -> str:
    return text


def test_redrive_against_the_dev_file_signs_with_the_dev_servers_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in [v for v in os.environ if v.startswith("A2A_")]:
        monkeypatch.delenv(variable)
    store = tmp_path / "a2a-tasks.db"
    dev = DevTarget("unused", store_url=f"sqlite:///{store}")
    settings = dev.settings()
    key_file = Path(f"{store}{DEV_KEY_SUFFIX}")
    assert settings.push_signing_keys == f"file:{key_file}"
    assert key_file.stat().st_mode & 0o077 == 0  # a private key: its owner's alone
    assert dev.settings().push_signing_keys == settings.push_signing_keys  # kept, not remade
    [dev_key] = json.loads(key_file.read_text())
    refusing = True

    def answer(_request: Received) -> Reply:
        return Reply(400) if refusing else Reply(200)

    async def scenario() -> None:
        nonlocal refusing
        webhook = await WebhookServer(answer).start()
        app = create_app(echo, settings)
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
        try:
            jwks = (await client.get("/.well-known/jwks.json")).json()
            assert [k["kid"] for k in jwks["keys"]] == [dev_key["kid"]]
            message = {
                "role": "user",
                "messageId": "m-1",
                "parts": [{"kind": "text", "text": "hi"}],
            }
            params = {
                "message": message,
                "configuration": {"pushNotificationConfig": {"url": webhook.url()}},
            }
            body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}
            task = (await client.post("/", json=body)).json()["result"]
            for _ in range(200):
                record = await app.runtime.store.get_task(task["id"])
                if record is not None and record.dead_letters:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("no dead letter")
            await client.aclose()
            await app.runtime.aclose()  # the dev server is gone; its file and key stay

            refusing = False
            # No A2A_PUSH_SIGNING_KEYS: the command finds the dev key beside the store file.
            # It runs in a thread, the webhook on this loop.
            argv = ["dead-letters", "redrive", "--store", f"sqlite:///{store}"]
            status, out, err = await asyncio.to_thread(run, *argv, capsys=capsys)
            assert status == 0, out + err
            assert "1 delivered, 0 failed, of 1 pending" in out
            received = webhook.notifications()[-1]
            token = received.headers["authorization"].removeprefix("Bearer ")
            assert jwt.get_unverified_header(token)["kid"] == dev_key["kid"]
            assert json.loads(received.body)["id"] == task["id"]
        finally:
            await client.aclose()
            await app.runtime.aclose()
            await webhook.stop()

    asyncio.run(scenario())


def test_redrive_without_keys_says_where_the_dev_key_would_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("A2A_PUSH_SIGNING_KEYS", raising=False)
    letters_store(tmp_path / "tasks.db")
    url = f"sqlite:///{tmp_path / 'tasks.db'}"
    status, _out, err = run(
        "dead-letters", "redrive", "--owner", "bob", "--store", url, capsys=capsys
    )
    assert status == 1
    assert "A2A_PUSH_SIGNING_KEYS" in err and f"tasks.db{DEV_KEY_SUFFIX}" in err


def test_a_store_client_failing_on_its_first_call_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # As the Firestore client without credentials: it fails when first used, in its own words.
    url = f"sqlite:///{tmp_path / 'tasks.db'}"
    hostile_task(tmp_path / "tasks.db")

    async def no_credentials(*_args: Any) -> Any:
        raise LookupError("Your default credentials were not found.\n  more detail")

    monkeypatch.setattr(SqliteStore, "list_tasks", no_credentials)
    status, out, err = run("tasks", "list", "--store", url, capsys=capsys)
    assert status == 1 and out == ""
    assert err == (
        "a2a-serverless tasks list: the store failed: LookupError: Your default credentials "
        "were not found.\n"
    )
