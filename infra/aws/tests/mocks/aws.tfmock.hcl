# Values for the computed attributes the module passes on, shaped like the real ones (the
# provider validates ARNs even when mocked); every test file loads them with
# `mock_provider "aws" { source = "./tests/mocks" }`.

mock_resource "aws_dynamodb_table" {
  defaults = {
    arn = "arn:aws:dynamodb:eu-west-1:123456789012:table/test-agent-tasks"
  }
}

mock_resource "aws_s3_bucket" {
  defaults = {
    id  = "test-agent-content-20260101000000000000000001"
    arn = "arn:aws:s3:::test-agent-content-20260101000000000000000001"
  }
}

mock_resource "aws_sqs_queue" {
  defaults = {
    arn = "arn:aws:sqs:eu-west-1:123456789012:mocked"
    url = "https://sqs.eu-west-1.amazonaws.com/123456789012/mocked"
  }
}

mock_resource "aws_cloudwatch_log_group" {
  defaults = {
    arn = "arn:aws:logs:eu-west-1:123456789012:log-group:mocked"
  }
}

mock_resource "aws_iam_role" {
  defaults = {
    arn = "arn:aws:iam::123456789012:role/mocked"
  }
}

mock_resource "aws_lambda_function" {
  defaults = {
    arn        = "arn:aws:lambda:eu-west-1:123456789012:function:mocked"
    invoke_arn = "arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:mocked/invocations"
  }
}

mock_resource "aws_lambda_alias" {
  defaults = {
    arn        = "arn:aws:lambda:eu-west-1:123456789012:function:mocked:snapstart"
    invoke_arn = "arn:aws:apigateway:eu-west-1:lambda:path/2015-03-31/functions/arn:aws:lambda:eu-west-1:123456789012:function:mocked:snapstart/invocations"
  }
}

mock_resource "aws_lambda_function_url" {
  defaults = {
    function_url = "https://mocked.lambda-url.eu-west-1.on.aws/"
  }
}

mock_resource "aws_apigatewayv2_api" {
  defaults = {
    api_endpoint  = "https://abc123.execute-api.eu-west-1.amazonaws.com"
    execution_arn = "arn:aws:execute-api:eu-west-1:123456789012:abc123"
  }
}

# What the SSM parameter's ARN is built from (secrets.tf).
mock_data "aws_partition" {
  defaults = {
    partition = "aws"
  }
}

mock_data "aws_region" {
  defaults = {
    name = "eu-west-1"
  }
}

mock_data "aws_caller_identity" {
  defaults = {
    account_id = "123456789012"
  }
}

# The secret's metadata, looked up by name; an ARN given as the secret id is kept as it is.
mock_data "aws_secretsmanager_secret" {
  defaults = {
    arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:agents/test-agent/push-signing-keys-AbCdEf"
  }
}
