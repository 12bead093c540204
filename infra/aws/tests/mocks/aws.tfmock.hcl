# Values for the computed attributes the module passes on, shaped like the real ones (the
# provider validates ARNs even when mocked); every test file loads them with
# `mock_provider "aws" { source = "./tests/mocks" }`.

mock_resource "aws_dynamodb_table" {
  defaults = {
    arn = "arn:aws:dynamodb:eu-west-1:123456789012:table/test-agent-tasks"
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

mock_data "aws_ssm_parameter" {
  defaults = {
    value = "[{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"from-ssm\",\"alg\":\"ES256\",\"iat\":1}]"
  }
}

mock_data "aws_secretsmanager_secret_version" {
  defaults = {
    secret_string = "[{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"from-secrets-manager\",\"alg\":\"ES256\",\"iat\":1}]"
  }
}
