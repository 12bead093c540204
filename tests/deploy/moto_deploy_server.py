"""A moto server for the documented-deploy tests, with two gaps of moto 5.2 filled so that
`serverless deploy` and `terraform apply` run against it as they do against AWS:

- CloudFormation's ValidateTemplate: moto runs cfn-lint over the template and refuses it on any
  finding, warnings included (osls's own `DependsOn` on a role it also `GetAtt`s is W3005).
  AWS checks the template's syntax; this server refuses only cfn-lint's errors.
- SQS's RedriveAllowPolicy: moto keeps it but neither returns it nor accepts its name in
  GetQueueAttributes, and the aws provider waits for it to read back. This server returns it.

    python tests/deploy/moto_deploy_server.py -H 127.0.0.1 -p PORT
"""

from __future__ import annotations

import sys
from typing import Any

import moto.cloudformation.models as cloudformation
import moto.sqs.models as sqs
from moto.server import main

_lint = cloudformation.validate_template_cfn_lint  # type: ignore[attr-defined]


def _errors_only(template: str) -> list[Any]:
    return [m for m in _lint(template) if str(getattr(m.rule, "id", "E")).startswith("E")]


cloudformation.validate_template_cfn_lint = _errors_only  # type: ignore[attr-defined]

_attributes = vars(sqs.Queue)["attributes"].fget


def _with_redrive_allow_policy(queue: sqs.Queue) -> dict[str, Any]:
    result: dict[str, Any] = _attributes(queue)
    allow = getattr(queue, "redrive_allow_policy", None)
    if allow:
        result["RedriveAllowPolicy"] = allow
    return result


setattr(sqs.Queue, "attributes", property(_with_redrive_allow_policy))  # noqa: B010
# A valid name to ask for; read only where a queue has a KMS key, so a default is enough there.
sqs.Queue.KMS_ATTRIBUTES = [*sqs.Queue.KMS_ATTRIBUTES, "RedriveAllowPolicy"]
setattr(sqs.Queue, "redrive_allow_policy", None)  # noqa: B010

if __name__ == "__main__":
    main(sys.argv[1:])
