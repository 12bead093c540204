"""Secret settings given as SSM / Secrets Manager references, read at start-up (moto server)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest

from a2a_serverless import agent, create_app
from a2a_serverless.config import Settings
from a2a_serverless_aws.secrets import SecretUnavailable, resolve_secrets
from tests.aws.runtime.conftest import REGION

pytestmark = pytest.mark.aws


@agent(name="Echo", description="Says back what it is told.")
def echo_agent(text: str) -> str:
    return text


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
def test_an_unreadable_api_keys_reference_fails_start_up_naming_it(
    clients: dict[str, Any], reference: str
) -> None:
    """Never skipped: an agent whose API keys are missing would be open to anyone."""
    with pytest.raises(SecretUnavailable) as failure:
        resolve_secrets(Settings(auth_api_keys=reference), clients=clients)
    assert "A2A_AUTH_API_KEYS" in str(failure.value)


def test_an_unreadable_push_keys_reference_fails_start_up(clients: dict[str, Any]) -> None:
    """Only a parameter that does not exist is skipped, not one that cannot be read."""
    with pytest.raises(SecretUnavailable, match="A2A_PUSH_SIGNING_KEYS"):
        resolve_secrets(Settings(push_signing_keys="ssm:"), clients=clients)
    secret = f"agent-{uuid.uuid4().hex}/binary"
    clients["secretsmanager"].create_secret(Name=secret, SecretBinary=b"\x00")
    with pytest.raises(SecretUnavailable, match="binary data"):
        resolve_secrets(Settings(push_signing_keys=f"secretsmanager:{secret}"), clients=clients)


@pytest.mark.parametrize(
    ("reference", "create"),
    [
        ("ssm:/does/not/exist", "aws ssm put-parameter --name /does/not/exist"),
        ("secretsmanager:nope", "aws secretsmanager create-secret --name nope"),
    ],
)
def test_missing_push_keys_start_without_push_and_say_so(
    clients: dict[str, Any], reference: str, create: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="a2a_serverless_aws.secrets"):
        settings = Settings(push_signing_keys=reference, store_url="memory://")
        resolved = resolve_secrets(settings, clients=clients)
    assert resolved.push_signing_keys is None
    (record,) = caplog.records
    assert record.levelno == logging.ERROR
    assert record.getMessage().startswith("PUSH NOTIFICATIONS ARE OFF: A2A_PUSH_SIGNING_KEYS")
    assert "does not exist" in record.getMessage() and create in record.getMessage()
    # Push is off (the card's pushNotifications follows the notifier); the agent still starts.
    assert create_app(echo_agent, resolved).runtime.notifier is None
