"""A moto server for the documented-deploy tests, with three gaps of moto 5.2 filled so that
`serverless deploy` and `terraform apply` run against it as they do against AWS:

- CloudFormation's ValidateTemplate: moto runs cfn-lint over the template and refuses it on any
  finding, warnings included (osls's own `DependsOn` on a role it also `GetAtt`s is W3005).
  AWS checks the template's syntax; this server refuses only cfn-lint's errors.
- SQS's RedriveAllowPolicy: moto keeps it but neither returns it nor accepts its name in
  GetQueueAttributes, and the aws provider waits for it to read back. This server returns it.
- CloudFormation's AWS::ApiGatewayV2::Api: moto's CloudFormation has no model of it, so a stack's
  `Ref` of its HTTP API is None and a `Fn::GetAtt` of it fails the stack. This server creates the
  API in moto's API Gateway v2 (its routes, stage and integration stay unmodelled): the stack's
  `Fn::GetAtt [HttpApi, ApiEndpoint]` is then that API's endpoint, as on AWS.

    python tests/deploy/moto_deploy_server.py -H 127.0.0.1 -p PORT
"""

from __future__ import annotations

import sys
from typing import Any

import moto.cloudformation.models as cloudformation
import moto.sqs.models as sqs
from moto.apigatewayv2.models import Api, apigatewayv2_backends
from moto.cloudformation.exceptions import UnformattedGetAttTemplateException
from moto.core.common_models import CloudFormationModel
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


class CloudFormationHttpApi(CloudFormationModel):
    """AWS::ApiGatewayV2::Api as an API of moto's API Gateway v2 (found by moto's CloudFormation
    among CloudFormationModel's subclasses): its Ref is the API's id, its ApiEndpoint the URL."""

    # moto files its models by the service their module is in (moto.<service>.models).
    __module__ = "moto.apigatewayv2.cloudformation"

    def __init__(self, api: Api, account_id: str, region_name: str) -> None:
        self.api = api
        self.account_id = account_id
        self.region_name = region_name

    @staticmethod
    def cloudformation_name_type() -> str:
        return "Name"

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::ApiGatewayV2::Api"

    @classmethod
    def has_cfn_attr(cls, attr: str) -> bool:
        return attr in ("ApiEndpoint", "ApiId")

    @property
    def physical_resource_id(self) -> str:
        return str(self.api.api_id)

    def get_cfn_attribute(self, attribute_name: str) -> str:
        if attribute_name == "ApiEndpoint":
            return str(self.api.api_endpoint)
        if attribute_name == "ApiId":
            return str(self.api.api_id)
        # What moto's own models raise for an attribute they do not have: the stack fails
        # naming it, as CloudFormation's Fn::GetAtt validation does.
        raise UnformattedGetAttTemplateException()

    @classmethod
    def create_from_cloudformation_json(  # type: ignore[misc]
        cls,
        resource_name: str,
        cloudformation_json: dict[str, Any],
        account_id: str,
        region_name: str,
        **kwargs: Any,
    ) -> CloudFormationHttpApi:
        properties = cloudformation_json.get("Properties", {})
        api = apigatewayv2_backends[account_id][region_name].create_api(
            api_key_selection_expression=properties.get("ApiKeySelectionExpression"),
            cors_configuration=properties.get("CorsConfiguration"),
            description=properties.get("Description"),
            disable_schema_validation=properties.get("DisableSchemaValidation"),
            disable_execute_api_endpoint=properties.get("DisableExecuteApiEndpoint"),
            name=properties.get("Name", resource_name),
            protocol_type=properties.get("ProtocolType", "HTTP"),
            route_selection_expression=properties.get("RouteSelectionExpression"),
            tags=properties.get("Tags", {}),
            version=properties.get("Version"),
        )
        return cls(api, account_id, region_name)

    @classmethod
    def update_from_cloudformation_json(  # type: ignore[misc]
        cls,
        original_resource: CloudFormationHttpApi,
        new_resource_name: str,
        cloudformation_json: dict[str, Any],
        account_id: str,
        region_name: str,
    ) -> CloudFormationHttpApi:
        return original_resource  # the same API: its id and URL do not change

    def delete(self, account_id: str, region_name: str) -> None:
        apigatewayv2_backends[account_id][region_name].delete_api(self.api.api_id)

    def is_created(self) -> bool:
        return True


if __name__ == "__main__":
    main(sys.argv[1:])
