"""Secrets given by reference: where a secret lives, instead of the secret.

    env:NAME                    the environment variable NAME
    file:PATH                   the file's text (`file://PATH` too), without a final newline
    ssm:/param/name             an SSM Parameter Store parameter (a SecureString decrypted)
    secretsmanager:name-or-arn  a Secrets Manager secret's string

The one reader of these references: the AWS adapter reads its secret settings through
`read_aws_secret` (a2a_serverless_aws/secrets.py), the push keys their `file:` through
`read_file_reference` (push/keys.py), and the client its credentials through `resolve_secret`
(client/auth.py). boto3 is imported only for an `ssm:` or `secretsmanager:` reference read
without a client given. A reference that cannot be read raises `SecretUnavailable`
(`SecretMissing` when the parameter or secret does not exist), naming the reference, never a
value.
"""

from __future__ import annotations

import os
from typing import Any

from .exceptions import UnavailableError

AWS_PREFIXES = ("ssm:", "secretsmanager:")
# What each service answers for a parameter or secret that does not exist.
NOT_FOUND = {"ssm": "ParameterNotFound", "secretsmanager": "ResourceNotFoundException"}


class SecretUnavailable(UnavailableError, RuntimeError):
    """A secret reference that could not be read."""


class SecretMissing(SecretUnavailable):
    """The parameter or secret a reference names does not exist."""


def read_file_reference(value: str) -> str:
    """The text of the file a `file:` reference names, without a final newline."""
    path = value.removeprefix("file:").removeprefix("//")
    try:
        with open(path, encoding="utf-8") as file:
            return file.read().removesuffix("\n")
    except OSError as exc:
        raise SecretUnavailable(f"cannot read {path}: {exc}") from None


def read_aws_secret(client: Any, service: str, reference: str) -> str:
    """The value of SSM parameter (`service` "ssm") or Secrets Manager secret `reference`, read
    with `client` (a boto3 client of that service)."""
    try:
        if service == "ssm":
            response = client.get_parameter(Name=reference, WithDecryption=True)
            return str(response["Parameter"]["Value"])
        response = client.get_secret_value(SecretId=reference)
    except Exception as exc:
        # The error names the parameter, never a value.
        code = getattr(exc, "response", {}).get("Error", {}).get("Code")
        if code == NOT_FOUND.get(service):
            raise SecretMissing(f"{service} {reference!r} does not exist") from None
        raise SecretUnavailable(
            f"could not read {service} {reference!r}: {type(exc).__name__}: {exc}"
        ) from None
    if "SecretString" not in response:
        raise SecretUnavailable(f"secret {reference!r} holds binary data, not the text expected")
    return str(response["SecretString"])


def resolve_secret(value: str, *, clients: dict[str, Any] | None = None) -> str:
    """The secret `value` names (see the module), or `value` itself when it is no reference.
    `clients` maps "ssm" / "secretsmanager" to boto3 clients (tests)."""
    if value.startswith("env:"):
        name = value.removeprefix("env:")
        found = os.environ.get(name)
        if found is None:
            raise SecretUnavailable(f"{value}: the environment variable {name} is not set")
        return found
    if value.startswith("file:"):
        return read_file_reference(value)
    if value.startswith(AWS_PREFIXES):
        service, _, reference = value.partition(":")
        if not reference:
            raise SecretUnavailable(f"{value!r} names no {service} secret")
        client = (clients or {}).get(service)
        if client is None:
            import boto3  # type: ignore[import-untyped]

            client = boto3.session.Session().client(service)
        return read_aws_secret(client, service, reference)
    return value
