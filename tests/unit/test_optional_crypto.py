"""The `crypto` extra (cryptography, httpx) is optional: the features that need it say so at
start-up, and everything else works, and imports no cryptography, without it (extras.py). So is
the `client` extra (httpx): the client, the CLI's calls and remote agents name it when missing.

"Not installed" is simulated the way Python itself sees a missing package: `sys.modules` maps
the name to None, so both `importlib.util.find_spec` and `import` fail for it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from a2a_serverless import Settings, agent, create_app
from a2a_serverless.auth import BearerJWTAuthenticator, OpenIdConnectAuthenticator
from a2a_serverless.cli import keys_main
from a2a_serverless.extras import MissingExtra, crypto_available, require_crypto
from a2a_serverless.push import KeyRing, WebhookVerifier, generate_key, push_available
from a2a_serverless.push.keys import parse_signing_keys
from a2a_serverless.push.signing import JwtSigner
from a2a_serverless.runtime import Runtime

ROOT = Path(__file__).resolve().parents[2]
API_KEY = "k1-0123456789abcdefgh"
INSTALL_HINT = "pip install 'a2a-serverless[crypto]'"


@agent(name="Echo", description="Says back what it is told.")
def echo(text: str) -> str:
    return text


@pytest.fixture(scope="module")
def signing_keys() -> str:
    return json.dumps([generate_key()])  # made while cryptography is there


@pytest.fixture
def no_crypto(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(sys.modules, "cryptography", None)
    assert not crypto_available()
    yield


def check_names_the_extra(error: MissingExtra, feature: str) -> None:
    assert isinstance(error, ImportError)
    assert error.extra == "crypto" and error.module == "cryptography"
    assert feature in str(error)
    assert INSTALL_HINT in str(error)


def test_with_the_extra_nothing_is_required() -> None:
    assert crypto_available()
    require_crypto("anything")


# --- push ---------------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_crypto")
def test_signing_keys_without_the_extra_stop_the_runtime(signing_keys: str) -> None:
    settings = Settings(store_url="memory://", push_signing_keys=signing_keys)
    with pytest.raises(MissingExtra) as missing:
        Runtime(echo, settings)
    check_names_the_extra(missing.value, "signing push notifications")
    with pytest.raises(MissingExtra):
        push_available(settings)


@pytest.mark.usefixtures("no_crypto")
def test_dev_mode_without_the_extra_runs_without_push(caplog: pytest.LogCaptureFixture) -> None:
    settings = Settings(store_url="memory://", dev_mode=True)
    with caplog.at_level(logging.WARNING, logger="a2a_serverless.runtime"):
        runtime = Runtime(echo, settings)
    assert runtime.notifier is None
    assert not runtime.service.push_notifications
    assert INSTALL_HINT in caplog.text
    assert push_available(settings) is False


@pytest.mark.usefixtures("no_crypto")
def test_making_keys_and_verifying_webhooks_need_the_extra(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(MissingExtra) as missing:
        generate_key()
    check_names_the_extra(missing.value, "generating a push signing key")
    assert keys_main(["generate"]) == 1
    assert INSTALL_HINT in capsys.readouterr().err
    with pytest.raises(MissingExtra) as missing:
        WebhookVerifier("https://agent.example.com/.well-known/jwks.json", audience="https://me/")
    check_names_the_extra(missing.value, "verifying push notifications")


def test_a_broken_cryptography_fails_signing_with_the_same_error(
    signing_keys: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Installed but not importable (e.g. a wheel for another platform): PyJWT then defines no
    # EC/RSA algorithms, and the first signature says which extra to (re)install.
    ring = KeyRing(parse_signing_keys(signing_keys))
    monkeypatch.setitem(sys.modules, "jwt.algorithms", None)
    with pytest.raises(MissingExtra) as missing:
        JwtSigner(ring).sign(b"{}", "https://receiver.example/", "t1")
    check_names_the_extra(missing.value, "signing push notifications")


# --- auth ---------------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_crypto")
def test_jwt_auth_without_the_extra_stops_the_runtime() -> None:
    settings = Settings(
        store_url="memory://",
        auth_jwt_issuer="https://login.example.com/",
        auth_jwt_audience="https://agent.example.com",
        auth_jwt_jwks_url="https://login.example.com/jwks.json",
    )
    with pytest.raises(MissingExtra) as missing:
        Runtime(echo, settings)
    check_names_the_extra(missing.value, "verifying bearer JWTs (the 'bearer' scheme)")
    with pytest.raises(MissingExtra):
        BearerJWTAuthenticator(
            issuer="https://login.example.com/",
            audience="https://agent.example.com",
            jwks_url="https://login.example.com/jwks.json",
        )
    with pytest.raises(MissingExtra) as missing:
        OpenIdConnectAuthenticator(
            discovery_url="https://login.example.com", audience="https://agent.example.com"
        )
    check_names_the_extra(missing.value, "the 'oidc' scheme")


@pytest.mark.usefixtures("no_crypto")
async def test_api_keys_work_without_the_extra() -> None:
    app = create_app(echo, Settings(store_url="memory://", auth_api_keys=f"{API_KEY}=alice"))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://agent") as client:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {
                "message": {
                    "kind": "message",
                    "role": "user",
                    "messageId": "m1",
                    "parts": [{"kind": "text", "text": "hi"}],
                }
            },
        }
        refused = await client.post("/", json=body)
        assert refused.status_code == 401
        sent = await client.post("/", json=body, headers={"X-API-Key": API_KEY})
        task = sent.json()["result"]
        assert task["status"]["state"] == "completed"
        got = await client.get(f"/v1/tasks/{task['id']}", headers={"X-API-Key": API_KEY})
        assert got.status_code == 200 and got.json()["id"] == task["id"]
        card = await client.get("/.well-known/agent-card.json")
        assert card.json()["capabilities"]["pushNotifications"] is False


# --- what a request imports ---------------------------------------------------------------------

SERVE = """
import asyncio, json, sys
{prelude}
from a2a_serverless import Settings, agent, create_app

