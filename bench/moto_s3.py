"""moto's server, started as the AWS tests' fixture starts it (`python -m moto.server` on a free
loopback port, its own process), stopped at the end: S3 with one fresh bucket for the storage
section's large-artifact rows, SQS for the AWS path of the durable-calls bench.

Missing moto is not an error here: the bench leaves those rows out and says why.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from .dynamodb_local import REGION, free_port
from .processes import stop

STARTUP_TIMEOUT_S = 30


class MotoUnavailable(RuntimeError):
    """moto's server cannot run here (the message says why)."""


@contextmanager
def moto_server() -> Iterator[str]:
    """A running moto server; yields its endpoint URL."""
    try:
        import moto.server  # noqa: F401
    except ImportError as error:
        raise MotoUnavailable(f"moto's server is not installed ({error})") from None
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while True:
                with suppress(OSError), urllib.request.urlopen(f"{endpoint}/moto-api/", timeout=1):
                    break
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    output = log.read().decode(errors="replace")[-2000:]
                    raise MotoUnavailable(f"moto's server did not start:\n{output}")
                time.sleep(0.1)
            yield endpoint
        finally:
            stop(process)


@contextmanager
def s3_bucket() -> Iterator[tuple[str, str]]:
    """A running S3 (moto) with an empty bucket; yields (endpoint URL, bucket name)."""
    import botocore.session  # type: ignore[import-untyped]

    with moto_server() as endpoint:
        bucket = f"a2a-bench-{uuid.uuid4().hex[:8]}"
        client = botocore.session.get_session().create_client(
            "s3", region_name=REGION, endpoint_url=endpoint
        )
        client.create_bucket(Bucket=bucket)
        yield endpoint, bucket
