"""The Store contract suite, unchanged, against DynamoDBStore on DynamoDB Local, its large
parts in S3 on the moto server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from a2a_serverless.store.base import Store
from a2a_serverless.testing.store_contract import StoreContract
from a2a_serverless_aws.dynamodb import DynamoDBStore
from a2a_serverless_aws.s3content import S3ContentStore
from tests.aws.conftest import DYNAMODB_TEST_REGION

pytestmark = pytest.mark.aws


class TestDynamoDBStore(StoreContract):
    @pytest.fixture
    async def store(
        self, dynamodb_endpoint: str, dynamodb_table: str, s3_content: S3ContentStore
    ) -> AsyncIterator[Store]:
        store = DynamoDBStore(
            dynamodb_table,
            region=DYNAMODB_TEST_REGION,
            endpoint_url=dynamodb_endpoint,
            content=s3_content,
        )
        yield store
        await store.close()
