# streaming = true: the function URL in RESPONSE_STREAM mode, the Lambda Web Adapter wiring, and
# the function URL's two permissions (never a bare public lambda:InvokeFunction).

mock_provider "aws" {
  source = "./tests/mocks"
}

variables {
  name                  = "test-agent"
  package_zip           = "tests/fixtures/package.zip"
  streaming             = true
  web_adapter_layer_arn = "arn:aws:lambda:eu-west-1:753240598075:layer:LambdaAdapterLayerX86:25"
  stream_timeout        = 600
}

run "streaming" {
  command = apply

  # The function URL streams through the Web Adapter.
  assert {
    condition     = aws_lambda_function_url.stream[0].invoke_mode == "RESPONSE_STREAM"
    error_message = "the function URL must stream responses"
  }
  assert {
    condition     = aws_lambda_function_url.stream[0].function_name == aws_lambda_function.stream[0].function_name
    error_message = "the function URL belongs to the streaming function"
  }
  assert {
    condition     = aws_lambda_function.stream[0].function_name == "test-agent-stream" && aws_lambda_function.stream[0].handler == "run.sh"
    error_message = "the streaming function runs run.sh"
  }
  assert {
    condition     = contains(aws_lambda_function.stream[0].layers, "arn:aws:lambda:eu-west-1:753240598075:layer:LambdaAdapterLayerX86:25")
    error_message = "the streaming function carries the Lambda Web Adapter layer"
  }
  assert {
    condition = alltrue([
      aws_lambda_function.stream[0].environment[0].variables.AWS_LAMBDA_EXEC_WRAPPER == "/opt/bootstrap",
      aws_lambda_function.stream[0].environment[0].variables.AWS_LWA_INVOKE_MODE == "response_stream",
      aws_lambda_function.stream[0].environment[0].variables.AWS_LWA_PORT == "8080",
      aws_lambda_function.stream[0].environment[0].variables.AWS_LWA_READINESS_CHECK_PATH == "/health",
      aws_lambda_function.stream[0].environment[0].variables.A2A_STREAMING == "true",
      aws_lambda_function.stream[0].environment[0].variables.A2A_LAMBDA_TIMEOUT_S == "600",
    ])
    error_message = "the Web Adapter runs in response_stream mode and the app knows its timeout"
  }
  assert {
    condition     = aws_lambda_function.stream[0].environment[0].variables.A2A_STORE_URL == aws_lambda_function.http.environment[0].variables.A2A_STORE_URL
    error_message = "the streaming function reads the same store"
  }
  assert {
    condition     = aws_lambda_function.http.environment[0].variables.A2A_STREAMING == "false"
    error_message = "the API Gateway function still says streaming false"
  }
  assert {
    condition     = output.stream_url == "https://mocked.lambda-url.eu-west-1.on.aws/" && output.stream_function_name == "test-agent-stream"
    error_message = "stream outputs"
  }

  # The function URL's two permissions.
  assert {
    condition     = aws_lambda_permission.stream_url[0].action == "lambda:InvokeFunctionUrl" && aws_lambda_permission.stream_url[0].function_url_auth_type == "NONE"
    error_message = "InvokeFunctionUrl for everyone, through the URL"
  }
  assert {
    condition = jsonencode(jsondecode(aws_cloudformation_stack.stream_url_invoke[0].template_body).Resources.InvokeViaFunctionUrl.Properties) == jsonencode({
      Action                = "lambda:InvokeFunction"
      FunctionName          = aws_lambda_function.stream[0].function_name
      InvokedViaFunctionUrl = true
      Principal             = "*"
    })
    error_message = "lambda:InvokeFunction only when invoked via the function URL"
  }
  assert {
    condition     = length([for p in [aws_lambda_permission.api, aws_lambda_permission.stream_url[0]] : p if p.action == "lambda:InvokeFunction" && p.principal == "*"]) == 0
    error_message = "no unconditional public lambda:InvokeFunction"
  }

  # The streaming function's role.
  assert {
    condition     = keys(aws_iam_role.function) == ["http", "stream", "worker"]
    error_message = "the streaming function has a role of its own"
  }
  assert {
    condition = jsonencode(sort([
      for s in jsondecode(aws_iam_role_policy.function["stream"].policy).Statement : s.Sid
    ])) == jsonencode(["ContentObjects", "EnqueueJobs", "ListContent", "Logs", "ReadApiKeys", "TaskTable"])
    error_message = "the streaming function may use the table and the content bucket, send jobs, write its logs and read the API keys, nothing more"
  }
  assert {
    condition     = aws_cloudwatch_log_group.function["stream"].name == "/aws/lambda/test-agent-stream"
    error_message = "the streaming function has its own log group"
  }
}
