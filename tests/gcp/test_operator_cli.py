"""The operator commands against the Firestore emulator (the scenario:
tests/support/operator_cli.py)."""

from __future__ import annotations

import pytest

from tests.support.operator_cli import check_operator_commands

pytestmark = pytest.mark.gcp


async def test_operator_commands_on_firestore(firestore_store_url: str) -> None:
    await check_operator_commands(firestore_store_url)
