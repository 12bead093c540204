"""Fixtures for the Google Cloud adapter tests: a real Firestore emulator, started once.

Names other test modules may rely on (kept stable):

- `firestore_emulator` (session): starts ``gcloud emulators firestore start`` on a free
  loopback port, waits until it answers, and yields its ``host:port``. For the whole session
  it sets FIRESTORE_EMULATOR_HOST (how google-cloud-firestore finds the emulator, in this
  process and in subprocesses started after it) and GOOGLE_CLOUD_PROJECT =
  `FIRESTORE_TEST_PROJECT`. At the end it stops the emulator's whole process group (gcloud
  runs a java child). A missing gcloud, emulator component or Java fails the test with a hint
  (``scripts/emulators/firestore.sh`` installs what it can); the emulator's output is in
  ``<pytest tmp>/firestore-emulator*/emulator.log`` and its tail in startup failures.
- `firestore_store_url` (function): a ``firestore://`` URL on the emulator with a prefix of
  its own, so what a test writes is apart from every other test's.
- `firestore_store` (function): a `FirestoreStore` on that URL, closed after the test.
- `FIRESTORE_TEST_PROJECT`, `unique_prefix()`: the project id and a fresh collection prefix.
- `storage_emulator` (session): starts gcp-storage-emulator (PyPI, in its own virtualenv,
  ``scripts/emulators/cloud-storage.sh``) in memory on a free loopback port and yields its URL;
  for the session it sets STORAGE_EMULATOR_HOST (how google-cloud-storage finds it). A missing
  install fails the test with the hint. `storage_bucket` (session) is a fresh bucket on it and
  `cloud_storage_content` (function) a `CloudStorageContentStore` on that bucket.
"""

from __future__ import annotations

import shutil
import subprocess
import urllib.error
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from a2a_serverless_gcp.cloud_storage import CloudStorageContentStore
from a2a_serverless_gcp.firestore import FirestoreStore, open_firestore_store
from tests.support.processes import start_process, stop_group, wait_until
from tests.support.server import free_port

FIRESTORE_TEST_PROJECT = "a2a-serverless-test"
STARTUP_TIMEOUT_S = 120
INSTALL_HINT = (
    "The GCP tests need the Firestore emulator: the Google Cloud CLI (gcloud), its "
    "cloud-firestore-emulator component and Java 11+. Run scripts/emulators/firestore.sh "
    "(it installs the component when it can, and says what to install when it cannot)."
)


REPO = Path(__file__).resolve().parents[2]
# Run as `python -m` with its venv's python: a console script's shebang holds the absolute path
# the venv was made at, and breaks when the checkout moves.
STORAGE_EMULATOR = REPO / ".emulators" / "cloud-storage-venv" / "bin" / "python"
STORAGE_INSTALL_HINT = (
    "The GCP tests need the Cloud Storage emulator: run scripts/emulators/cloud-storage.sh "
    "(pip installs gcp-storage-emulator into .emulators/cloud-storage-venv/)."
)


def unique_prefix() -> str:
    return f"t{uuid.uuid4().hex[:12]}"


def _missing_emulator() -> str | None:
    """What is missing to run the emulator, or None."""
    gcloud = shutil.which("gcloud")
    if gcloud is None:
        return "gcloud is not on PATH"
    if shutil.which("java") is None:
        return "java is not on PATH"
    info = subprocess.run(
        [gcloud, "info", "--format=value(installation.sdk_root)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    sdk_root = info.stdout.strip()
    if info.returncode != 0 or not sdk_root:
        return f"'gcloud info' failed: {info.stderr.strip()}"
    jar = Path(sdk_root) / "platform" / "cloud-firestore-emulator" / "cloud-firestore-emulator.jar"
    if not jar.is_file():
        return f"the cloud-firestore-emulator component is not installed ({jar} missing)"
    return None


def _answers(host_port: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host_port}/", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="session")
def firestore_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    problem = _missing_emulator()
    if problem is not None:
        pytest.fail(f"Firestore emulator unavailable: {problem}.\n{INSTALL_HINT}", pytrace=False)

    host_port = f"127.0.0.1:{free_port()}"
    log_path = tmp_path_factory.mktemp("firestore-emulator") / "emulator.log"
    args = ["gcloud", "emulators", "firestore", "start", f"--host-port={host_port}"]
    process = start_process(args, log_path)
    try:
        wait_until(
            lambda: _answers(host_port),
            process,
            f"the Firestore emulator (on {host_port})",
            log_path,
            STARTUP_TIMEOUT_S,
        )
        with pytest.MonkeyPatch.context() as env:
            env.setenv("FIRESTORE_EMULATOR_HOST", host_port)
            env.setenv("GOOGLE_CLOUD_PROJECT", FIRESTORE_TEST_PROJECT)
            yield host_port
    finally:
        stop_group(process)


@pytest.fixture
def firestore_store_url(firestore_emulator: str) -> str:
    return f"firestore://{FIRESTORE_TEST_PROJECT}/(default)?prefix={unique_prefix()}"


@pytest.fixture
async def firestore_store(firestore_store_url: str) -> AsyncIterator[FirestoreStore]:
    store = open_firestore_store(firestore_store_url)
    yield store
    await store.close()


@pytest.fixture(scope="session")
def storage_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not STORAGE_EMULATOR.is_file():
        pytest.fail(
            f"Cloud Storage emulator not installed ({STORAGE_EMULATOR} missing).\n"
            f"{STORAGE_INSTALL_HINT}",
            pytrace=False,
        )
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = tmp_path_factory.mktemp("storage-emulator") / "emulator.log"
    args = [str(STORAGE_EMULATOR), "-m", "gcp_storage_emulator", "start", "--host", "127.0.0.1"]
    args += ["--port", str(port), "-M"]
    process = start_process(args, log_path)
    try:
        wait_until(
            lambda: _storage_answers(url),
            process,
            f"the Cloud Storage emulator (on {url})",
            log_path,
            STARTUP_TIMEOUT_S,
        )
        with pytest.MonkeyPatch.context() as env:
            env.setenv("STORAGE_EMULATOR_HOST", url)
            yield url
    finally:
        stop_group(process)


def _storage_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/storage/v1/b?project=x", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope="session")
def storage_bucket(storage_emulator: str) -> str:
    from google.cloud import storage  # type: ignore[attr-defined]

    name = f"a2a-content-{uuid.uuid4().hex[:12]}"
    storage.Client(project=FIRESTORE_TEST_PROJECT).create_bucket(name)
    return name


@pytest.fixture
def cloud_storage_content(storage_bucket: str) -> CloudStorageContentStore:
    return CloudStorageContentStore(storage_bucket, project=FIRESTORE_TEST_PROJECT)
