"""The operator commands against a SQLite store (tests/support/operator_cli.py has the scenario;
tests/aws and tests/gcp run it on DynamoDB Local and the Firestore emulator)."""

from __future__ import annotations

from pathlib import Path

from tests.support.operator_cli import check_operator_commands


async def test_operator_commands_on_sqlite(tmp_path: Path) -> None:
    await check_operator_commands(f"sqlite:///{tmp_path / 'tasks.db'}")