@agent(name="Echo", description="d")
def echo(text: str) -> str:
    return text

app = create_app(echo, Settings(store_url="memory://", auth_api_keys="{key}=alice"))

async def call(method, path, body=None):
    messages = [{{"type": "http.request", "body": json.dumps(body).encode() if body else b""}}]
    sent = []
    async def receive():
        return messages.pop(0) if messages else {{"type": "http.disconnect"}}
    async def send(message):
        sent.append(message)
    headers = [(b"content-type", b"application/json"), (b"x-api-key", b"{key}")]
    scope = {{"type": "http", "method": method, "path": path, "headers": headers,
             "query_string": b""}}
    await app(scope, receive, send)
    assert sent[0]["status"] == 200, sent
    return json.loads(sent[1]["body"])

def loaded():
    prefixes = ("cryptography", "jwt", "a2a_serverless.rest", "a2a_serverless.push")
    return sorted({{m.split(".")[0] if not m.startswith("a2a") else ".".join(m.split(".")[:2])
                   for m in sys.modules if m.startswith(prefixes) and sys.modules[m]}})

async def main():
    message = {{"kind": "message", "role": "user", "messageId": "m1",
               "parts": [{{"kind": "text", "text": "hi"}}]}}
    task = (await call("POST", "/", {{"jsonrpc": "2.0", "id": 1, "method": "message/send",
                                     "params": {{"message": message}}}}))["result"]
    assert task["status"]["state"] == "completed", task
    await call("POST", "/", {{"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
                             "params": {{"id": task["id"]}}}})
    await call("GET", "/.well-known/agent-card.json")
    after_jsonrpc = loaded()
    await call("GET", "/v1/tasks/" + task["id"])
    print(json.dumps({{"jsonrpc": after_jsonrpc, "rest": loaded()}}))

asyncio.run(main())
"""


def serve_and_list_imports(prelude: str = "") -> dict[str, list[str]]:
    code = SERVE.format(prelude=prelude, key=API_KEY)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, list[str]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_requests_import_no_cryptography_nor_jwt() -> None:
    # cryptography is installed here: nothing on these request paths may load it (nor PyJWT,
    # which loads it), and JSON-RPC requests do not load the REST transport either.
    loaded = serve_and_list_imports()
    assert loaded["jsonrpc"] == []
    assert loaded["rest"] == ["a2a_serverless.rest"]


def test_the_default_install_serves_requests() -> None:
    # As `pip install a2a-serverless` leaves it: no cryptography at all.
    loaded = serve_and_list_imports("sys.modules['cryptography'] = None")
    assert loaded["rest"] == ["a2a_serverless.rest"]


# --- httpx: the `client` extra, and part of `crypto` ----------------------------------------------


@pytest.fixture
def no_httpx(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(sys.modules, "httpx", None)
    yield


@pytest.mark.usefixtures("no_httpx")
def test_the_client_without_httpx_names_the_client_extra() -> None:
    from a2a_serverless.client import A2AClient
    from a2a_serverless.extras import client_available

    assert not client_available()
    with pytest.raises(MissingExtra) as missing:
        asyncio.run(A2AClient.connect("https://agent.example.com"))
    error = missing.value
    assert error.extra == "client" and error.module == "httpx"
    assert "the A2A client" in str(error)
    assert "pip install 'a2a-serverless[client]'" in str(error)


@pytest.mark.usefixtures("no_httpx")
def test_remote_agents_without_httpx_stop_the_runtime() -> None:
    settings = Settings(
        store_url="memory://", remote_agents='{"helper": "https://helper.example.com"}'
    )
    with pytest.raises(MissingExtra) as missing:
        Runtime(echo, settings)
    assert missing.value.extra == "client"
    assert "calling other agents" in str(missing.value)


@pytest.mark.usefixtures("no_httpx")
def test_push_without_httpx_names_the_crypto_extra(signing_keys: str) -> None:
    # Delivering webhooks needs httpx, which the crypto extra installs with cryptography.
    assert not crypto_available()
    settings = Settings(store_url="memory://", push_signing_keys=signing_keys)
    with pytest.raises(MissingExtra) as missing:
        Runtime(echo, settings)
    assert missing.value.extra == "crypto" and missing.value.module == "httpx"
    assert "signing push notifications" in str(missing.value)


@pytest.mark.usefixtures("no_httpx")
def test_the_cli_says_which_extra_a_call_needs() -> None:
    import io

    from a2a_serverless.client.commands import run

    err = io.StringIO()
    args = argparse.Namespace(command="card")
    assert run(args, out=io.StringIO(), err=err) == 1
    assert "pip install 'a2a-serverless[client]'" in err.getvalue()
