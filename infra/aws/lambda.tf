# The functions. All run the same package; A2A_LAMBDA_TIMEOUT_S repeats each one's timeout
# because Lambda does not expose it, and the adapter checks its timing rules against it at init
# (a2a_serverless_aws.config).

locals {
  package_hash = filebase64sha256(var.package_zip)
  # With SnapStart, callers invoke the alias of the published version (SnapStart never applies
  # to $LATEST); without it, the function itself.
  snap_start_alias = "snapstart"
  http_invoke_arn  = var.snap_start ? aws_lambda_alias.snap_start["http"].invoke_arn : aws_lambda_function.http.invoke_arn
  worker_target    = var.snap_start ? aws_lambda_alias.snap_start["worker"].arn : aws_lambda_function.worker.arn
}

resource "aws_lambda_function" "http" {
  #checkov:skip=CKV_AWS_116:invoked synchronously by API Gateway only; a dead-letter queue applies to asynchronous invocations
  #checkov:skip=CKV_AWS_117:reaches only AWS APIs and webhook receivers on the internet; a VPC would add NAT and endpoints for nothing private
  #checkov:skip=CKV_AWS_115:concurrency is left to the account pool; API Gateway throttling (api_throttling_*) bounds the load
  #checkov:skip=CKV_AWS_272:code signing needs a signing profile the module cannot assume; the package hash is pinned in the plan
  #checkov:skip=CKV_AWS_50:X-Ray is optional (xray_tracing), off by default: it bills per trace and the adapter's SDK tracing costs cold-start time
  #checkov:skip=CKV_AWS_173:environment variables are encrypted at rest with the AWS managed key, or with kms_key_arn when given
  function_name    = local.http_function
  description      = "A2A agent ${var.name}: HTTP (API Gateway + Mangum)"
  role             = aws_iam_role.function["http"].arn
  filename         = var.package_zip
  source_code_hash = local.package_hash
  handler          = var.http_handler
  runtime          = var.runtime
  architectures    = [var.architecture]
  memory_size      = var.http_memory
  timeout          = var.http_timeout
  kms_key_arn      = var.kms_key_arn
  publish          = var.snap_start

  dynamic "snap_start" {
    for_each = var.snap_start ? [1] : []
    content {
      apply_on = "PublishedVersions"
    }
  }

  environment {
    variables = merge(local.shared_environment, {
      A2A_LAMBDA_TIMEOUT_S = tostring(var.http_timeout)
      # Mangum buffers responses: the card must say streaming false (the handler forces it too).
      A2A_STREAMING = "false"
    })
  }

  logging_config {
    log_format = "Text"
    log_group  = aws_cloudwatch_log_group.function["http"].name
  }

  tracing_config {
    mode = local.tracing_mode
  }

  tags = var.tags

  depends_on = [aws_iam_role_policy.function]

  lifecycle {
    precondition {
      condition     = local.blocking_timeout_s + local.timeout_margin_s <= var.http_timeout
      error_message = "http_timeout must cover A2A_BLOCKING_TIMEOUT_S plus A2A_LAMBDA_TIMEOUT_MARGIN_S: blocking message/send and buffered streams would be cut off."
    }
  }
}

