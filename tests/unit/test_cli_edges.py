"""The CLI's rough edges (issue 36 item 4): each mistake is one line naming what to fix, said
before anything else is printed, and nothing is created by a typo."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2a_serverless import Context, agent
from a2a_serverless import store as store_package
from a2a_serverless.cli import main
from a2a_serverless.models import Message
from a2a_serverless.store import open_store
from tests.support.server import REPO

AGENT = """
from a2a_serverless import agent


@agent(name="Edge", description="test")
def edge(text: str) -> str:
    return text
"""


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An agent module in the current directory, as `dev` imports it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "edge_agent.py").write_text(textwrap.dedent(AGENT))
    yield "edge_agent"
    sys.modules.pop("edge_agent", None)
    while str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """uvicorn.run replaced by a recorder: `dev` returns once it would serve."""
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(
        uvicorn, "run", lambda app, **options: calls.append({"app": app, **options})
    )
    return calls


@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_a_port_out_of_range_is_refused_by_the_parser(
    port: str, capsys: pytest.CaptureFixture[str], served: list[Any]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["dev", "--store", "memory://", "--port", port])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --port:" in err and "is not a port number" in err
    assert "Traceback" not in err


def test_a_missing_store_directory_is_refused_not_created(
    module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], served: list[Any]
) -> None:
    url = f"sqlite:///{tmp_path / 'no' / 'such' / 'dir' / 'x.db'}"
    assert main(["dev", module, "--store", url]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and served == []
    assert captured.err == (
        f"a2a-serverless dev: the store {url}: the directory {tmp_path / 'no' / 'such' / 'dir'} "
        "does not exist (create it, or pick another --store)\n"
    )
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"not a database at all, just text\n", "file is not a database"), (None, "is a directory")],
)
def test_an_unopenable_sqlite_store_is_one_line(
    module: str,
    tmp_path: Path,
    content: bytes | None,
    message: str,
    capsys: pytest.CaptureFixture[str],
    served: list[Any],
) -> None:
    path = tmp_path / "tasks.db"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    assert main(["dev", module, "--store", f"sqlite:///{path}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("a2a-serverless dev: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err and served == []


def test_a_port_in_use_is_said_before_any_banner(
    module: str, capsys: pytest.CaptureFixture[str], served: list[Any]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["dev", module, "--store", "memory://", "--port", str(port)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and served == []
    assert captured.err.startswith(f"a2a-serverless dev: cannot listen on 127.0.0.1:{port}: ")
    assert "pick another --port" in captured.err


def test_listening_beyond_this_machine_is_warned_of(
    module: str, capsys: pytest.CaptureFixture[str], served: list[Any]
) -> None:
    assert main(["dev", module, "--store", "memory://", "--port", "8765"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["dev", module, "--store", "memory://", "--host", "0.0.0.0", "--port", "8765"]) == 0
    err = capsys.readouterr().err
    assert "warning: listening on 0.0.0.0" in err and "inspector" in err
    assert "--host 127.0.0.1" in err
    assert [call["host"] for call in served] == ["127.0.0.1", "0.0.0.0"]


def test_a_missing_adapter_names_the_distribution_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(store_package, "_adapter_entry_points", lambda _scheme: [])
    with pytest.raises(ValueError, match=r"a2a-serverless-aws; install it .*pip install "):
        open_store("dynamodb://tasks?region=eu-west-1")
    with pytest.raises(ValueError, match="pip install a2a-serverless-gcp"):
        open_store("firestore://project")


def test_a_project_name_the_template_refuses_is_said_without_a_traceback(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "a2a_serverless.cli", "new", "Weather Agent!"]
    result = subprocess.run(
        [*command, "--cloud", "none", "--no-input", "--output-dir", str(tmp_path)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "project_slug 'weather-agent!' must be" in result.stderr
    assert list(tmp_path.iterdir()) == []


# --- @agent on a function it cannot call -----------------------------------------------------


def two_required(text: str, city: str) -> str:
    return text + city


def keyword_required(text: str, *, units: str) -> str:
    return text + units


def keyword_first(*, text: str) -> str:
    return text


@pytest.mark.parametrize(
    ("func", "message"),
    [
        (two_required, r"'city' would get none; give them defaults"),
        (keyword_required, r"'units' would get none"),
        (keyword_first, r"first parameter 'text' is keyword-only"),
    ],
)
def test_agent_refuses_a_function_it_cannot_call(func: Any, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        agent(func)
    with pytest.raises(TypeError, match=message):
        agent(name="X", description="y")(func)


def test_agent_takes_what_it_can_call() -> None:
    def nothing() -> str:
        return "hi"

    def with_defaults(text: str, city: str = "Lisbon", *, units: str = "metric") -> str:
        return text

    def message(m: Message, *rest: Any, **options: Any) -> str:
        return "ok"

    def context(ctx: Context) -> str:
        return ctx.text

    for func in (nothing, with_defaults, message, context):
        assert agent(func).name
