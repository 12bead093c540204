"""The digests a first message takes (hashes.py) are hashlib's, without importing hashlib."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from a2a_serverless import hashes


@pytest.mark.parametrize("data", [b"", b"a2a", bytes(range(256)) * 40])
def test_the_digests_are_hashlibs(data: bytes) -> None:
    assert hashes.sha1(data).hexdigest() == hashlib.sha1(data).hexdigest()
    assert hashes.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_importing_them_does_not_import_hashlib() -> None:
    code = "import sys, a2a_serverless.hashes; print('hashlib' in sys.modules)"
    found = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True
    )
    assert found.stdout.strip() == "False"
