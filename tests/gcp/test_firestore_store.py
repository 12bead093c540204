"""The Store contract, unchanged, against FirestoreStore on the Firestore emulator."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from a2a_serverless.store import Store
from a2a_serverless.testing.store_contract import StoreContract
from a2a_serverless_gcp.firestore import FirestoreStore
from tests.gcp.conftest import FIRESTORE_TEST_PROJECT, unique_prefix

pytestmark = pytest.mark.gcp


class TestFirestoreStore(StoreContract):
    @pytest.fixture
    async def store(self, firestore_emulator: str) -> AsyncIterator[Store]:
        store = FirestoreStore(project=FIRESTORE_TEST_PROJECT, prefix=unique_prefix())
        yield store
        await store.close()
