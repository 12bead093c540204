# How clients reach the agent: an API Gateway HTTP API in front of the HTTP function, and with
# `streaming` a function URL in RESPONSE_STREAM mode in front of the streaming function.

resource "aws_apigatewayv2_api" "http" {
  name          = "${var.name}-http-api"
  protocol_type = "HTTP"
  description   = "A2A agent ${var.name}"

  tags = var.tags
}

resource "aws_apigatewayv2_integration" "http" {
  api_id                 = aws_apigatewayv2_api.http.id
  integration_type       = "AWS_PROXY"
  integration_uri        = local.http_invoke_arn
  payload_format_version = "2.0"
  timeout_milliseconds   = 30000
}

# Every path and method goes to the app, which routes them itself (JSON-RPC, REST, the card).
resource "aws_apigatewayv2_route" "default" {
  #checkov:skip=CKV_AWS_309:the agent authenticates callers itself (A2A_AUTH_* settings, declared as securitySchemes on its card, which stays public as the protocol expects)
  api_id    = aws_apigatewayv2_api.http.id
  route_key = "$default"
  target    = "integrations/${aws_apigatewayv2_integration.http.id}"
}

resource "aws_apigatewayv2_stage" "default" {
  api_id      = aws_apigatewayv2_api.http.id
  name        = "$default"
  auto_deploy = true

  default_route_settings {
    throttling_burst_limit = var.api_throttling_burst_limit
    throttling_rate_limit  = var.api_throttling_rate_limit
  }

  access_log_settings {
    destination_arn = aws_cloudwatch_log_group.api.arn
    format = jsonencode({
      requestId        = "$context.requestId"
      ip               = "$context.identity.sourceIp"
      requestTime      = "$context.requestTime"
      httpMethod       = "$context.httpMethod"
      path             = "$context.path"
      status           = "$context.status"
      responseLength   = "$context.responseLength"
      integrationError = "$context.integrationErrorMessage"
      latencyMs        = "$context.responseLatency"
    })
  }

  tags = var.tags
}

resource "aws_lambda_permission" "api" {
  statement_id  = "AllowApiGatewayInvoke"
  action        = "lambda:InvokeFunction"
  function_name = aws_lambda_function.http.function_name
  qualifier     = var.snap_start ? aws_lambda_alias.snap_start["http"].name : null
  principal     = "apigateway.amazonaws.com"
  source_arn    = "${aws_apigatewayv2_api.http.execution_arn}/*/*"
}

resource "aws_lambda_function_url" "stream" {
  #checkov:skip=CKV_AWS_258:the agent authenticates callers itself (A2A_AUTH_* settings on its card); AWS_IAM would demand SigV4-signing clients, which A2A clients are not
  count = var.streaming ? 1 : 0

  function_name      = aws_lambda_function.stream[0].function_name
  authorization_type = "NONE"
  invoke_mode        = "RESPONSE_STREAM"
}

resource "aws_lambda_permission" "stream_url" {
  count = var.streaming ? 1 : 0

  statement_id           = "FunctionURLAllowPublicAccess"
  action                 = "lambda:InvokeFunctionUrl"
  function_name          = aws_lambda_function.stream[0].function_name
  principal              = "*"
  function_url_auth_type = "NONE"
}

# Since October 2025 a new function URL also needs lambda:InvokeFunction granted with the
# condition lambda:InvokedViaFunctionUrl. The aws provider gained that argument in 6.29
# (`invoked_via_function_url`); this module is pinned to 5.x, so the statement is added through
# CloudFormation, whose AWS::Lambda::Permission has InvokedViaFunctionUrl. Granting
# lambda:InvokeFunction to "*" without the condition would let anyone invoke the function
# directly, so it is never done here.
resource "aws_cloudformation_stack" "stream_url_invoke" {
  #checkov:skip=CKV_AWS_124:a one-resource stack holding a Lambda permission, owned by Terraform; its events need no SNS topic
  count = var.streaming ? 1 : 0

  name = "${var.name}-stream-url-invoke"
  template_body = jsonencode({
    AWSTemplateFormatVersion = "2010-09-09"
    Description              = "lambda:InvokeFunction through the function URL of ${local.stream} only"
    Resources = {
      InvokeViaFunctionUrl = {
        Type = "AWS::Lambda::Permission"
        Properties = {
          Action                = "lambda:InvokeFunction"
          FunctionName          = aws_lambda_function.stream[0].function_name
          Principal             = "*"
          InvokedViaFunctionUrl = true
        }
      }
    }
  })

  tags = var.tags
}
