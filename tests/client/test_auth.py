"""Outbound credentials, each checked by a real verifier over real HTTP:

- API keys (header, query, cookie: where the card says) and bearer tokens: our dev server, with
  `A2A_AUTH_*` as a deployment sets them, lets the client in; without them it answers 401 and a
  challenge, which the client raises as AuthorizationError;
- OAuth2 client credentials: a local token endpoint (client authenticated with HTTP Basic)
  mints RS256 tokens our dev server verifies; the token is fetched once and reused;
- Google ID tokens: google-auth's own flow for a service account key (a JWT assertion to the
  key's token URI, here a local endpoint that verifies it), the ID token then verified by our dev
  server as a JWT of issuer accounts.google.com;
- AWS SigV4: a local endpoint recomputes the signature with botocore's SigV4 code from what it
  received and the same credentials.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from a2a_serverless import errors as e
from a2a_serverless import models as m
from a2a_serverless.client import (
    A2AClient,
    AwsSigV4,
    CardError,
    CredentialOptions,
    HTTPStatusError,
    OAuth2ClientCredentials,
)
from a2a_serverless.client.auth import ApiKey, OutgoingRequest, credential_for
from tests.client.asgi import read_body, send_json
from tests.support.server import LiveServer, start_live_server

GUARDED_APP = "tests.interop.agents:guarded_app"
API_KEY = "client-test-key-0123456789abcdef"
ISSUER = "https://issuer.example.com"
AUDIENCE = "https://agent.example.com"
GOOGLE_ISSUER = "https://accounts.google.com"
SIGNING = rsa.generate_private_key(public_exponent=65537, key_size=2048)
SERVICE_ACCOUNT = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def private_pem(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def guarded(tmp_path: Path, **env: str) -> LiveServer:
    """The guarded interop agent (its admin skill needs a bearer scheme: JWTs of ISSUER)."""
    settings = {
        "A2A_STORE_URL": f"sqlite:///{tmp_path / 'tasks.db'}",
        "A2A_AUTH_JWT_ISSUER": ISSUER,
        "A2A_AUTH_JWT_AUDIENCE": AUDIENCE,
        "A2A_AUTH_JWT_KEYS": public_pem(SIGNING),
    }
    return start_live_server(GUARDED_APP, {**settings, **env})


@pytest.fixture
def servers() -> Iterator[list[LiveServer]]:
    started: list[LiveServer] = []
    yield started
    for server in started:
        server.stop()


@pytest.mark.parametrize("where", ["header", "query", "cookie"])
async def test_api_key_where_the_card_says(
    tmp_path: Path, servers: list[LiveServer], where: str
) -> None:
    server = guarded(
        tmp_path,
        A2A_AUTH_API_KEYS=f"{API_KEY}=bot",
        A2A_AUTH_API_KEY_IN=where,
        A2A_AUTH_API_KEY_NAME="agent_key",
    )
    servers.append(server)
    key_file = tmp_path / "key"
    key_file.write_text(API_KEY + "\n")
    client = await A2AClient.connect(
        server.url, credentials=CredentialOptions(api_key=f"file:{key_file}")
    )
    assert client.credential == ApiKey(API_KEY, "agent_key", where)
    task = await client.send("hello")
    assert isinstance(task, m.Task) and task.status.state is m.TaskState.COMPLETED

    anonymous = await A2AClient.connect(server.url)
    with pytest.raises(e.AuthorizationError) as refused:
        await anonymous.send("hello")
    assert refused.value.status == 401
    assert dict(refused.value.headers).get(b"www-authenticate")


def bearer_token(issuer: str = ISSUER, audience: str = AUDIENCE, key: Any = SIGNING) -> str:
    now = int(time.time())
    claims = {"iss": issuer, "aud": audience, "sub": "svc", "iat": now, "exp": now + 600}
    return jwt.encode(claims, key, algorithm="RS256")


async def test_bearer_token_from_the_environment(
    tmp_path: Path, servers: list[LiveServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = guarded(tmp_path)
    servers.append(server)
    monkeypatch.setenv("MY_TOKEN", bearer_token())
    monkeypatch.setenv("A2A_CLIENT_BEARER_TOKEN", "env:MY_TOKEN")
    client = await A2AClient.connect(server.url, credentials=CredentialOptions.from_env())
    task = await client.send("hello")
    assert isinstance(task, m.Task)
    wrong = await A2AClient.connect(
        server.url, credentials=CredentialOptions(bearer_token=bearer_token(audience="other"))
    )
    with pytest.raises(e.AuthorizationError):
        await wrong.send("hello")


def token_endpoint(client_id: str, secret: str, calls: list[dict[str, Any]]) -> Any:
    """An OAuth2 token endpoint: the client credentials grant, the client by HTTP Basic."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        calls.append(form)
        expected = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
        if headers.get("authorization") != f"Basic {expected}" or form.get("grant_type") != (
            "client_credentials"
        ):
            status, answer = 401, {"error": "invalid_client"}
        else:
            status = 200
            answer = {"access_token": bearer_token(), "token_type": "Bearer", "expires_in": 600}
        await send_json(send, status, answer)

    return app


