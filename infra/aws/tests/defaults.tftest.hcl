# The module with its defaults, applied against a mocked aws provider: the resources the AWS
# adapter depends on, with the values its code and docs require.
#
# tests/fixtures/package.zip is any file: the Python test (tests/deploy/test_terraform.py) writes
# a dummy zip there before running `terraform test`.

mock_provider "aws" {
  source = "./tests/mocks"
}

# Distinct ARNs for the queues and their dead-letter queues, so wiring mistakes show.
override_resource {
  target = aws_sqs_queue.queue
  values = {
    arn = "arn:aws:sqs:eu-west-1:123456789012:test-agent-queue"
    url = "https://sqs.eu-west-1.amazonaws.com/123456789012/test-agent-queue"
  }
}

override_resource {
  target = aws_sqs_queue.dead_letter
  values = {
    arn = "arn:aws:sqs:eu-west-1:123456789012:test-agent-dlq"
    url = "https://sqs.eu-west-1.amazonaws.com/123456789012/test-agent-dlq"
  }
}

variables {
  name        = "test-agent"
  package_zip = "tests/fixtures/package.zip"
}

# One run (each run costs a plan and an apply): the assertions are grouped by subject.
run "defaults" {
  command = apply

  # SnapStart is opt-in (var.snap_start): the functions themselves are invoked.
  assert {
    condition     = !aws_lambda_function.http.publish && length(aws_lambda_alias.snap_start) == 0 && aws_lambda_permission.api.qualifier == null
    error_message = "no SnapStart, versions or aliases by default"
  }

  # The table, as the DynamoDB store documents it.
  assert {
    condition     = aws_dynamodb_table.tasks.name == "test-agent-tasks"
    error_message = "table name"
  }
  assert {
    condition     = aws_dynamodb_table.tasks.billing_mode == "PAY_PER_REQUEST"
    error_message = "the table must be on-demand"
  }
  assert {
    condition     = aws_dynamodb_table.tasks.hash_key == "PK" && aws_dynamodb_table.tasks.range_key == "SK"
    error_message = "keys must be PK (partition) and SK (sort)"
  }
  assert {
    condition = jsonencode({ for a in aws_dynamodb_table.tasks.attribute : a.name => a.type }) == jsonencode({
      PK = "S", SK = "S", owner = "S", owner_ctx = "S", order_key = "S"
    })
    error_message = "attribute definitions: PK, SK, owner, owner_ctx, order_key, all strings"
  }
  assert {
    condition = jsonencode({
      for i in aws_dynamodb_table.tasks.global_secondary_index :
      i.name => [i.hash_key, coalesce(i.range_key, "-"), i.projection_type, sort(coalesce(i.non_key_attributes, []))]
      }) == jsonencode({
      by_owner         = ["owner", "order_key", "INCLUDE", ["expires_ms", "state"]]
      by_context_tasks = ["owner_ctx", "-", "KEYS_ONLY", []]
    })
    error_message = "GSIs by_owner (owner, order_key; INCLUDE state and expires_ms) and by_context_tasks (owner_ctx; KEYS_ONLY)"
  }
  assert {
    condition     = aws_dynamodb_table.tasks.ttl[0].enabled && aws_dynamodb_table.tasks.ttl[0].attribute_name == "ttl"
    error_message = "TTL must be on, on the attribute ttl"
  }
  assert {
    condition     = aws_dynamodb_table.tasks.point_in_time_recovery[0].enabled
    error_message = "point-in-time recovery must be on"
  }
  assert {
    condition     = aws_dynamodb_table.tasks.server_side_encryption[0].enabled
    error_message = "server-side encryption must be on"
  }
  assert {
    condition     = aws_dynamodb_table.tasks.deletion_protection_enabled
    error_message = "deletion protection is on by default"
  }

  # The queue, its dead-letter queue, partial batch failures.
  assert {
    condition     = keys(aws_sqs_queue.queue) == ["jobs"] && keys(aws_sqs_queue.dead_letter) == ["jobs"]
    error_message = "one job queue and its dead-letter queue by default"
  }
  assert {
    condition     = aws_sqs_queue.queue["jobs"].visibility_timeout_seconds >= 6 * aws_lambda_function.worker.timeout
    error_message = "visibility timeout must be at least 6x the worker's timeout"
  }
  assert {
    condition     = aws_sqs_queue.queue["jobs"].visibility_timeout_seconds == 1800
    error_message = "visibility timeout: 6 x 300 s"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue.queue["jobs"].redrive_policy).maxReceiveCount == 5
    error_message = "redrive maxReceiveCount defaults to 5"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue.queue["jobs"].redrive_policy).deadLetterTargetArn == aws_sqs_queue.dead_letter["jobs"].arn
    error_message = "the redrive policy must target the dead-letter queue"
  }
  assert {
    condition     = jsondecode(aws_sqs_queue_redrive_allow_policy.dead_letter["jobs"].redrive_allow_policy).redrivePermission == "byQueue"
    error_message = "only the job queue may redrive into its dead-letter queue"
  }
  assert {
    condition     = aws_sqs_queue.queue["jobs"].sqs_managed_sse_enabled && aws_sqs_queue.dead_letter["jobs"].sqs_managed_sse_enabled
    error_message = "queues are encrypted at rest"
  }
  assert {
    condition     = aws_sqs_queue.dead_letter["jobs"].visibility_timeout_seconds == 360
    error_message = "the dead-letter queue's visibility timeout suits its consumer (6 x 60 s)"
  }
  assert {
    condition     = length(aws_lambda_function.dead_letters) == 0 && length(aws_lambda_event_source_mapping.dead_letters) == 0
    error_message = "no dead-letter function unless a handler is given"
  }
  assert {
    condition     = aws_lambda_event_source_mapping.worker["jobs"].function_response_types == toset(["ReportBatchItemFailures"])
    error_message = "the worker reports batch item failures"
  }
  assert {
    condition     = aws_lambda_event_source_mapping.worker["jobs"].event_source_arn == aws_sqs_queue.queue["jobs"].arn
    error_message = "the worker is triggered by the job queue"
  }
  assert {
    condition     = aws_lambda_event_source_mapping.worker["jobs"].function_name == aws_lambda_function.worker.arn
    error_message = "the event source mapping invokes the worker"
  }

  # The settings the adapter reads.
  assert {
    condition     = aws_lambda_function.http.timeout == 29 && aws_lambda_function.worker.timeout == 300
    error_message = "default timeouts: HTTP 29 s (API Gateway stops at 30 s), worker 300 s"
  }
  assert {
    condition     = aws_lambda_function.http.environment[0].variables.A2A_LAMBDA_TIMEOUT_S == "29"
    error_message = "A2A_LAMBDA_TIMEOUT_S must be the HTTP function's own timeout"
  }
  assert {
    condition     = aws_lambda_function.worker.environment[0].variables.A2A_LAMBDA_TIMEOUT_S == "300"
    error_message = "A2A_LAMBDA_TIMEOUT_S must be the worker's own timeout"
  }
  assert {
    condition = alltrue([for f in [aws_lambda_function.http, aws_lambda_function.worker] : (
      f.environment[0].variables.A2A_SQS_MAX_RECEIVE_COUNT == "5" &&
      f.environment[0].variables.A2A_SQS_VISIBILITY_TIMEOUT_S == "1800" &&
      f.environment[0].variables.A2A_SQS_QUEUE_URL == aws_sqs_queue.queue["jobs"].url &&
      f.environment[0].variables.A2A_STORE_URL == "dynamodb://test-agent-tasks?content=s3://${aws_s3_bucket.content.id}"
    )])
    error_message = "every function gets the store URL, the queue URL, maxReceiveCount and the visibility timeout"
  }
  assert {
    condition     = tonumber(aws_lambda_function.worker.environment[0].variables.A2A_WORKER_LEASE_S) > aws_lambda_function.worker.timeout
    error_message = "the worker lease must outlive the worker's timeout"
  }
  assert {
    condition     = aws_lambda_function.http.environment[0].variables.A2A_STREAMING == "false"
    error_message = "behind API Gateway the card must say streaming false"
  }
  assert {
    condition     = !contains(keys(aws_lambda_function.worker.environment[0].variables), "A2A_PUSH_SIGNING_KEYS")
    error_message = "no signing keys unless a parameter or secret is given"
  }
  assert {
    condition     = length(data.aws_secretsmanager_secret.push_signing_keys) == 0
    error_message = "nothing is looked up for signing keys that are not given"
  }
  assert {
    condition = alltrue([for f in [aws_lambda_function.http, aws_lambda_function.worker] :
    f.environment[0].variables.A2A_AUTH_API_KEYS == "ssm:/test-agent/api-keys"])
    error_message = "callers need an API key by default, read from SSM at start-up"
  }
  assert {
    condition = alltrue([for key, p in aws_iam_role_policy.function : (
      jsonencode([for s in jsondecode(p.policy).Statement : s if s.Sid == "ReadApiKeys"]) == jsonencode([{
        Action   = ["ssm:GetParameter"]
        Effect   = "Allow"
        Resource = ["arn:aws:ssm:eu-west-1:123456789012:parameter/test-agent/api-keys"]
        Sid      = "ReadApiKeys"
      }])
    )])
    error_message = "every role may read that one parameter"
  }
  assert {
    condition     = aws_lambda_function.http.handler == "handler.handler" && aws_lambda_function.worker.handler == "worker.handler"
    error_message = "default handlers"
  }
  assert {
    condition     = aws_lambda_function.http.tracing_config[0].mode == "PassThrough"
    error_message = "X-Ray is off by default"
  }
  assert {
    condition     = length(aws_lambda_function.stream) == 0 && length(aws_lambda_function_url.stream) == 0
    error_message = "no streaming function unless asked"
  }
  assert {
    condition     = aws_lambda_function.http.logging_config[0].log_group == "/aws/lambda/test-agent-http"
    error_message = "the HTTP function logs to its own group"
  }

  # Least-privilege IAM.
  assert {
    condition     = keys(aws_iam_role.function) == ["http", "worker"]
    error_message = "one role per function"
  }
  # No statement of any role grants "*" or an action family.
  assert {
    condition = alltrue(flatten([for key, p in aws_iam_role_policy.function : [
      for s in jsondecode(p.policy).Statement : [
        alltrue([for r in s.Resource : r != "*"]),
        alltrue([for a in s.Action : !endswith(a, "*")]),
      ]
    ]]))
    error_message = "no wildcard resources or actions"
  }
  assert {
    condition = alltrue([for key, p in aws_iam_role_policy.function : (
      jsonencode([for s in jsondecode(p.policy).Statement : s.Resource if s.Sid == "TaskTable"]) ==
      jsonencode([[aws_dynamodb_table.tasks.arn, "${aws_dynamodb_table.tasks.arn}/index/*"]])
    )])
    error_message = "table access is scoped to the table and its indexes"
  }
  assert {
    condition = alltrue([for key, p in aws_iam_role_policy.function : (
      jsonencode([for s in jsondecode(p.policy).Statement : s.Resource if s.Sid == "EnqueueJobs"]) ==
      jsonencode([[aws_sqs_queue.queue["jobs"].arn]])
    )])
    error_message = "SendMessage is scoped to the job queue"
  }
  assert {
    condition = jsonencode([
      for s in jsondecode(aws_iam_role_policy.function["worker"].policy).Statement : s if s.Sid == "ConsumeJobs"
      ]) == jsonencode([{
        Action   = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"]
        Effect   = "Allow"
        Resource = [aws_sqs_queue.queue["jobs"].arn]
        Sid      = "ConsumeJobs"
    }])
    error_message = "the worker consumes the job queue and nothing else"
  }
  assert {
    condition     = length([for s in jsondecode(aws_iam_role_policy.function["http"].policy).Statement : s if s.Sid == "ConsumeJobs"]) == 0
    error_message = "the HTTP function must not consume the queue"
  }
  assert {
    condition = jsonencode(sort([
      for s in jsondecode(aws_iam_role_policy.function["http"].policy).Statement : s.Sid
    ])) == jsonencode(["ContentObjects", "EnqueueJobs", "ListContent", "Logs", "ReadApiKeys", "TaskTable"])
    error_message = "the HTTP function may use the table and the content bucket, send jobs, write its logs and read the API keys, nothing more"
  }
  assert {
    condition = alltrue([for s in jsondecode(aws_iam_role_policy.function["http"].policy).Statement : (
      s.Sid != "TaskTable" || (
        !contains(s.Action, "dynamodb:Scan") && !contains(s.Action, "dynamodb:DescribeTable") &&
        !contains(s.Action, "dynamodb:DeleteTable")
      )
    )])
    error_message = "the store never scans, describes or deletes the table"
  }
  assert {
    condition     = length(aws_iam_role_policy_attachment.xray) == 0
    error_message = "no X-Ray policy unless tracing is on"
  }

  # Logs, the API, outputs.
  assert {
    condition     = alltrue([for g in aws_cloudwatch_log_group.function : g.retention_in_days == 30])
    error_message = "function logs are kept 30 days by default"
  }
  assert {
    condition     = aws_cloudwatch_log_group.api.retention_in_days == 30
    error_message = "API access logs are kept 30 days by default"
  }
  assert {
    condition     = aws_apigatewayv2_stage.default.access_log_settings[0].destination_arn == aws_cloudwatch_log_group.api.arn
    error_message = "the API stage writes access logs"
  }
  assert {
    condition     = aws_apigatewayv2_integration.http.payload_format_version == "2.0" && aws_apigatewayv2_integration.http.integration_uri == aws_lambda_function.http.invoke_arn
    error_message = "the HTTP API proxies every request to the HTTP function (payload v2)"
  }
  assert {
    condition     = output.agent_url == "https://abc123.execute-api.eu-west-1.amazonaws.com/"
    error_message = "agent_url is the API's endpoint"
  }
  assert {
    condition     = output.table_name == "test-agent-tasks" && output.queue_url == aws_sqs_queue.queue["jobs"].url && output.dlq_url == aws_sqs_queue.dead_letter["jobs"].url
    error_message = "table and queue outputs"
  }
  assert {
    condition     = output.http_function_name == "test-agent-http" && output.worker_function_name == "test-agent-worker" && output.stream_function_name == null
    error_message = "function name outputs"
  }
  assert {
    condition     = output.stream_url == null && output.webhook_queue_url == null
    error_message = "no stream URL or webhook queue by default"
  }

  # The content bucket: private, encrypted, versioned; with no TTL nothing expires.
  assert {
    condition     = startswith(aws_s3_bucket.content.bucket_prefix, "test-agent-content-") && output.content_bucket == aws_s3_bucket.content.id
    error_message = "the content bucket, named after the deployment"
  }
  assert {
    condition = alltrue([
      aws_s3_bucket_public_access_block.content.block_public_acls,
      aws_s3_bucket_public_access_block.content.block_public_policy,
      aws_s3_bucket_public_access_block.content.ignore_public_acls,
      aws_s3_bucket_public_access_block.content.restrict_public_buckets,
    ])
    error_message = "public access to the content bucket is blocked"
  }
  assert {
    condition     = one(one(aws_s3_bucket_server_side_encryption_configuration.content.rule).apply_server_side_encryption_by_default).sse_algorithm == "AES256"
    error_message = "the content bucket is encrypted with SSE-S3 by default"
  }
  assert {
    condition     = [for r in aws_s3_bucket_lifecycle_configuration.content.rule : r.id] == ["noncurrent-versions"]
    error_message = "without finished_task_ttl_s no content expires (as no task does)"
  }
  assert {
    condition     = jsondecode(aws_s3_bucket_policy.content.policy).Statement[0].Condition.Bool["aws:SecureTransport"] == "false"
    error_message = "the content bucket refuses requests without TLS"
  }
  assert {
    condition = alltrue([for p in aws_iam_role_policy.function :
      jsonencode([for s in jsondecode(p.policy).Statement : s.Action if s.Sid == "ContentObjects"]) == jsonencode([["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:PutObjectTagging"]])
    ])
    error_message = "every function may read, write, tag and delete content objects, nothing more"
  }
}
