"""A real HTTP(S) webhook receiver on 127.0.0.1 whose behaviour a test switches at will.

It records every request (method, target, headers, body, SNI) and answers with a `Reply`
chosen per request: any status and headers, after a delay, with a body of any size or one that
never ends, or no answer at all until the client gives up (`hang`; how long each such request
was held is in `holds`). `in_flight` / `max_in_flight` count requests being answered at once.
`stop()` closes the port (connections are refused: "down") and `start(port)` opens the same
port again ("up").

`DedupingEndpoint` is the receiving side docs/security.md asks for, on such a server: each
notification it answers with a 2xx is verified (JWT against the agent's JWKS, token) and then
de-duplicated on its X-A2A-Notification-Id.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import inspect
import ssl
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"ok"
    delay_s: float = 0.0
    # Send a chunked body that never ends (the client must stop reading on its own).
    endless: bool = False
    # Never answer: hold the request until the client hangs up (its timeout) or `stop()`.
    hang: bool = False


@dataclass(frozen=True)
class Received:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    at: float

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    @property
    def notification_id(self) -> str | None:
        return self.headers.get("x-a2a-notification-id")

    @property
    def seq(self) -> int | None:
        value = self.headers.get("x-a2a-notification-seq")
        return None if value is None else int(value)


Behaviour = Callable[[Received], Reply | Awaitable[Reply]]


class WebhookServer:
    def __init__(self, behaviour: Behaviour | None = None) -> None:
        self.behaviour = behaviour
        self.requests: list[Received] = []
        self.sni_names: list[str | None] = []
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._ssl: ssl.SSLContext | None = None
        # Requests being answered now, and the most there ever were at once.
        self.in_flight = 0
        self.max_in_flight = 0
        # For each `hang` reply: seconds from the request's arrival to the client hanging up.
        self.holds: list[float] = []

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(
        self, port: int | None = None, *, ssl_context: ssl.SSLContext | None = None
    ) -> WebhookServer:
        if ssl_context is not None:
            self._ssl = ssl_context
            ssl_context.sni_callback = self._record_sni
        self._server = await asyncio.start_server(
            self._handle,
            host="127.0.0.1",
            port=self.port if port is None else port,
            reuse_address=True,
            ssl=self._ssl,
        )
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for writer in list(self._writers):
            writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2)
        self._server = None

    @property
    def running(self) -> bool:
        return self._server is not None

    def url(self, path: str = "/webhook", *, host: str = "127.0.0.1") -> str:
        scheme = "https" if self._ssl is not None else "http"
        return f"{scheme}://{host}:{self.port}{path}"

    # --- what was received -------------------------------------------------------------------

    def notifications(self, path: str | None = None) -> list[Received]:
        return [r for r in self.requests if r.method == "POST" and (path is None or r.path == path)]

    async def wait_for(
        self, count: int, *, path: str | None = None, timeout: float = 5.0
    ) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.notifications(path)) < count:
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"expected {count} notifications, got {len(self.notifications(path))}"
                )
            await asyncio.sleep(0.01)
        return self.notifications(path)

    # --- serving -----------------------------------------------------------------------------

    def _record_sni(self, _ssl_object: object, name: str | None, _context: object) -> None:
        self.sni_names.append(name)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers: dict[str, str] = {}
            for line in lines[1:]:
                if line:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0"))
            body = await reader.readexactly(length) if length else b""
            received = Received(method, target, headers, body, time.monotonic())
            self.requests.append(received)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                await self._answer(received, reader, writer)
            finally:
                self.in_flight -= 1
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(
        self, received: Received, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        reply = self.behaviour(received) if self.behaviour else Reply()
        if inspect.isawaitable(reply):
            reply = await reply
        assert isinstance(reply, Reply)
        if reply.hang:
            try:
                # The client sends nothing more: the read ends when it closes the connection.
                await reader.read()
            finally:
                self.holds.append(time.monotonic() - received.at)
            return
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        await self._write(writer, reply)

    async def _write(self, writer: asyncio.StreamWriter, reply: Reply) -> None:
        head = [f"HTTP/1.1 {reply.status} Status", "Connection: close"]
        head += [f"{k}: {v}" for k, v in reply.headers.items()]
        if reply.endless:
            head.append("Transfer-Encoding: chunked")
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
            chunk = b"x" * 16384
            frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
            while True:  # until the client hangs up
                writer.write(frame)
                await writer.drain()
                await asyncio.sleep(0)
        head.append(f"Content-Length: {len(reply.body)}")
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + reply.body)
        await writer.drain()


# --- a receiver that verifies and de-duplicates --------------------------------------------------


@dataclass(frozen=True)
class Accepted:
    """A notification the endpoint took in (verified, first copy of its notification id)."""

    task_id: str
    seq: int
    notification_id: str
    state: str
    path: str
    at: float


class DedupingEndpoint:
    """A webhook endpoint as the docs describe one, wrapping a test's `behaviour`.

    The behaviour decides each reply first (status, delay, hang). A request answered 2xx is
    verified (an invalid one is answered 401 and kept in `rejected`) and its notification id
    looked up: the first copy goes to `accepted`, later ones to `duplicates`. This happens when
    the request arrives, before any delay: a receiver that is slow to answer has still done
    the work, which is how at-least-once delivery makes duplicates.
    """

    def __init__(
        self,
        jwks: Mapping[str, Any],
        behaviour: Behaviour | None = None,
        *,
        tokens: Mapping[str, str] | None = None,
    ) -> None:
        self.jwks = jwks
        self.behaviour = behaviour
        self.tokens = dict(tokens or {})  # path -> the config's token
        self.server = WebhookServer(self._reply)
        self.accepted: list[Accepted] = []
        self.duplicates: list[Accepted] = []
        self.rejected: list[str] = []
        self._seen: set[str] = set()
        self._verifiers: dict[str, Any] = {}

    async def start(self, port: int | None = None) -> DedupingEndpoint:
        await self.server.start(port)
        return self

    async def stop(self) -> None:
        await self.server.stop()

    def url(self, path: str = "/webhook") -> str:
        return self.server.url(path)

    def for_task(self, task_id: str, path: str | None = None) -> list[Accepted]:
        return [
            a for a in self.accepted if a.task_id == task_id and (path is None or a.path == path)
        ]

    async def _reply(self, request: Received) -> Reply:
        reply = self.behaviour(request) if self.behaviour else Reply()
        if inspect.isawaitable(reply):
            reply = await reply
        assert isinstance(reply, Reply)
        if reply.hang or not 200 <= reply.status < 300:
            return reply
        from a2a_serverless.push import NotificationRejected, WebhookVerifier

        verifier = self._verifiers.get(request.path)
        if verifier is None:
            verifier = WebhookVerifier(
                audience=self.url(request.path),
                jwks=self.jwks,
                token=self.tokens.get(request.path),
            )
            self._verifiers[request.path] = verifier
        try:
            verified = await verifier.verify(request.headers, request.body)
        except NotificationRejected as rejected:
            self.rejected.append(f"{request.path}: {rejected}")
            return Reply(401, body=b"rejected")
        nid = str(verified.notification_id)
        state = str(verified.task["status"]["state"])
        seen = Accepted(
            verified.task_id, int(verified.seq or 0), nid, state, request.path, request.at
        )
        if nid in self._seen:
            self.duplicates.append(seen)
        else:
            self._seen.add(nid)
            self.accepted.append(seen)
        return reply


# --- TLS for the https tests ------------------------------------------------------------------


def self_signed(hostname: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context, client context trusting it) for a certificate naming `hostname`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(hostname)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    with tempfile.TemporaryDirectory() as tmp:
        cert_file, key_file = Path(tmp, "cert.pem"), Path(tmp, "key.pem")
        cert_file.write_bytes(cert_pem)
        key_file.write_bytes(key_pem)
        server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server.load_cert_chain(cert_file, key_file)
    client = ssl.create_default_context(cadata=cert_pem.decode())
    return server, client