resource "aws_lambda_function" "worker" {
  #checkov:skip=CKV_AWS_116:invoked by the SQS event source mapping; failed jobs go to the queue's own dead-letter queue
  #checkov:skip=CKV_AWS_117:reaches only AWS APIs and webhook receivers on the internet; a VPC would add NAT and endpoints for nothing private
  #checkov:skip=CKV_AWS_115:concurrency is capped per queue by the event source mapping (worker_max_concurrency), which unlike reserved concurrency never throttles messages back to the queue
  #checkov:skip=CKV_AWS_272:code signing needs a signing profile the module cannot assume; the package hash is pinned in the plan
  #checkov:skip=CKV_AWS_50:X-Ray is optional (xray_tracing), off by default: it bills per trace and the adapter's SDK tracing costs cold-start time
  #checkov:skip=CKV_AWS_173:environment variables are encrypted at rest with the AWS managed key, or with kms_key_arn when given
  function_name    = local.worker
  description      = "A2A agent ${var.name}: worker (SQS jobs: agent turns, webhook deliveries)"
  role             = aws_iam_role.function["worker"].arn
  filename         = var.package_zip
  source_code_hash = local.package_hash
  handler          = var.worker_handler
  runtime          = var.runtime
  architectures    = [var.architecture]
  memory_size      = var.worker_memory
  timeout          = var.worker_timeout
  kms_key_arn      = var.kms_key_arn
  publish          = var.snap_start

  dynamic "snap_start" {
    for_each = var.snap_start ? [1] : []
    content {
      apply_on = "PublishedVersions"
    }
  }

  environment {
    variables = merge(local.shared_environment, {
      A2A_LAMBDA_TIMEOUT_S = tostring(var.worker_timeout)
    })
  }

  logging_config {
    log_format = "Text"
    log_group  = aws_cloudwatch_log_group.function["worker"].name
  }

  tracing_config {
    mode = local.tracing_mode
  }

  tags = var.tags

  depends_on = [aws_iam_role_policy.function]

  lifecycle {
    precondition {
      condition     = local.push_timeout_s + local.timeout_margin_s <= var.worker_timeout
      error_message = "worker_timeout must cover A2A_PUSH_TIMEOUT_S plus A2A_LAMBDA_TIMEOUT_MARGIN_S: a webhook attempt would not fit in an invocation."
    }
  }
}

resource "aws_lambda_event_source_mapping" "worker" {
  for_each = toset(local.queue_names)

  event_source_arn                   = aws_sqs_queue.queue[each.key].arn
  function_name                      = local.worker_target
  batch_size                         = var.worker_batch_size
  maximum_batching_window_in_seconds = var.worker_batching_window_s
  # The worker answers {"batchItemFailures": [...]}: only the failed records come back.
  function_response_types = ["ReportBatchItemFailures"]

  dynamic "scaling_config" {
    for_each = var.worker_max_concurrency == null ? [] : [var.worker_max_concurrency]
    content {
      maximum_concurrency = scaling_config.value
    }
  }

  depends_on = [aws_iam_role_policy.function]
}

# SnapStart (var.snap_start): the alias the API and the SQS trigger invoke, on the version the
# last apply published (and Lambda snapshotted).
resource "aws_lambda_alias" "snap_start" {
  for_each = var.snap_start ? {
    http   = aws_lambda_function.http
    worker = aws_lambda_function.worker
  } : {}

  name             = local.snap_start_alias
  description      = "The published, snapshotted version (SnapStart)"
  function_name    = each.value.function_name
  function_version = each.value.version
}

# Live SSE: the app under uvicorn, behind the Lambda Web Adapter (a layer); the function URL
# streams its responses (a2a_serverless_aws.web_adapter).
resource "aws_lambda_function" "stream" {
  #checkov:skip=CKV_AWS_116:invoked synchronously through its function URL; a dead-letter queue applies to asynchronous invocations
  #checkov:skip=CKV_AWS_117:reaches only AWS APIs and webhook receivers on the internet; a VPC would add NAT and endpoints for nothing private
  #checkov:skip=CKV_AWS_115:concurrency is left to the account pool, like the HTTP function
  #checkov:skip=CKV_AWS_272:code signing needs a signing profile the module cannot assume; the package hash is pinned in the plan
  #checkov:skip=CKV_AWS_50:X-Ray is optional (xray_tracing), off by default: it bills per trace and the adapter's SDK tracing costs cold-start time
  #checkov:skip=CKV_AWS_173:environment variables are encrypted at rest with the AWS managed key, or with kms_key_arn when given
  count = var.streaming ? 1 : 0

  function_name    = local.stream
  description      = "A2A agent ${var.name}: live SSE (function URL, Lambda Web Adapter)"
  role             = aws_iam_role.function["stream"].arn
  filename         = var.package_zip
  source_code_hash = local.package_hash
  handler          = var.stream_handler
  runtime          = var.runtime
  architectures    = [var.architecture]
  memory_size      = var.stream_memory
  timeout          = var.stream_timeout
  kms_key_arn      = var.kms_key_arn
  layers           = [var.web_adapter_layer_arn]

  environment {
    variables = merge(local.shared_environment, {
      A2A_LAMBDA_TIMEOUT_S = tostring(var.stream_timeout)
      A2A_STREAMING        = "true"
      # The Web Adapter starts the handler script and forwards each invocation to it over HTTP.
      AWS_LAMBDA_EXEC_WRAPPER = "/opt/bootstrap"
      AWS_LWA_INVOKE_MODE     = "response_stream"
      AWS_LWA_PORT            = "8080"
      # The app's liveness route: answers without touching the store.
      AWS_LWA_READINESS_CHECK_PATH = "/health"
    })
  }

  logging_config {
    log_format = "Text"
    log_group  = aws_cloudwatch_log_group.function["stream"].name
  }

  tracing_config {
    mode = local.tracing_mode
  }

  tags = var.tags

  depends_on = [aws_iam_role_policy.function]

  lifecycle {
    precondition {
      condition     = local.blocking_timeout_s + local.timeout_margin_s <= var.stream_timeout
      error_message = "stream_timeout must cover A2A_BLOCKING_TIMEOUT_S plus A2A_LAMBDA_TIMEOUT_MARGIN_S."
    }
  }
}

