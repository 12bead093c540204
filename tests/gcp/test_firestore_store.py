"""The Store contract, unchanged, against FirestoreStore on the Firestore emulator, its large
parts in Cloud Storage on gcp-storage-emulator."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from a2a_serverless.store import Store
from a2a_serverless.testing.store_contract import StoreContract
from a2a_serverless_gcp.cloud_storage import CloudStorageContentStore
from a2a_serverless_gcp.firestore import FirestoreStore
from tests.gcp.conftest import FIRESTORE_TEST_PROJECT, unique_prefix

pytestmark = pytest.mark.gcp


class TestFirestoreStore(StoreContract):
    @pytest.fixture
    async def store(
        self, firestore_emulator: str, cloud_storage_content: CloudStorageContentStore
    ) -> AsyncIterator[Store]:
        store = FirestoreStore(
            project=FIRESTORE_TEST_PROJECT, prefix=unique_prefix(), content=cloud_storage_content
        )
        yield store
        await store.close()
