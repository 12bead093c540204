"""Secret settings read at start-up from SSM Parameter Store or Secrets Manager.

A setting that holds a secret — the push signing keys (`A2A_PUSH_SIGNING_KEYS`), the API keys
(`A2A_AUTH_API_KEYS`) — may name where the secret lives instead of holding it:

    A2A_PUSH_SIGNING_KEYS=ssm:/my-agent/push-signing-keys     (a SecureString parameter)
    A2A_PUSH_SIGNING_KEYS=secretsmanager:my-agent/push-keys   (a secret's name or ARN)

The value is fetched once per container, when the handler is built, so it never sits in the
function's configuration or in deployment state (and Lambda's 4 KB environment limit does not
bound the key set). The function's role needs `ssm:GetParameter` (and `kms:Decrypt` for the
parameter's key) or `secretsmanager:GetSecretValue`. A reference that cannot be read fails the
start-up with the reason: a function must not come up without its keys. The reading itself is
the core's (`a2a_serverless/secretrefs.py`, which the client's credentials use too); its
`SecretUnavailable` and `SecretMissing` are re-exported here.

One exception: push signing keys whose parameter or secret does not exist (a deployment made
before the parameter was). The functions then start without push notifications, the card says
`pushNotifications: false`, and every start logs an ERROR naming the parameter and how to make
it; everything else works. (API keys are never skipped: without them the agent would be open.)
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from a2a_serverless.config import Settings
from a2a_serverless.secretrefs import (
    AWS_PREFIXES,
    SecretMissing,
    SecretUnavailable,
    read_aws_secret,
)

logger = logging.getLogger(__name__)

# The settings that may be given as references.
SECRET_FIELDS = ("push_signing_keys", "auth_api_keys")
PREFIXES = AWS_PREFIXES
HOW_TO_CREATE = {
    "ssm": "a2a-serverless keys generate > keys.json && aws ssm put-parameter --name {reference} "
    "--type SecureString --value file://keys.json && rm keys.json",
    "secretsmanager": "a2a-serverless keys generate | aws secretsmanager create-secret --name "
    "{reference} --secret-string file:///dev/stdin",
}


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
        try:
            changes[name] = _fetch(client, service, reference, name)
        except SecretMissing as missing:
            if name != "push_signing_keys":
                raise
            logger.error(
                "PUSH NOTIFICATIONS ARE OFF: %s. The agent runs without them (its card says "
                "pushNotifications: false) until the %s exists and the functions restart; "
                "create it with: %s",
                missing,
                "parameter" if service == "ssm" else "secret",
                HOW_TO_CREATE[service].format(reference=reference),
            )
            changes[name] = None
    return dataclasses.replace(settings, **changes) if changes else settings


def _fetch(client: Any, service: str, reference: str, name: str) -> str:
    try:
        return read_aws_secret(client, service, reference)
    except SecretMissing as exc:
        raise SecretMissing(f"A2A_{name.upper()}: {exc}") from None
    except SecretUnavailable as exc:
        raise SecretUnavailable(f"A2A_{name.upper()}: {exc}") from None
