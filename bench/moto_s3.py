"""moto's S3 server for the storage section's large-artifact rows: in this process (moto's
ThreadedMotoServer) on a free loopback port, with one fresh bucket, stopped at the end.

Missing moto is not an error here: the bench leaves those rows out and says why.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from .dynamodb_local import REGION, free_port


class MotoUnavailable(RuntimeError):
    """moto's server cannot run here (the message says why)."""


@contextmanager
def s3_bucket() -> Iterator[tuple[str, str]]:
    """A running S3 (moto) with an empty bucket; yields (endpoint URL, bucket name)."""
    try:
        import botocore.session  # type: ignore[import-untyped]
        from moto.server import ThreadedMotoServer
    except ImportError as error:
        raise MotoUnavailable(f"moto's server is not installed ({error})") from None
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        endpoint = f"http://127.0.0.1:{port}"
        bucket = f"a2a-bench-{uuid.uuid4().hex[:8]}"
        client = botocore.session.get_session().create_client(
            "s3", region_name=REGION, endpoint_url=endpoint
        )
        client.create_bucket(Bucket=bucket)
        yield endpoint, bucket
    finally:
        server.stop()
