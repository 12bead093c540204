"""Secret settings given as SSM / Secrets Manager references, read at start-up (moto server)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from a2a_serverless.config import Settings
from a2a_serverless_aws.secrets import SecretUnavailable, resolve_secrets
from tests.aws.runtime.conftest import REGION

pytestmark = pytest.mark.aws


@pytest.fixture
def clients(moto_endpoint: str) -> dict[str, Any]:
    import boto3  # type: ignore[import-untyped]

    session = boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name=REGION
    )
    return {
        name: session.client(name, endpoint_url=moto_endpoint) for name in ("ssm", "secretsmanager")
    }


def test_references_are_replaced_by_the_secrets(clients: dict[str, Any], signing_keys: str) -> None:
    parameter = f"/agent-{uuid.uuid4().hex}/push-keys"
    clients["ssm"].put_parameter(Name=parameter, Value=signing_keys, Type="SecureString")
    secret = f"agent-{uuid.uuid4().hex}/api-keys"
    clients["secretsmanager"].create_secret(Name=secret, SecretString="k" * 20 + "=bot")
    settings = Settings(
        push_signing_keys=f"ssm:{parameter}", auth_api_keys=f"secretsmanager:{secret}"
    )

    resolved = resolve_secrets(settings, clients=clients)

    assert resolved.push_signing_keys == signing_keys
    assert resolved.auth_api_keys == "k" * 20 + "=bot"
    assert resolved.store_url == settings.store_url


def test_plain_values_are_left_alone(clients: dict[str, Any]) -> None:
    settings = Settings(push_signing_keys='[{"kty": "EC"}]', auth_api_keys=None)
    assert resolve_secrets(settings, clients=clients) is settings


@pytest.mark.parametrize("reference", ["ssm:/does/not/exist", "secretsmanager:nope", "ssm:"])
def test_an_unreadable_reference_fails_start_up_naming_it(
    clients: dict[str, Any], reference: str
) -> None:
    with pytest.raises(SecretUnavailable) as failure:
        resolve_secrets(Settings(push_signing_keys=reference), clients=clients)
    assert "A2A_PUSH_SIGNING_KEYS" in str(failure.value)
