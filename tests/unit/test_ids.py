"""Identifiers (ids.py): the same strings the uuid module gives, made without `uuid.UUID`."""

from __future__ import annotations

import uuid

import pytest

from a2a_serverless import ids


@pytest.mark.parametrize(
    "name",
    ["", "a2a-serverless:task:step:1", "é 漢字 \U0001f600", "x" * 1000, "a\x00b\nc"],
)
def test_url_uuid_is_uuid5_in_the_url_namespace(name: str) -> None:
    assert ids.url_uuid(name) == str(uuid.uuid5(uuid.NAMESPACE_URL, name))


def test_random_uuids_are_canonical_version_4_and_differ() -> None:
    seen = set()
    for _ in range(2000):
        text = ids.random_uuid()
        parsed = uuid.UUID(text)
        assert str(parsed) == text
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
        digits = ids.random_hex()
        parsed_hex = uuid.UUID(hex=digits)
        assert parsed_hex.hex == digits
        assert parsed_hex.version == 4 and parsed_hex.variant == uuid.RFC_4122
        seen.update((text, digits))
    assert len(seen) == 4000
