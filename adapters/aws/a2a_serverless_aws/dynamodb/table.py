"""Creating the store's table, for tests and development.

Production tables come from infrastructure code (Terraform, serverless.yml); they must match
what `create_table` makes here, documented in adapters/aws/README.md ("DynamoDB store"):

- key: ``PK`` (S, partition), ``SK`` (S, sort); billing PAY_PER_REQUEST;
- global secondary indexes ``by_owner`` (``owner`` S, ``order_key`` S; projecting INCLUDE
  ``state``, ``expires_ms``) and ``by_context_tasks`` (``owner_ctx`` S; KEYS_ONLY);
- Time to Live on the attribute ``ttl``.
"""

from __future__ import annotations

from .models import TTL_ATTRIBUTE, bind
from .url import check_table_name


def create_table(
    table_name: str, *, region: str | None = None, endpoint_url: str | None = None
) -> None:
    """Create the table (on-demand billing) unless it exists, wait until it is active, and
    make sure its TTL is enabled. Safe to call again."""
    check_table_name(table_name)
    items = bind(table_name, region=region, host=endpoint_url)
    items.create_table(wait=True)
    client = items._get_connection().connection.client
    described = client.describe_time_to_live(TableName=table_name)["TimeToLiveDescription"]
    if described.get("TimeToLiveStatus") in ("ENABLED", "ENABLING"):
        if described.get("AttributeName") != TTL_ATTRIBUTE:
            raise ValueError(
                f"table {table_name!r} has TTL on {described.get('AttributeName')!r}; "
                f"the store needs it on {TTL_ATTRIBUTE!r}"
            )
        return
    # pynamodb's connection has no DescribeTimeToLive, so this pair goes through botocore.
    client.update_time_to_live(
        TableName=table_name,
        TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE},
    )
