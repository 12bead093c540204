"""The Firestore emulator for the GCP rows: started on a free loopback port, stopped at the end.

The emulator is the one the GCP tests start (tests/gcp/conftest.py): `gcloud emulators firestore
start`, a java process under gcloud's script, installed and checked by
scripts/emulators/firestore.sh (gcloud, its cloud-firestore-emulator component, Java). Missing
any of them is not an error here: the bench leaves the GCP rows out and says why.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from .dynamodb_local import free_port
from .environments import REPO

INSTALLER = "scripts/emulators/firestore.sh"
STARTUP_TIMEOUT_S = 120
STOP_TIMEOUT_S = 15


class FirestoreEmulatorUnavailable(RuntimeError):
    """The Firestore emulator cannot run here (the message says what is missing)."""


def _answers(host_port: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{host_port}/", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    # gcloud runs a script that runs java: the whole process group goes.
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
            process.wait(timeout=STOP_TIMEOUT_S)
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            continue
        # The script is gone; its java child must be too.
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        return


@contextmanager
def firestore_emulator() -> Iterator[str]:
    """A running Firestore emulator (in memory); yields its host:port, the value of
    FIRESTORE_EMULATOR_HOST for the processes that use it."""
    if shutil.which("gcloud") is None:
        raise FirestoreEmulatorUnavailable(f"gcloud is not on PATH (see {INSTALLER})")
    # Idempotent and quick when everything is there; says what is missing otherwise.
    checked = subprocess.run(["bash", str(REPO / INSTALLER)], capture_output=True, text=True)
    if checked.returncode != 0:
        raise FirestoreEmulatorUnavailable(checked.stderr.strip()[-500:] or INSTALLER + " failed")
    host_port = f"127.0.0.1:{free_port()}"
    with tempfile.TemporaryFile() as log_file:
        process = subprocess.Popen(
            ["gcloud", "emulators", "firestore", "start", f"--host-port={host_port}"],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while not _answers(host_port):
                if process.poll() is not None or time.monotonic() > deadline:
                    log_file.seek(0)
                    output = log_file.read().decode(errors="replace")[-2000:]
                    raise FirestoreEmulatorUnavailable(
                        f"the Firestore emulator did not start on {host_port}:\n{output}"
                    )
                time.sleep(0.2)
            yield host_port
        finally:
            _stop(process)
