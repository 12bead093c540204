"""Operator commands: look at tasks and dead letters in any store, redrive dead letters.

    a2a-serverless tasks list [--state S] [--context C] [--limit N]
    a2a-serverless tasks show TASK_ID
    a2a-serverless tasks tail TASK_ID [--after SEQ]     follow a task's events live
    a2a-serverless dead-letters list [--task TASK_ID | --all-owners] [--all]
    a2a-serverless dead-letters redrive [--task TASK_ID | --all-owners] [--notification ID]
    a2a-serverless content sweep [--older-than SECONDS]  content of tasks that never came to be

Every command takes `--store URL` (default: A2A_STORE_URL, else the dev server's SQLite file):
``sqlite:///path.db``, ``dynamodb://table?region=...`` or ``firestore://...`` with the adapter
installed (`a2a_serverless.store.open_store` parses them), `--owner` (tasks belong to their
creator; default "anonymous", the owner of every task of a deployment without authentication)
and `--json` (a JSON document for scripts; `tail` writes one JSON object per line).

No command creates a store: a SQLite path must name an existing store file, so a mistyped one
is an error, not a new empty database. Tables and progress are for people: progress goes to
stderr, only when it is a terminal, and what clients chose (ids, names, text) is shown with its
control characters escaped (safetext.py), so it cannot drive the terminal; `--json` output is
escaped likewise, and stays the same JSON.

`dead-letters` looks at one owner's tasks, or every owner's with `--all-owners` (on a store
that can find the tasks holding dead letters, `store.base.DeadLetterScan`: every shipped store,
memory, SQLite, DynamoDB and Firestore; a third-party store without it is refused).
`redrive` sends each pending dead letter again through `PushNotifier.redrive`, signed with the
deployment's keys (A2A_PUSH_SIGNING_KEYS, and the other A2A_PUSH_* settings), or, against the dev
server's SQLite file without them, with the dev key the server keeps beside that file
(`push.keys.with_dev_key`); a letter that a redrive delivered is marked so and never sent
again, so running it twice is safe.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any

from .config import Settings
from .durable.report import durable_summary
from .exceptions import A2AServerlessError
from .models import TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent
from .safetext import escape_controls, escape_json_text
from .store import open_store
from .store.base import DeadLetterScan, Store, StoreError, TaskEvent, TaskQuery, TaskRecord

if TYPE_CHECKING:
    from .push.notifier import PushNotifier
    from .store.bookkeeping import DeadLetteredNotification

STATES = [state.value for state in TaskState]
PAGE = 100
ALL_OWNERS_HELP = "every owner's, not --owner's (stores with DeadLetterScan: all shipped ones)"


class OpsError(A2AServerlessError):
    """A command cannot do what it was asked (a message for the operator, exit status 1)."""


def add_commands(commands: Any) -> None:
    """Add `tasks`, `dead-letters` and `content` to the `a2a-serverless` argument parser's
    subcommands."""
    tasks = commands.add_parser("tasks", help="look at the tasks in a store")
    task_commands = tasks.add_subparsers(dest="action", required=True)
    listing = task_commands.add_parser("list", help="tasks, newest update first")
    _common(listing)
    listing.add_argument("--state", choices=STATES, help="only tasks in this state")
    listing.add_argument("--context", help="only tasks of this context id")
    listing.add_argument("--limit", type=_positive, default=50, help="at most this many")
    show = task_commands.add_parser("show", help="one task: status, artifacts, events, pushes")
    _common(show)
    show.add_argument("task_id")
    tail = task_commands.add_parser("tail", help="follow a task's events until it ends")
    _common(tail)
    tail.add_argument("task_id")
    tail.add_argument("--after", type=int, default=0, help="start after this event seq")
    tail.add_argument("--interval", type=float, default=0.5, help="seconds between polls")
    tail.add_argument("--timeout", type=float, default=None, help="stop after this many seconds")

    letters = commands.add_parser("dead-letters", help="push notifications given up on")
    letter_commands = letters.add_subparsers(dest="action", required=True)
    dl_list = letter_commands.add_parser("list", help="dead letters, pending ones by default")
    _common(dl_list)
    which = dl_list.add_mutually_exclusive_group()
    which.add_argument("--task", help="only this task's (any owner)")
    which.add_argument("--all-owners", action="store_true", help=ALL_OWNERS_HELP)
    dl_list.add_argument("--all", action="store_true", help="include redriven ones")
    redrive = letter_commands.add_parser("redrive", help="send pending dead letters again")
    _common(redrive)
    which = redrive.add_mutually_exclusive_group()
    which.add_argument("--task", help="only this task's (any owner)")
    which.add_argument("--all-owners", action="store_true", help=ALL_OWNERS_HELP)
    redrive.add_argument("--notification", help="only the dead letter with this notification id")

    content = commands.add_parser("content", help="the store's content bucket")
    content_commands = content.add_subparsers(dest="action", required=True)
    sweep = content_commands.add_parser(
        "sweep", help="delete the bucket's content of tasks that do not exist"
    )
    _common(sweep)
    sweep.add_argument(
        "--older-than",
        type=float,
        default=3600.0,
        help="seconds: leave younger content alone, its write may be under way (default: 3600)",
    )


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", help="store URL (default: A2A_STORE_URL or the dev SQLite file)")
    parser.add_argument("--owner", default="anonymous", help="whose tasks (default: anonymous)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def run(args: argparse.Namespace, out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run a `tasks` or `dead-letters` command; the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        settings = Settings.from_env(**({"store_url": args.store} if args.store else {}))
        # Only an existing store: a mistyped path is an error, never a new empty database.
        store = open_store(settings.store_url, create=False)
    except (ValueError, TypeError, ImportError, StoreError) as exc:
        print(f"a2a-serverless {args.command}: {escape_controls(str(exc))}", file=err)
        return 1
    console = Console(out, err)
    command = COMMANDS[(args.command, args.action)]
    try:
        return asyncio.run(_run_closing(command(store, settings, args, console), store))
    except OpsError as exc:
        print(f"a2a-serverless {args.command} {args.action}: {escape_controls(str(exc))}", file=err)
        return 1
    except StoreError as exc:
        print(
            f"a2a-serverless {args.command} {args.action}: the store failed: "
            f"{escape_controls(str(exc))}",
            file=err,
        )
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        # A store's client failing on its first call (no cloud credentials, an endpoint that
        # does not answer): one line naming it, not a traceback of the client library's.
        reason = (str(exc).strip().splitlines() or [""])[0]
        print(
            f"a2a-serverless {args.command} {args.action}: the store failed: "
            f"{type(exc).__name__}: {escape_controls(reason)}",
            file=err,
        )
        return 1


async def _run_closing(command: Any, store: Store) -> int:
    try:
        return int(await command)
    finally:
        await store.close()


class Console:
    """Where output goes: tables and JSON to `out`, progress to `err` when it is a terminal."""

    def __init__(self, out: IO[str], err: IO[str]) -> None:
        self.out = out
        self.err = err
        self._live = err.isatty()
        self._width = 0

    def print(self, text: str = "") -> None:
        """Print lines for people: client text in them cannot drive the terminal."""
        self.clear_progress()
        safe = "\n".join(escape_controls(line) for line in text.split("\n"))
        print(safe, file=self.out, flush=True)

    def json(self, value: Any, *, line: bool = False) -> None:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":") if line else None)
        if not line:
            text = json.dumps(value, ensure_ascii=False, indent=2)
        self.clear_progress()
        print(escape_json_text(text), file=self.out, flush=True)

    def progress(self, text: str) -> None:
        if not self._live:
            return
        text = escape_controls(text)
        pad = max(0, self._width - len(text))
        self.err.write("\r" + text + " " * pad)
        self.err.flush()
        self._width = len(text)

    def clear_progress(self) -> None:
        if self._live and self._width:
            self.err.write("\r" + " " * self._width + "\r")
            self.err.flush()
            self._width = 0

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        self.print(format_table(headers, rows))


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, a rule under the header; a cell's control
    characters are escaped first, so a newline in a client's id cannot fake a row."""
    rows = [[escape_controls(cell) for cell in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


# --- tasks ----------------------------------------------------------------------------------------


async def tasks_list(
    store: Store, settings: Settings, args: argparse.Namespace, console: Console
) -> int:
    records: list[TaskRecord] = []
    total = 0
    async for record, total in _records(
        store, args.owner, state=args.state, context_id=args.context, limit=args.limit
    ):
        records.append(record)
        console.progress(f"read {len(records)} of {min(total, args.limit)} tasks")
    if args.json:
        console.json(
            {"owner": args.owner, "total": total, "tasks": [record_summary(r) for r in records]}
        )
        return 0
    rows = [
        [
            r.task_id,
            r.state,
            r.context_id,
            _time(r.updated_at_ms),
            str(r.last_seq),
            str(len(r.task.artifacts or [])),
            str(_pending_letters(r)),
        ]
        for r in records
    ]
    headers = ["TASK", "STATE", "CONTEXT", "UPDATED", "EVENTS", "ARTIFACTS", "DEAD LETTERS"]
    console.table(headers, rows)
    console.print(f"{len(records)} of {total} task(s) of owner {args.owner!r}")
    return 0


async def tasks_show(
    store: Store, settings: Settings, args: argparse.Namespace, console: Console
) -> int:
    record = await _get(store, args.task_id)
    events = await store.read_events(record.task_id)
    configs = await store.list_push_configs(record.task_id)
    letters = record.dead_letters
    if args.json:
        console.json(
            {
                **record_summary(record),
                "task": record.task.model_dump(),
                "events": [{"seq": e.seq, "event": event_json(e.payload)} for e in events],
                "pushConfigs": [{"owner": c.owner, **c.config.model_dump()} for c in configs],
                "deliveries": {
                    cid: c.delivered for cid, c in record.push_cursors.items() if c.delivered
                },
                "retrying": {
                    cid: c.retry.to_stored()
                    for cid, c in record.push_cursors.items()
                    if c.retry is not None
                },
                "deadLetters": [letter.to_dict() for letter in letters],
                # Per config, the seqs given up on (a cursor counts them as done too).
                "deadLetteredSeqs": {
                    cid: [x.seq for x in letters if x.config_id == cid]
                    for cid in dict.fromkeys(x.config_id for x in letters)
                },
                "durable": durable_summary(record),
            }
        )
        return 0
    task = record.task.model_dump()
    status = task["status"]
    console.print(f"Task      {record.task_id}")
    console.print(f"Context   {record.context_id}")
    console.print(f"Owner     {record.owner}")
    console.print(f"State     {status['state']}  ({status.get('timestamp', '')})")
    if status.get("message"):
        console.print(f"Message   {_parts_text(status['message'].get('parts', []))}")
    console.print(f"Created   {_time(record.created_at_ms)}")
    console.print(f"Updated   {_time(record.updated_at_ms)}   version {record.version}")
    console.print(f"History   {len(task.get('history') or [])} message(s)")
    console.print()
    artifacts = task.get("artifacts") or []
    console.print(f"Artifacts ({len(artifacts)})")
    if artifacts:
        console.table(
            ["ID", "NAME", "PARTS", "CONTENT"],
            [
                [
                    a["artifactId"],
                    a.get("name") or "",
                    str(len(a["parts"])),
                    _clip(_parts_text(a["parts"])),
                ]
                for a in artifacts
            ],
        )
    console.print()
    console.print(f"Events ({len(events)})")
    console.table(["SEQ", "KIND", "DETAIL"], [[str(e.seq), *describe_event(e)] for e in events])
    console.print()
    console.print(f"Push configs ({len(configs)})")
    if configs:
        # A config's cursor moves past a notification delivered or dead-lettered alike: what
        # was given up on is listed beside it, so "done" never reads as "delivered".
        console.table(
            ["ID", "URL", "DONE UP TO SEQ", "DEAD-LETTERED SEQS", "RETRYING"],
            [
                [
                    cid,
                    c.config.url,
                    str(record.push_cursor(cid).delivered),
                    _dead_lettered_seqs(letters, cid) or "-",
                    _retrying(record, cid),
                ]
                for c in configs
                for cid in [c.config.id or c.task_id]
            ],
        )
    if letters:
        console.print()
        console.print(f"Dead letters ({len(letters)})")
        _letters_table(console, [(record.task_id, letter) for letter in letters])
    durable = durable_summary(record)
    if durable is not None:
        operations = durable["operations"]
        waiting = "suspended" if durable["suspended"] else "not suspended"
        console.print()
        console.print(
            f"Durable operations ({len(operations)}) of turn {durable['turn']}: {waiting}, "
            f"{durable['suspensions']} suspension(s)"
        )
        console.table(
            ["POS", "KIND", "STATE", "WHAT", "REMOTE TASK", "STARTED", "ENDED", "RESUMED BY"],
            [
                [
                    str(op["position"]),
                    op["kind"],
                    op["state"],
                    _clip(op.get("remote") or op["key"], 48),
                    op.get("remoteTaskId") or "-",
                    _time(op["startedAtMs"]) if op.get("startedAtMs") else "-",
                    _time(op["endedAtMs"]) if op.get("endedAtMs") else "-",
                    op.get("resumedBy") or "-",
                ]
                for op in operations
            ],
        )
    return 0


async def tasks_tail(
    store: Store, settings: Settings, args: argparse.Namespace, console: Console
) -> int:
    record = await _get(store, args.task_id)
    after = max(0, args.after)
    loop = asyncio.get_running_loop()
    deadline = None if args.timeout is None else loop.time() + args.timeout
    if not args.json:
        console.print(f"Following task {record.task_id} ({record.state}); Ctrl-C to stop")
    while True:
        events = await store.read_events(record.task_id, after)
        for event in events:
            after = event.seq
            if args.json:
                console.json({"seq": event.seq, "event": event_json(event.payload)}, line=True)
            else:
                kind, detail = describe_event(event)
                console.print(f"{event.seq:>5}  {kind:<9}  {detail}")
        current = await store.get_task(record.task_id)
        if current is None:
            raise OpsError(f"task {record.task_id} is gone")
        if current.task.status.state.is_terminal and after >= current.last_seq:
            if not args.json:
                console.print(f"Task {current.task_id} is {current.state}.")
            return 0
        if deadline is not None and loop.time() >= deadline:
            return 0
        console.progress(f"{current.state}; waiting for events after seq {after}")
        await asyncio.sleep(args.interval)


# --- dead letters ---------------------------------------------------------------------------------


async def dead_letters_list(
    store: Store, settings: Settings, args: argparse.Namespace, console: Console
) -> int:
    found = [
        (record, letter)
        async for record in _letter_records(store, args, console)
        for letter in record.dead_letters
        if args.all or not letter.redriven_at
    ]
    console.clear_progress()
    if args.json:
        console.json(
            [
                {"taskId": record.task_id, "owner": record.owner, **letter.to_dict()}
                for record, letter in found
            ]
        )
        return 0
    if found:
        _letters_table(console, [(record.task_id, letter) for record, letter in found])
    kind = "dead letter(s)" if args.all else "pending dead letter(s)"
    whose = "" if args.task else " of every owner" if args.all_owners else f" of {args.owner!r}"
    console.print(f"{len(found)} {kind}{whose}")
    return 0


async def dead_letters_redrive(
    store: Store, settings: Settings, args: argparse.Namespace, console: Console
) -> int:
    notifier = _notifier(store, settings)
    pending = [
        (record.task_id, letter)
        async for record in _letter_records(store, args, console)
        for letter in record.dead_letters
        if not letter.redriven_at
        and (args.notification is None or letter.notification_id == args.notification)
    ]
    console.clear_progress()
    results: list[dict[str, Any]] = []
    for index, (task_id, letter) in enumerate(pending, 1):
        console.progress(f"[{index}/{len(pending)}] redriving {letter.notification_id}")
        result = await notifier.redrive(task_id, letter.notification_id)
        results.append(
            {
                "taskId": task_id,
                "notificationId": letter.notification_id,
                "seq": letter.seq,
                "url": letter.url,
                "outcome": result.outcome,
                "reason": result.reason,
            }
        )
        if not args.json:
            because = f": {result.reason}" if result.reason else ""
            console.print(
                f"[{index}/{len(pending)}] task {task_id} seq {letter.seq} "
                f"{letter.notification_id}: {result.outcome}{because}"
            )
    failed = sum(1 for r in results if r["outcome"] == "failed")
    if args.json:
        console.json({"redriven": results, "failed": failed})
    else:
        delivered = sum(1 for r in results if r["outcome"] == "delivered")
        console.print(f"{delivered} delivered, {failed} failed, of {len(results)} pending")
    return 1 if failed else 0


def _notifier(store: Store, settings: Settings) -> PushNotifier:
    """A notifier signing with the deployment's keys (or, on a dev server's SQLite file, the
    dev key kept beside it); it only sends, so its queue has no handler (a redrive never
    enqueues)."""
    from dataclasses import replace

    from .push.keys import dev_key_file

    if not settings.push_signing_keys:
        dev_key = dev_key_file(settings)
        if dev_key is None or not dev_key.is_file():
            raise OpsError(
                "redrive signs notifications with the deployment's keys: set "
                "A2A_PUSH_SIGNING_KEYS (and the deployment's other A2A_PUSH_* settings) as the "
                "deployment has them"
                + (
                    f"; the dev server keeps its key in {dev_key}, which is not there"
                    if dev_key is not None
                    else ""
                )
            )
        # The dev server's file: sent as the dev server sends (dev mode's SSRF rules, which
        # let http and local receivers through), signed with the key it signed with.
        settings = replace(settings, push_signing_keys=f"file:{dev_key}", dev_mode=True)
    from .extras import MissingExtra
    from .journal import Journal
    from .push.keys import PushNotConfigured
    from .push.notifier import PushNotifier
    from .queue.inprocess import InProcessQueue

    try:
        return PushNotifier(Journal(store), InProcessQueue(), settings, issuer=settings.public_url)
    except (PushNotConfigured, MissingExtra, ValueError) as exc:
        raise OpsError(str(exc)) from None


async def _letter_records(
    store: Store, args: argparse.Namespace, console: Console
) -> AsyncIterator[TaskRecord]:
    """The records whose dead letters a command looks at: one task's, or those of an owner, or
    of every owner (--all-owners). A store that can find the records holding dead letters
    (`DeadLetterScan`) is asked for those alone; another is read task by task, one owner's."""
    if args.task:
        yield await _get(store, args.task)
        return
    scan = store.scan_dead_letters if isinstance(store, DeadLetterScan) else None
    if scan is not None:
        after: str | None = None
        while True:
            page = await scan(after, PAGE)
            for record in page:
                if args.all_owners or record.owner == args.owner:
                    yield record
            if len(page) < PAGE:
                return
            after = page[-1].task_id
    if args.all_owners:
        raise OpsError(
            "this store cannot list every owner's tasks (it has no DeadLetterScan): "
            "name one with --owner, or a task with --task"
        )
    scanned = 0
    async for record, total in _records(store, args.owner):
        scanned += 1
        console.progress(f"scanned {scanned} of {total} tasks for dead letters")
        yield record


def _letters_table(
    console: Console, letters: Sequence[tuple[str, DeadLetteredNotification]]
) -> None:
    rows = [
        [
            task_id,
            str(letter.seq),
            letter.notification_id,
            letter.url,
            str(letter.attempts),
            letter.at,
            _letter_status(letter),
            _clip(letter.reason, 60),
        ]
        for task_id, letter in letters
    ]
    headers = ["TASK", "SEQ", "NOTIFICATION", "URL", "ATTEMPTS", "AT", "STATUS", "REASON"]
    console.table(headers, rows)


def _dead_lettered_seqs(letters: Sequence[DeadLetteredNotification], config_id: str) -> str:
    return ", ".join(
        f"{letter.seq} (redriven)" if letter.redriven_at else str(letter.seq)
        for letter in letters
        if letter.config_id == config_id
    )


def _retrying(record: TaskRecord, config_id: str) -> str:
    retry = record.push_cursor(config_id).retry
    if retry is None:
        return "-"
    return f"seq {retry.seq}, {retry.attempts} attempt(s)"


def _letter_status(letter: DeadLetteredNotification) -> str:
    if letter.redriven_at:
        return f"redriven {letter.redriven_at}"
    if letter.redrive_attempts:
        return f"pending ({letter.redrive_attempts} redrive(s) failed)"
    return "pending"


def _pending_letters(record: TaskRecord) -> int:
    return sum(1 for letter in record.dead_letters if not letter.redriven_at)


# --- shared ---------------------------------------------------------------------------------------


async def _get(store: Store, task_id: str) -> TaskRecord:
    record = await store.get_task(task_id)
    if record is None:
        raise OpsError(f"no task {task_id!r} in this store")
    return record


async def _records(
    store: Store,
    owner: str,
    *,
    state: str | None = None,
    context_id: str | None = None,
    limit: int | None = None,
) -> AsyncIterator[tuple[TaskRecord, int]]:
    """An owner's tasks, newest update first, page by page, with the total count."""
    after: tuple[int, str] | None = None
    seen = 0
    while True:
        size = PAGE if limit is None else min(PAGE, limit - seen)
        query = TaskQuery(owner=owner, context_id=context_id, state=state, limit=size, after=after)
        page = await store.list_tasks(query)
        for record in page.records:
            seen += 1
            yield record, page.total_size
        if not page.has_more or not page.records or (limit is not None and seen >= limit):
            return
        last = page.records[-1]
        after = (last.updated_at_ms, last.task_id)


def record_summary(record: TaskRecord) -> dict[str, Any]:
    return {
        "taskId": record.task_id,
        "contextId": record.context_id,
        "owner": record.owner,
        "state": record.state,
        "version": record.version,
        "lastSeq": record.last_seq,
        "createdAt": _time(record.created_at_ms),
        "updatedAt": _time(record.updated_at_ms),
        "artifacts": len(record.task.artifacts or []),
        "pendingDeadLetters": _pending_letters(record),
    }


def event_json(payload: TaskArtifactUpdateEvent | TaskStatusUpdateEvent) -> dict[str, Any]:
    """An event's JSON under the name of its kind, as the event log keeps it (`{"statusUpdate":
    ...}` / `{"artifactUpdate": ...}`)."""
    kind = "artifactUpdate" if isinstance(payload, TaskArtifactUpdateEvent) else "statusUpdate"
    return {kind: payload.model_dump()}


def describe_event(event: TaskEvent) -> tuple[str, str]:
    """(kind, one-line detail) of a logged event."""
    data = event.payload.model_dump()
    if isinstance(event.payload, TaskArtifactUpdateEvent):
        artifact = data["artifact"]
        chunk = (("append", data.get("append")), ("last", data.get("lastChunk")))
        flags = [flag for flag, on in chunk if on]
        label = artifact.get("name") or artifact["artifactId"]
        extra = f" [{', '.join(flags)}]" if flags else ""
        return "artifact", f"{label}{extra}: {_clip(_parts_text(artifact['parts']))}"
    status = data["status"]
    text = _parts_text(status["message"]["parts"]) if status.get("message") else ""
    final = " (final)" if event.is_final else ""
    return "status", f"{status['state']}{final}" + (f": {_clip(text)}" if text else "")


def _parts_text(parts: list[dict[str, Any]]) -> str:
    pieces: list[str] = []
    for part in parts:
        if "text" in part:
            pieces.append(part["text"])
        elif "raw" in part or "url" in part:
            name = part.get("filename") or part.get("url") or ""
            pieces.append(f"<file {name}>".replace(" >", ">"))
        else:
            pieces.append(_clip(json.dumps(part.get("data"), ensure_ascii=False), 40))
    return " ".join(" ".join(pieces).split())


def _clip(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _time(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000).astimezone().isoformat(timespec="seconds")


async def content_sweep(
    store: Store, settings: Settings, args: argparse.Namespace, console: Console
) -> int:
    """Delete the content of tasks that never came to exist (store.content: `Offloader.sweep`)."""
    sweep = getattr(store, "sweep_content", None)
    if args.older_than < 0:
        raise OpsError("--older-than must not be negative")
    swept: list[str] | None = None if sweep is None else await sweep(older_than_s=args.older_than)
    if swept is None:
        raise OpsError("this store keeps no content in a bucket (content=...): nothing to sweep")
    if args.json:
        console.json({"swept": swept})
    else:
        console.print(f"swept {len(swept)} object(s) of tasks that do not exist")
        for key in swept:
            console.print(f"  {escape_controls(key)}")
    return 0


Command = Callable[[Store, Settings, argparse.Namespace, Console], Any]
COMMANDS: dict[tuple[str, str], Command] = {
    ("tasks", "list"): tasks_list,
    ("tasks", "show"): tasks_show,
    ("tasks", "tail"): tasks_tail,
    ("dead-letters", "list"): dead_letters_list,
    ("dead-letters", "redrive"): dead_letters_redrive,
    ("content", "sweep"): content_sweep,
}
