"""An agent's public path prefix (mountprefix.py): found from the app mounting it, now for an
app object and on first use for a reference; the Runtime's durable calls name their callbacks
under it; a mount serves only with a Runtime built with its prefix."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fastapi import FastAPI

from a2a_serverless import Settings, agent
from a2a_serverless.fastapi import mount_agent
from a2a_serverless.mountprefix import mount_prefix
from a2a_serverless.publicurl import clean_prefix, resolved_prefix
from a2a_serverless.runtime import Runtime
from tests.support.fastapi_apps import app_by_reference

PUBLIC = "https://api.example.com"


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text


def settings(public_url: str | None = PUBLIC) -> Settings:
    return Settings(store_url="memory://", dev_mode=True, public_url=public_url)


def callback_url(runtime: Runtime) -> str | None:
    return runtime.durable_calls.resumer.calls.callback_url("task-1", "cb-1")


@pytest.mark.parametrize(
    ("given", "expected"), [("", ""), ("/", ""), ("agent", "/agent"), ("/a/b/", "/a/b")]
)
def test_a_prefix_is_a_path_to_append(given: str, expected: str) -> None:
    assert clean_prefix(given) == expected


def test_the_prefix_of_an_app_object_is_found_now() -> None:
    api = FastAPI()
    mount_agent(api, echo, prefix="/agent")
    assert mount_prefix(api, echo) == "/agent"

    @agent(name="Other", description="Not mounted.")
    def other(text: str) -> str:
        return text

    with pytest.raises(ValueError, match="does not serve the agent 'Other'"):
        mount_prefix(api, other)


def test_the_prefix_of_an_app_reference_is_found_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lazy, reference = app_by_reference(tmp_path, monkeypatch)
    found = mount_prefix(reference, lazy)
    assert callable(found)
    assert "lazy_mounted_api" not in sys.modules  # a worker that calls no agent never imports it
    runtime = Runtime(lazy, settings(), public_prefix=found)
    assert callback_url(runtime) == f"{PUBLIC}/lazy/_a2a/callbacks/task-1/cb-1"
    assert "lazy_mounted_api" in sys.modules
    assert resolved_prefix(found) == "/lazy"


def test_without_a_public_url_the_prefix_is_not_looked_for() -> None:
    def never() -> str:
        raise AssertionError("looked for")

    runtime = Runtime(echo, settings(public_url=None), public_prefix=never)
    assert callback_url(runtime) is None


def test_callbacks_are_named_under_the_runtimes_prefix() -> None:
    assert callback_url(Runtime(echo, settings())) == f"{PUBLIC}/_a2a/callbacks/task-1/cb-1"
    prefixed = Runtime(echo, settings(public_url=PUBLIC + "/"), public_prefix="agent/")
    assert prefixed.public_prefix == "/agent"
    assert callback_url(prefixed) == f"{PUBLIC}/agent/_a2a/callbacks/task-1/cb-1"


def test_the_mounts_own_runtime_has_its_prefix() -> None:
    api = FastAPI()
    mount = mount_agent(api, echo, prefix="/agent", settings=settings())
    assert mount.app.runtime.public_prefix == "/agent"
    assert callback_url(mount.app.runtime) == f"{PUBLIC}/agent/_a2a/callbacks/task-1/cb-1"


def test_a_mount_refuses_a_runtime_without_its_prefix() -> None:
    api = FastAPI()
    mount = mount_agent(api, echo, prefix="/agent")
    with pytest.raises(ValueError, match=r"public_prefix is '', not this mount's '/agent'"):
        mount.bind(Runtime(echo, settings()))
    bound = mount.bind(Runtime(echo, settings(), **mount.runtime_options))
    assert bound.runtime.public_prefix == "/agent"


def test_mount_agent_takes_the_prefix_once() -> None:
    with pytest.raises(ValueError, match="pass prefix= alone"):
        mount_agent(FastAPI(), echo, prefix="/agent", public_prefix="/other")


def issued_by(runtime: Runtime) -> str:
    """The `iss` of a push notification's JWT the runtime signs."""
    import jwt

    assert runtime.notifier is not None
    token, _ = runtime.notifier.signer.sign(b"{}", "https://hook.example.com/", "task-1")
    issuer: str = jwt.decode(token, options={"verify_signature": False})["iss"]
    return issuer


def test_push_notifications_are_issued_by_the_agents_url_with_its_prefix() -> None:
    pytest.importorskip("jwt")
    # Where its JWKS is served too: {iss}/.well-known/jwks.json (asgi.py, under the mount).
    assert issued_by(Runtime(echo, settings())) == PUBLIC
    assert issued_by(Runtime(echo, settings(), public_prefix="/agent")) == f"{PUBLIC}/agent"
    mount = mount_agent(FastAPI(), echo, prefix="/agent", settings=settings())
    assert issued_by(mount.app.runtime) == f"{PUBLIC}/agent"
    assert issued_by(Runtime(echo, settings(public_url=None))) == "a2a-serverless"


def test_a_workers_issuer_finds_its_prefix_when_it_first_signs() -> None:
    pytest.importorskip("jwt")
    found = []

    def prefix() -> str:
        found.append("looked")
        return "/lazy"

    runtime = Runtime(echo, settings(), public_prefix=prefix)
    assert found == []
    assert issued_by(runtime) == f"{PUBLIC}/lazy"
    assert issued_by(runtime) == f"{PUBLIC}/lazy"
    assert found == ["looked"]  # once
