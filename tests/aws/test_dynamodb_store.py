"""The Store contract suite, unchanged, against DynamoDBStore on DynamoDB Local."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from a2a_serverless.store.base import Store
from a2a_serverless.testing.store_contract import StoreContract
from a2a_serverless_aws.dynamodb import DynamoDBStore

pytestmark = pytest.mark.aws


class TestDynamoDBStore(StoreContract):
    @pytest.fixture
    async def store(self, dynamodb_store: DynamoDBStore) -> AsyncIterator[Store]:
        yield dynamodb_store