# Jobs that reach a dead-letter queue without their task failed (a worker that crashed or timed
# out on every delivery never got to abandon them): this function abandons them, so their tasks
# fail with a reason instead of staying `working`; the log keeps each message.
resource "aws_lambda_function" "dead_letters" {
  #checkov:skip=CKV_AWS_116:invoked by the event source mapping of the dead-letter queues; messages it fails stay in the queue
  #checkov:skip=CKV_AWS_117:reaches only AWS APIs and webhook receivers on the internet; a VPC would add NAT and endpoints for nothing private
  #checkov:skip=CKV_AWS_115:its load is the trickle of dead-lettered jobs; the event source mapping bounds its concurrency
  #checkov:skip=CKV_AWS_272:code signing needs a signing profile the module cannot assume; the package hash is pinned in the plan
  #checkov:skip=CKV_AWS_50:X-Ray is optional (xray_tracing), off by default: it bills per trace and the adapter's SDK tracing costs cold-start time
  #checkov:skip=CKV_AWS_173:environment variables are encrypted at rest with the AWS managed key, or with kms_key_arn when given
  count = var.dead_letter_handler != null ? 1 : 0

  function_name    = local.dead_letters
  description      = "A2A agent ${var.name}: fails the tasks of dead-lettered jobs"
  role             = aws_iam_role.function["dead_letters"].arn
  filename         = var.package_zip
  source_code_hash = local.package_hash
  handler          = var.dead_letter_handler
  runtime          = var.runtime
  architectures    = [var.architecture]
  memory_size      = var.dead_letter_memory
  timeout          = var.dead_letter_timeout
  kms_key_arn      = var.kms_key_arn

  environment {
    variables = merge(local.shared_environment, {
      A2A_LAMBDA_TIMEOUT_S         = tostring(var.dead_letter_timeout)
      A2A_SQS_VISIBILITY_TIMEOUT_S = tostring(local.dlq_visibility_timeout_s)
    })
  }

  logging_config {
    log_format = "Text"
    log_group  = aws_cloudwatch_log_group.function["dead_letters"].name
  }

  tracing_config {
    mode = local.tracing_mode
  }

  tags = var.tags

  depends_on = [aws_iam_role_policy.function]

  lifecycle {
    precondition {
      condition     = local.push_timeout_s + local.timeout_margin_s <= var.dead_letter_timeout
      error_message = "dead_letter_timeout must cover A2A_PUSH_TIMEOUT_S plus A2A_LAMBDA_TIMEOUT_MARGIN_S."
    }
  }
}

resource "aws_lambda_event_source_mapping" "dead_letters" {
  for_each = var.dead_letter_handler != null ? toset(local.queue_names) : toset([])

  event_source_arn        = aws_sqs_queue.dead_letter[each.key].arn
  function_name           = aws_lambda_function.dead_letters[0].arn
  batch_size              = 10
  function_response_types = ["ReportBatchItemFailures"]

  depends_on = [aws_iam_role_policy.function]
}
