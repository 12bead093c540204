"""Identifiers: random (version 4) and name-based (version 5) UUIDs, as strings.

The strings `str(uuid.uuid4())`, `uuid.uuid4().hex` and `str(uuid.uuid5(...))` give, made from the
bytes directly instead of through a `uuid.UUID` object (which costs more than the random bytes or
the hash): every message makes several.
"""

from __future__ import annotations

import os
import uuid

from .hashes import sha1

_URL_NAMESPACE = uuid.NAMESPACE_URL.bytes


def random_uuid() -> str:
    """A random UUID in its canonical form, as `str(uuid.uuid4())`."""
    return _canonical(_with_version(bytearray(os.urandom(16)), 4))


def random_hex() -> str:
    """A random UUID as 32 hex digits, as `uuid.uuid4().hex`."""
    return _with_version(bytearray(os.urandom(16)), 4).hex()


def url_uuid(name: str) -> str:
    """The name-based UUID of `name` in the URL namespace, as `str(uuid.uuid5(NAMESPACE_URL,
    name))`: the same name always gives the same id."""
    digest = sha1(_URL_NAMESPACE + name.encode()).digest()
    return _canonical(_with_version(bytearray(digest[:16]), 5))


def _with_version(raw: bytearray, version: int) -> bytearray:
    # RFC 4122: the version in the high nibble of byte 6, the variant (10xx) in byte 8.
    raw[6] = (raw[6] & 0x0F) | (version << 4)
    raw[8] = (raw[8] & 0x3F) | 0x80
    return raw


def _canonical(raw: bytearray) -> str:
    digits = raw.hex()
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"
