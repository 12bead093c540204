"""The Store contract against MemoryStore."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from a2a_serverless.store import MemoryStore, Store
from a2a_serverless.testing.store_contract import StoreContract


class TestMemoryStore(StoreContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[Store]:
        store = MemoryStore()
        yield store
        await store.close()
