"""The operator commands against DynamoDB Local (the scenario: tests/support/operator_cli.py)."""

from __future__ import annotations

import pytest

from tests.support.operator_cli import check_operator_commands

pytestmark = pytest.mark.aws


async def test_operator_commands_on_dynamodb(dynamodb_store_url: str) -> None:
    await check_operator_commands(dynamodb_store_url)
