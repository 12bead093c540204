"""A real HTTP(S) webhook receiver on 127.0.0.1 whose behaviour a test switches at will.

It records every request (method, target, headers, body, SNI) and answers with a `Reply`
chosen per request: any status and headers, after a delay, with a body of any size or one that
never ends. `stop()` closes the port (connections are refused: "down") and `start(port)` opens
the same port again ("up").
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import inspect
import ssl
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Reply:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"ok"
    delay_s: float = 0.0
    # Send a chunked body that never ends (the client must stop reading on its own).
    endless: bool = False


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
            reply = self.behaviour(received) if self.behaviour else Reply()
            if inspect.isawaitable(reply):
                reply = await reply
            assert isinstance(reply, Reply)
            if reply.delay_s:
                await asyncio.sleep(reply.delay_s)
            await self._write(writer, reply)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

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
