"""`dynamodb://` URLs, the `a2a_serverless.stores` entry point, and what importing costs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from a2a_serverless.store import open_store
from a2a_serverless.testing.store_contract import make_record
from a2a_serverless_aws.dynamodb import DynamoDBStore, DynamoDBUrl, parse_dynamodb_url

pytestmark = pytest.mark.aws


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("dynamodb://a2a-tasks", DynamoDBUrl("a2a-tasks")),
        ("DynamoDB://My_Table.v2/", DynamoDBUrl("My_Table.v2")),
        ("dynamodb://a2a-tasks?region=eu-west-1", DynamoDBUrl("a2a-tasks", "eu-west-1")),
        (
            "dynamodb://tasks?region=us-east-1&endpoint=http%3A%2F%2F127.0.0.1%3A8000",
            DynamoDBUrl("tasks", "us-east-1", "http://127.0.0.1:8000"),
        ),
        (
            "dynamodb://tasks?endpoint=http://localhost:8000",
            DynamoDBUrl("tasks", None, "http://localhost:8000"),
        ),
    ],
)
def test_parse(url: str, expected: DynamoDBUrl) -> None:
    assert parse_dynamodb_url(url) == expected


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("firestore://tasks", "not a dynamodb:// URL"),
        ("dynamodb://", "invalid DynamoDB table name"),
        ("dynamodb://ab", "invalid DynamoDB table name"),
        ("dynamodb://bad*name", "invalid DynamoDB table name"),
        ("dynamodb://tasks/extra", "dynamodb://<table>"),
        ("dynamodb://key:secret@tasks", "dynamodb://<table>"),
        ("dynamodb://tasks?table=other", "unknown option"),
        ("dynamodb://tasks?region=eu-west-1&region=us-east-1", "exactly one"),
        ("dynamodb://tasks?region=", "exactly one"),
        ("dynamodb://tasks?region=EU_WEST", "invalid AWS region"),
        ("dynamodb://tasks?endpoint=127.0.0.1:8000", "http(s) URL"),
        ("dynamodb://tasks?endpoint=ftp://host", "http(s) URL"),
    ],
)
def test_parse_refuses(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_dynamodb_url(url)


def test_store_refuses_a_bad_table_name() -> None:
    with pytest.raises(ValueError, match="invalid DynamoDB table name"):
        DynamoDBStore("no spaces allowed")


async def test_open_store_through_the_entry_point(
    dynamodb_store_url: str, dynamodb_table: str, dynamodb_endpoint: str
) -> None:
    store = open_store(dynamodb_store_url)
    assert isinstance(store, DynamoDBStore)
    assert (store.table_name, store.region, store.endpoint_url) == (
        dynamodb_table,
        "us-east-1",
        dynamodb_endpoint,
    )
    record = make_record()
    await store.create_task(record)
    assert await store.get_task(record.task_id) == record
    await store.close()


async def test_stores_on_one_table_share_one_client(
    dynamodb_table: str, dynamodb_endpoint: str
) -> None:
    one = DynamoDBStore(dynamodb_table, region="us-east-1", endpoint_url=dynamodb_endpoint)
    two = DynamoDBStore(dynamodb_table, region="us-east-1", endpoint_url=dynamodb_endpoint)
    assert one.item_class is two.item_class
    assert one.client is two.client


def test_importing_the_package_loads_no_aws_sdk() -> None:
    # The entry point resolves `open_dynamodb_store` without paying for pynamodb/botocore.
    code = (
        "import sys, a2a_serverless_aws.dynamodb as d; "
        "assert callable(d.open_dynamodb_store); "
        "print(sorted(m for m in ('pynamodb', 'botocore', 'boto3') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"