async def test_oauth2_client_credentials_fetched_once_and_verified(
    tmp_path: Path,
    servers: list[LiveServer],
    serve_asgi: Callable[[Any], AbstractAsyncContextManager[str]],
) -> None:
    server = guarded(tmp_path)
    servers.append(server)
    calls: list[dict[str, Any]] = []
    async with serve_asgi(token_endpoint("agent-a", "s3cret", calls)) as issuer_url:
        options = CredentialOptions(
            oauth_client_id="agent-a",
            oauth_client_secret="s3cret",
            oauth_scopes=("a2a:invoke",),
            oauth_token_url=f"{issuer_url}/token",
        )
        client = await A2AClient.connect(server.url, credentials=options)
        assert isinstance(client.credential, OAuth2ClientCredentials)
        for text in ("one", "two"):
            task = await client.send(text)
            assert isinstance(task, m.Task)
        assert calls == [{"grant_type": "client_credentials", "scope": "a2a:invoke"}]

        bad = OAuth2ClientCredentials(f"{issuer_url}/token", "agent-a", "wrong")
        refused = await A2AClient.connect(server.url, credentials=bad)
        with pytest.raises(Exception, match="401"):
            await refused.send("three")


async def test_the_cards_oauth2_flow_is_used_and_its_token_url_ssrf_checked() -> None:
    def card(token_url: str) -> dict[str, Any]:
        flows = {"clientCredentials": {"tokenUrl": token_url, "scopes": {}}}
        return {"securitySchemes": {"oauth": {"type": "oauth2", "flows": flows}}}

    options = CredentialOptions(oauth_client_id="id", oauth_client_secret="secret")
    found = await credential_for(
        card("https://agent.example.com/token"), options, configured_url="https://agent.example.com"
    )
    assert isinstance(found, OAuth2ClientCredentials)
    assert found.token_url == "https://agent.example.com/token"
    with pytest.raises(CardError, match="will not call"):
        await credential_for(
            card("http://169.254.169.254/latest/meta-data"),
            options,
            configured_url="https://agent.example.com",
        )


