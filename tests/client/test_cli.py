"""`a2a-serverless call` and `card` against our dev server over real HTTP."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from a2a_serverless import models as m
from a2a_serverless.cli import main
from a2a_serverless.client import A2AClient
from tests.support.server import LiveServer, free_port


def test_card_pretty_with_no_warnings(ours: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["card", ours.url]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Interop Agent  (version 1.0.0)")
    assert f"A2A 1.0  JSONRPC    {ours.url}/" in out
    assert f"A2A 0.3  HTTP+JSON  {ours.url}" in out
    assert "capabilities: streaming yes, pushNotifications yes" in out
    assert "warnings: none" in out


def test_card_json(ours: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["card", ours.url, "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert card["name"] == "Interop Agent"
    assert card["supportedInterfaces"][0]["protocolVersion"] == "1.0"


def test_call_streams_when_the_agent_streams(
    ours: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["call", ours.url, "slow 2 0.01"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"# {ours.url}/ (A2A 1.0, JSONRPC)"
    assert "chunk 0" in lines and "chunk 1" in lines
    assert lines[-1].startswith("# task ") and ": completed (context " in lines[-1]


def test_call_without_streaming_over_03_rest(
    ours: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["call", ours.url, "hi", "--no-stream", "--binding", "http-json"]
    assert main([*args, "--protocol-version", "0.3"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"# {ours.url} (A2A 0.3, HTTP+JSON)"
    assert "echo: hi" in out


def test_call_json_lines_and_a_context_continued(
    ours: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["call", ours.url, "first", "--json"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0]["kind"] == "task"
    assert events[-1]["kind"] == "status-update" and events[-1]["status"]["state"] == "completed"
    context = events[0]["contextId"]
    assert main(["call", ours.url, "second", "--json", "--context", context, "--no-stream"]) == 0
    task = json.loads(capsys.readouterr().out)
    assert task["contextId"] == context and task["id"] != events[0]["id"]


def test_call_attaches_files(
    ours: LiveServer, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    attached = tmp_path / "notes.txt"
    attached.write_text("file body")
    assert (
        main(["call", ours.url, "see file", "--file", str(attached), "--json", "--no-stream"]) == 0
    )
    task_id = json.loads(capsys.readouterr().out)["id"]

    async def sent_parts() -> list[m.Part]:
        client = await A2AClient.connect(ours.url)
        task = await client.get_task(task_id)
        return (task.history or [])[0].parts

    parts = asyncio.run(sent_parts())
    files = [p for p in parts if p.raw is not None]
    assert len(files) == 1
    assert (files[0].filename, files[0].media_type) == ("notes.txt", "text/plain")


def test_what_the_agent_sends_is_escaped(
    ours: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["call", ours.url, "x\x1b]0;pwned\x07\u202eevil", "--no-stream"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "echo: x\\x1b]0;pwned\\x07\\u202eevil" in out
    assert main(["call", ours.url, "y\x1b[2J", "--json", "--no-stream"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and json.loads(out)["artifacts"][0]["parts"][0]["text"].endswith(
        "y\x1b[2J"
    )


def test_errors_are_one_clear_line(ours: LiveServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", ours.url, "again", "--task", "no-such-task\x1b[31m"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("a2a-serverless call: TaskNotFoundError (-32001): ")
    assert "\x1b" not in err
    assert main(["call", f"http://127.0.0.1:{free_port()}", "hi"]) == 1
    assert capsys.readouterr().err.startswith("a2a-serverless call: AgentUnreachable: ")
