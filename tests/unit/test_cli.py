"""The `a2a-serverless` command's small promises: --version, `keys -h`, what `dev` serves, and
settings refused or questioned at start-up (the CLI's `dev` and every handler read them)."""

from __future__ import annotations

import logging
import sys
import textwrap
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from a2a_serverless import Agent, Settings, config
from a2a_serverless.asgi import A2AApplication
from a2a_serverless.cli import main
from a2a_serverless.devserver import TargetError, load

AGENT = """
from a2a_serverless import agent, create_app


@agent(name="{name}", description="test")
def {name}(text: str) -> str:
    return text
"""


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory to write modules in, as the current directory `dev` imports from."""
    monkeypatch.chdir(tmp_path)
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if (getattr(sys.modules[name], "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]
    while str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


def write(directory: Path, module: str, source: str) -> str:
    (directory / f"{module}.py").write_text(textwrap.dedent(source))
    return module


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == f"a2a-serverless {metadata.version('a2a-serverless')}"


@pytest.mark.parametrize("argv", [["keys", "-h"], ["keys", "--help"], ["keys", "generate", "-h"]])
def test_keys_help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("usage: a2a-serverless keys")


def test_a_module_with_one_agent_needs_no_attribute(modules: Path) -> None:
    target = load(write(modules, "one_agent", AGENT.format(name="solo")))
    assert isinstance(target, Agent) and target.name == "solo"


def test_an_agent_and_the_app_made_from_it_are_one_agent(modules: Path) -> None:
    source = AGENT.format(name="shout") + "\napp = create_app(shout)\n"
    target = load(write(modules, "agent_and_app", source))
    assert isinstance(target, Agent) and target.name == "shout"


def test_a_module_with_only_an_app(modules: Path) -> None:
    write(modules, "other_agent", AGENT.format(name="other"))
    source = (
        "import other_agent\nfrom a2a_serverless import create_app\n"
        "app = create_app(other_agent.other)\n"
    )
    assert isinstance(load(write(modules, "only_app", source)), A2AApplication)


def test_a_module_without_an_agent_says_what_it_expects(modules: Path) -> None:
    write(modules, "no_agent", "from a2a_serverless import agent\nx = 1\n")
    with pytest.raises(TargetError, match=r"no agent: expected an Agent .* no_agent:attribute"):
        load("no_agent")


def test_a_module_with_several_agents_lists_them(modules: Path) -> None:
    source = AGENT.format(name="a") + AGENT.format(name="b").split("\n", 2)[2]
    write(modules, "two_agents", source)
    with pytest.raises(TargetError, match="several agents; name one: two_agents:a, two_agents:b"):
        load("two_agents")


def test_an_attribute_that_is_not_an_agent(modules: Path) -> None:
    write(modules, "decorator_only", "from a2a_serverless import agent\n")
    with pytest.raises(TargetError, match="decorator_only:agent is a function, not an agent"):
        load("decorator_only:agent")
    with pytest.raises(TargetError, match="has no attribute 'missing'"):
        load("decorator_only:missing")


def test_a_module_that_does_not_exist(modules: Path) -> None:
    with pytest.raises(TargetError, match="no module 'not_there'"):
        load("not_there")


def test_dev_reports_a_bad_target_in_one_line(
    modules: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(modules, "empty_module", "")
    assert main(["dev", "empty_module", "--store", "memory://"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("a2a-serverless dev: module 'empty_module' has no agent")
    assert "Traceback" not in err


def test_dev_reports_a_bad_setting_naming_it(
    modules: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("A2A_BLOCKING_TIMEOUT_S", "-5")
    write(modules, "fine_agent", AGENT.format(name="fine"))
    assert main(["dev", "fine_agent", "--store", "memory://"]) == 1
    assert "A2A_BLOCKING_TIMEOUT_S=-5.0: must be at least 0" in capsys.readouterr().err


# --- settings ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("A2A_STREAM_TIMEOUT_S", "-1", "A2A_STREAM_TIMEOUT_S=-1.0: must be more than 0"),
        ("A2A_POLL_INTERVAL_S", "0", "A2A_POLL_INTERVAL_S=0.0: must be more than 0"),
        ("A2A_WORKER_LEASE_S", "nan", "A2A_WORKER_LEASE_S=nan: must be a finite number"),
        ("A2A_PUSH_TIMEOUT_S", "inf", "A2A_PUSH_TIMEOUT_S=inf: must be a finite number"),
        ("A2A_FINISHED_TASK_TTL_S", "0", "A2A_FINISHED_TASK_TTL_S=0.0: must be more than 0"),
        ("A2A_MAX_BODY_BYTES", "0", "A2A_MAX_BODY_BYTES=0: must be at least 1"),
        ("A2A_MAX_MESSAGE_PARTS", "-3", "A2A_MAX_MESSAGE_PARTS=-3: must be at least 1"),
        ("A2A_WORKER_MAX_ATTEMPTS", "0", "A2A_WORKER_MAX_ATTEMPTS=0: must be at least 1"),
        ("A2A_PUSH_MAX_ATTEMPTS", "0", "A2A_PUSH_MAX_ATTEMPTS=0: must be at least 1"),
        ("A2A_AUTH_JWT_LEEWAY_S", "-1", "A2A_AUTH_JWT_LEEWAY_S=-1.0: must be at least 0"),
        ("A2A_PUSH_BACKOFF_MAX_S", "0.5", "A2A_PUSH_BACKOFF_MAX_S=0.5 is below A2A_PUSH_BACKOFF"),
    ],
)
def test_nonsensical_numbers_are_refused_naming_the_variable(
    variable: str, value: str, message: str
) -> None:
    with pytest.raises(config.SettingsError) as refused:
        Settings.from_env({variable: value})
    assert str(refused.value).startswith(message)


def test_zero_where_zero_means_something() -> None:
    settings = Settings.from_env(
        {"A2A_BLOCKING_TIMEOUT_S": "0", "A2A_MAX_FILE_BYTES": "0", "A2A_PUSH_BACKOFF_BASE_S": "0"}
    )
    assert (settings.blocking_timeout_s, settings.max_file_bytes) == (0, 0)


def test_an_unknown_variable_is_reported_once_with_the_closest_setting(
    caplog: pytest.LogCaptureFixture,
) -> None:
    environ = {"A2A_STORE_ULR": "memory://", "A2A_BLOCKING_TIMEOUT": "3", "A2A_XYZZY": "1"}
    with caplog.at_level(logging.WARNING, logger="a2a_serverless.config"):
        Settings.from_env(environ)
        Settings.from_env(environ)
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        "A2A_STORE_ULR is set but nothing in this process reads it: did you mean A2A_STORE_URL?",
        "A2A_BLOCKING_TIMEOUT is set but nothing in this process reads it: did you mean "
        "A2A_BLOCKING_TIMEOUT_S?",
        "A2A_XYZZY is set but nothing in this process reads it: no setting is close to it "
        "(docs/configuration.md lists them)",
    ]


def test_variables_an_adapter_reads_are_not_unknown(caplog: pytest.LogCaptureFixture) -> None:
    config.register_environment_names("A2A_SOME_ADAPTER_URL")
    with caplog.at_level(logging.WARNING, logger="a2a_serverless.config"):
        Settings.from_env({"A2A_SOME_ADAPTER_URL": "x", "A2A_STORE_URL": "memory://"})
    assert caplog.records == []
