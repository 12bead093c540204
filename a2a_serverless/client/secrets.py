"""A credential given by reference: where the secret is, not the secret.

The references the kit's settings take (the AWS adapter's `ssm:` / `secretsmanager:`, the push
keys' `file:`), plus `env:`:

    env:NAME                   the environment variable NAME
    file:PATH                  the file's text (`file://PATH` too), without its final newline
    ssm:/param/name            an SSM Parameter Store parameter (SecureString decrypted)
    secretsmanager:name-or-arn a Secrets Manager secret's string

Anything else is the secret itself. boto3 is imported only for an `ssm:` or `secretsmanager:`
reference. A reference that cannot be read raises `SecretUnavailable`, naming the reference,
never a value.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class SecretUnavailable(RuntimeError):
    """A secret reference that could not be read."""


def resolve_secret(value: str, *, clients: dict[str, Any] | None = None) -> str:
    """The secret `value` names (see the module); `clients` maps "ssm" / "secretsmanager" to
    boto3 clients (tests)."""
    if value.startswith("env:"):
        name = value.removeprefix("env:")
        found = os.environ.get(name)
        if found is None:
            raise SecretUnavailable(f"{value}: the environment variable {name} is not set")
        return found
    if value.startswith("file:"):
        path = Path(value.removeprefix("file:").removeprefix("//"))
        try:
            return path.read_text().removesuffix("\n")
        except OSError as exc:
            raise SecretUnavailable(f"{value}: cannot read {path}: {exc.strerror}") from None
    service, colon, reference = value.partition(":")
    if colon and service in ("ssm", "secretsmanager"):
        if not reference:
            raise SecretUnavailable(f"{value!r} names no {service} secret")
        client = (clients or {}).get(service)
        if client is None:
            import boto3  # type: ignore[import-untyped]

            client = boto3.session.Session().client(service)
        try:
            if service == "ssm":
                response = client.get_parameter(Name=reference, WithDecryption=True)
                return str(response["Parameter"]["Value"])
            response = client.get_secret_value(SecretId=reference)
        except Exception as exc:
            raise SecretUnavailable(
                f"could not read {service} {reference!r}: {type(exc).__name__}"
            ) from None
        if "SecretString" not in response:
            raise SecretUnavailable(f"secret {reference!r} holds binary data, not text")
        return str(response["SecretString"])
    return value
