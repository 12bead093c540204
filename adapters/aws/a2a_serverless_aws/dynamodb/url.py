"""`dynamodb://` store URLs: which table, in which region, at which endpoint.

    dynamodb://<table>[?region=<region>][&endpoint=<url-encoded endpoint URL>]
               [&content=s3://<bucket>[/<prefix>]]

e.g. ``dynamodb://a2a-tasks?region=eu-west-1`` on AWS, or
``dynamodb://a2a-tasks?region=us-east-1&endpoint=http://127.0.0.1:8000`` for DynamoDB Local.
`content` names the S3 bucket (and key prefix) that holds parts too large for the table's
items (a2a_serverless.store.content); without it every part stays in the items.
Without `region` or `endpoint`, botocore's own configuration decides (AWS_REGION,
AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_DYNAMODB, the shared config file). Credentials never go in
the URL: they come from botocore's usual chain (the Lambda role, environment, profile).

Standard library only, so parsing costs nothing at import (a `content` URL is checked by the
core's parser, imported then).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import msgspec

SCHEME = "dynamodb"
_TABLE_NAME = re.compile(r"[A-Za-z0-9_.-]{3,255}")
_OPTIONS = ("region", "endpoint", "content")
_REGION = re.compile(r"[a-z0-9][a-z0-9-]{1,62}")


class DynamoDBUrl(msgspec.Struct, frozen=True):
    table_name: str
    region: str | None = None
    endpoint_url: str | None = None
    # s3://<bucket>[/<prefix>], checked.
    content_url: str | None = None


def check_table_name(name: str) -> None:
    if not _TABLE_NAME.fullmatch(name):
        raise ValueError(
            f"invalid DynamoDB table name {name!r}: 3 to 255 characters of a-z, A-Z, 0-9, "
            "'_', '-' and '.'"
        )


def parse_dynamodb_url(url: str) -> DynamoDBUrl:
    """The parts of a ``dynamodb://`` URL. ValueError, saying what is wrong, for anything else."""
    parts = urlsplit(url)
    if parts.scheme.lower() != SCHEME:
        raise ValueError(f"not a {SCHEME}:// URL: {url!r}")
    if parts.path not in ("", "/") or parts.fragment or "@" in parts.netloc:
        raise ValueError(
            f"a DynamoDB store URL is dynamodb://<table>?region=...&endpoint=..., got {url!r}"
        )
    table_name = parts.netloc
    check_table_name(table_name)
    try:
        options = parse_qs(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        raise ValueError(f"malformed query in DynamoDB store URL {url!r}") from None
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(unknown)} in {url!r}: a DynamoDB store URL takes "
            f"{', '.join(_OPTIONS)}"
        )
    values: dict[str, str] = {}
    for name, given in options.items():
        if len(given) != 1 or not given[0]:
            raise ValueError(f"option {name!r} needs exactly one non-empty value in {url!r}")
        values[name] = given[0]
    region = values.get("region")
    if region is not None and not _REGION.fullmatch(region):
        raise ValueError(f"invalid AWS region {region!r} in {url!r}")
    endpoint = values.get("endpoint")
    if endpoint is not None:
        endpoint_parts = urlsplit(endpoint)
        if endpoint_parts.scheme not in ("http", "https") or not endpoint_parts.netloc:
            raise ValueError(
                f"endpoint must be an http(s) URL such as http://127.0.0.1:8000, got {endpoint!r}"
            )
    content = values.get("content")
    if content is not None:
        from a2a_serverless.store.content import parse_bucket_url

        parse_bucket_url(content, "s3")
    return DynamoDBUrl(
        table_name=table_name, region=region, endpoint_url=endpoint, content_url=content
    )
