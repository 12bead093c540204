"""Secret settings read at start-up from SSM Parameter Store or Secrets Manager.

A setting that holds a secret — the push signing keys (`A2A_PUSH_SIGNING_KEYS`), the API keys
(`A2A_AUTH_API_KEYS`) — may name where the secret lives instead of holding it:

    A2A_PUSH_SIGNING_KEYS=ssm:/my-agent/push-signing-keys     (a SecureString parameter)
    A2A_PUSH_SIGNING_KEYS=secretsmanager:my-agent/push-keys   (a secret's name or ARN)

The value is fetched once per container, when the handler is built, so it never sits in the
function's configuration or in deployment state (and Lambda's 4 KB environment limit does not
bound the key set). The function's role needs `ssm:GetParameter` (and `kms:Decrypt` for the
parameter's key) or `secretsmanager:GetSecretValue`. A reference that cannot be read fails the
start-up with the reason: a function must not come up without its keys.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from a2a_serverless.config import Settings

# The settings that may be given as references.
SECRET_FIELDS = ("push_signing_keys", "auth_api_keys")
PREFIXES = ("ssm:", "secretsmanager:")


class SecretUnavailable(RuntimeError):
    """A secret setting names a parameter or secret that could not be read."""


def resolve_secrets(settings: Settings, *, clients: dict[str, Any] | None = None) -> Settings:
    """`settings` with every secret reference replaced by the secret's value.

    `clients` maps "ssm" / "secretsmanager" to boto3 clients (tests); by default they are
    created for the function's region when first needed.
    """
    made = dict(clients or {})
    changes: dict[str, Any] = {}
    for name in SECRET_FIELDS:
        value = getattr(settings, name)
        if not isinstance(value, str) or not value.startswith(PREFIXES):
            continue
        service, _, reference = value.partition(":")
        if not reference:
            raise SecretUnavailable(f"A2A_{name.upper()}={value!r} names no {service} secret")
        client = made.get(service)
        if client is None:
            import boto3  # type: ignore[import-untyped]

            client = made[service] = boto3.session.Session().client(service)
        changes[name] = _fetch(client, service, reference, name)
    return dataclasses.replace(settings, **changes) if changes else settings


def _fetch(client: Any, service: str, reference: str, name: str) -> str:
    try:
        if service == "ssm":
            response = client.get_parameter(Name=reference, WithDecryption=True)
            return str(response["Parameter"]["Value"])
        response = client.get_secret_value(SecretId=reference)
    except Exception as exc:
        # The error names the parameter, never a value.
        raise SecretUnavailable(
            f"A2A_{name.upper()}: could not read {service} {reference!r}: {type(exc).__name__}: "
            f"{exc}"
        ) from None
    if "SecretString" not in response:
        raise SecretUnavailable(
            f"A2A_{name.upper()}: secret {reference!r} holds binary data, not the text expected"
        )
    return str(response["SecretString"])