def google_token_endpoint(audience_seen: list[str]) -> Any:
    """Google's OAuth2 token URI as a service account key names it: takes the JWT bearer grant
    google-auth sends, verifies its signature with the key's public half, and answers an ID
    token (issuer accounts.google.com) for the assertion's target_audience."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        claims = jwt.decode(
            form["assertion"],
            SERVICE_ACCOUNT.public_key(),
            algorithms=["RS256"],
            options={"verify_aud": False},
        )
        audience_seen.append(claims["target_audience"])
        now = int(time.time())
        id_token = jwt.encode(
            {
                "iss": GOOGLE_ISSUER,
                "aud": claims["target_audience"],
                "sub": claims["iss"],
                "iat": now,
                "exp": now + 3600,
            },
            SIGNING,
            algorithm="RS256",
        )
        await send_json(send, 200, {"id_token": id_token})

    return app


async def test_google_id_token_from_a_service_account_key(
    tmp_path: Path,
    servers: list[LiveServer],
    serve_asgi: Callable[[Any], AbstractAsyncContextManager[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = guarded(tmp_path, A2A_AUTH_JWT_ISSUER=f"{ISSUER},{GOOGLE_ISSUER}")
    servers.append(server)
    seen: list[str] = []
    async with serve_asgi(google_token_endpoint(seen)) as token_uri:
        key_file = tmp_path / "service-account.json"
        key_file.write_text(
            json.dumps(
                {
                    "type": "service_account",
                    "project_id": "test",
                    "private_key_id": "k1",
                    "private_key": private_pem(SERVICE_ACCOUNT),
                    "client_email": "caller@test.iam.gserviceaccount.com",
                    "client_id": "1",
                    "token_uri": f"{token_uri}/token",
                }
            )
        )
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
        client = await A2AClient.connect(
            server.url, credentials=CredentialOptions(google_audience=AUDIENCE)
        )
        for text in ("one", "two"):
            assert isinstance(await client.send(text), m.Task)
    assert seen == [AUDIENCE]  # fetched once, kept until near its expiry


def sigv4_verifier(access_key: str, secret_key: str, region: str, outcomes: list[bool]) -> Any:
    """An endpoint that checks AWS SigV4 as API Gateway does, with botocore's own signing code:
    the canonical request rebuilt from the signed headers received, signed again with the same
    credentials at the request's X-Amz-Date, compared with the Authorization header."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = await read_body(receive)
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        authorization = headers.get("authorization", "")
        fields = dict(
            item.strip().split("=", 1) for item in authorization.split(" ", 1)[-1].split(",")
        )
        signed = fields.get("SignedHeaders", "").split(";")
        scope_parts = fields.get("Credential", "").split("/")
        query = scope["query_string"].decode()
        url = f"http://{headers['host']}{scope['path']}" + (f"?{query}" if query else "")
        request = AWSRequest(
            method=scope["method"], url=url, data=body, headers={h: headers[h] for h in signed}
        )
        request.context["timestamp"] = headers["x-amz-date"]
        auth = SigV4Auth(Credentials(access_key, secret_key), scope_parts[3], region)
        canonical = auth.canonical_request(request)
        expected = auth.signature(auth.string_to_sign(request, canonical), request)
        ok = scope_parts[0] == access_key and fields.get("Signature") == expected
        outcomes.append(ok)
        await send_json(send, 200 if ok else 403, b"{}")

    return app


async def test_sigv4_signature_verified_by_botocore(
    serve_asgi: Callable[[Any], AbstractAsyncContextManager[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    outcomes: list[bool] = []
    verifier = sigv4_verifier(
        "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "eu-west-1", outcomes
    )
    async with serve_asgi(verifier) as url:
        credential = AwsSigV4("execute-api", "eu-west-1")
        for method, target, body in (
            ("POST", f"{url}/", b'{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}'),
            ("GET", f"{url}/tasks/t-1?historyLength=2", b""),
        ):
            request = OutgoingRequest(method, target, {"Content-Type": "application/json"}, body)
            await credential.apply(request)
            assert request.headers["Authorization"].startswith("AWS4-HMAC-SHA256 ")
            import httpx

            async with httpx.AsyncClient() as http:
                answer = await http.request(
                    method, request.url, headers=request.headers, content=body or None
                )
            assert answer.status_code == 200
        tampered = OutgoingRequest("POST", f"{url}/", {}, b"{}")
        await credential.apply(tampered)
        async with httpx.AsyncClient() as http:
            answer = await http.post(tampered.url, headers=tampered.headers, content=b"{ }")
        assert answer.status_code == 403
    assert outcomes == [True, True, False]


async def test_a_card_that_is_not_public_is_fetched_with_the_credential(
    tmp_path: Path, servers: list[LiveServer], capsys: pytest.CaptureFixture[str]
) -> None:
    server = guarded(tmp_path, A2A_AUTH_API_KEYS=f"{API_KEY}=bot", A2A_AUTH_PUBLIC_CARD="false")
    servers.append(server)
    with pytest.raises(HTTPStatusError) as refused:
        await A2AClient.connect(server.url)
    assert refused.value.status == 401
    client = await A2AClient.connect(server.url, credentials=CredentialOptions(api_key=API_KEY))
    assert isinstance(await client.send("hello"), m.Task)
