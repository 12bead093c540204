# The optional features: a webhook queue of its own, a customer managed key, signing keys read at
# start-up from SSM or Secrets Manager, X-Ray, timings derived from a longer worker timeout, and
# SnapStart.

mock_provider "aws" {
  source = "./tests/mocks"
}

variables {
  name        = "test-agent"
  package_zip = "tests/fixtures/package.zip"
}

run "webhook_queue" {
  command = apply

  variables {
    webhook_queue = true
  }

  assert {
    condition     = keys(aws_sqs_queue.queue) == ["jobs", "webhooks"] && keys(aws_sqs_queue.dead_letter) == ["jobs", "webhooks"]
    error_message = "a webhook queue with its own dead-letter queue"
  }
  assert {
    condition     = alltrue([for m in aws_lambda_event_source_mapping.worker : m.function_response_types == toset(["ReportBatchItemFailures"])])
    error_message = "both queues trigger the worker with batch item failures"
  }
  assert {
    condition     = keys(aws_lambda_event_source_mapping.worker) == ["jobs", "webhooks"]
    error_message = "one event source mapping per queue"
  }
  assert {
    condition     = aws_lambda_function.http.environment[0].variables.A2A_SQS_WEBHOOK_QUEUE_URL == aws_sqs_queue.queue["webhooks"].url
    error_message = "A2A_SQS_WEBHOOK_QUEUE_URL names the webhook queue"
  }
  assert {
    condition     = output.webhook_queue_url == aws_sqs_queue.queue["webhooks"].url && output.webhook_dlq_url == aws_sqs_queue.dead_letter["webhooks"].url
    error_message = "webhook queue outputs"
  }
  assert {
    condition = jsonencode([
      for s in jsondecode(aws_iam_role_policy.function["worker"].policy).Statement : s.Resource if s.Sid == "ConsumeJobs"
    ]) == jsonencode([[aws_sqs_queue.queue["jobs"].arn, aws_sqs_queue.queue["webhooks"].arn]])
    error_message = "the worker consumes both queues"
  }
}

run "customer_managed_key" {
  command = apply

  variables {
    kms_key_arn           = "arn:aws:kms:eu-west-1:123456789012:key/11111111-2222-3333-4444-555555555555"
    log_group_kms_key_arn = "arn:aws:kms:eu-west-1:123456789012:key/66666666-7777-8888-9999-000000000000"
  }

  assert {
    condition     = one(one(aws_s3_bucket_server_side_encryption_configuration.content.rule).apply_server_side_encryption_by_default).kms_master_key_id == var.kms_key_arn
    error_message = "the content bucket uses the customer managed key"
  }
  assert {
    condition     = aws_dynamodb_table.tasks.server_side_encryption[0].kms_key_arn == var.kms_key_arn
    error_message = "the table is encrypted with the key"
  }
  assert {
    condition     = alltrue([for q in concat(values(aws_sqs_queue.queue), values(aws_sqs_queue.dead_letter)) : q.kms_master_key_id == var.kms_key_arn])
    error_message = "the queues are encrypted with the key"
  }
  assert {
    condition     = aws_lambda_function.http.kms_key_arn == var.kms_key_arn && aws_lambda_function.worker.kms_key_arn == var.kms_key_arn
    error_message = "the environment variables are encrypted with the key"
  }
  assert {
    condition     = alltrue([for g in aws_cloudwatch_log_group.function : g.kms_key_id == var.log_group_kms_key_arn])
    error_message = "the log groups are encrypted with their key"
  }
  assert {
    condition = alltrue([for p in aws_iam_role_policy.function : (
      jsonencode([for s in jsondecode(p.policy).Statement : s.Resource if s.Sid == "UseDataKey"]) == jsonencode([[var.kms_key_arn]])
    )])
    error_message = "every role may use that key, and only that key"
  }
}

# The keys stay where they are: the functions get a reference and read it at start-up, and each
# role may read that one parameter or secret. Streaming and the dead-letter function are on, so
# all four functions (each builds a runtime) are checked.
run "signing_keys_from_ssm" {
  command = apply

  variables {
    push_signing_keys_ssm_parameter = "/agents/test-agent/push-signing-keys"
    streaming                       = true
    web_adapter_layer_arn           = "arn:aws:lambda:eu-west-1:753240598075:layer:LambdaAdapterLayerX86:25"
    dead_letter_handler             = "examples.aws_lambda.dead_letters"
  }

  assert {
    condition = alltrue([
      for f in [aws_lambda_function.http, aws_lambda_function.worker, aws_lambda_function.stream[0], aws_lambda_function.dead_letters[0]] :
      f.environment[0].variables.A2A_PUSH_SIGNING_KEYS == "ssm:/agents/test-agent/push-signing-keys"
    ])
    error_message = "every function gets the reference, not the keys (the worker signs, the HTTP and streaming functions publish the JWKS, the dead-letter function notifies)"
  }
  assert {
    condition     = keys(aws_iam_role_policy.function) == ["dead_letters", "http", "stream", "worker"]
    error_message = "four functions, four policies"
  }
  assert {
    condition = alltrue([for key, p in aws_iam_role_policy.function : (
      jsonencode([for s in jsondecode(p.policy).Statement : s if s.Sid == "ReadSigningKeys"]) == jsonencode([{
        Action   = ["ssm:GetParameter"]
        Effect   = "Allow"
        Resource = ["arn:aws:ssm:eu-west-1:123456789012:parameter/agents/test-agent/push-signing-keys"]
        Sid      = "ReadSigningKeys"
      }])
    )])
    error_message = "every role may ssm:GetParameter that one parameter (its ARN has a single / after parameter)"
  }
  assert {
    condition = alltrue(flatten([for key, p in aws_iam_role_policy.function : [
      for s in jsondecode(p.policy).Statement : [
        for a in s.Action : contains(["ReadSigningKeys", "ReadApiKeys"], s.Sid) || !(startswith(a, "ssm:") || startswith(a, "secretsmanager:") || startswith(a, "kms:"))
      ]
    ]]))
    error_message = "no other SSM, Secrets Manager or KMS action: the parameter uses the AWS managed key here"
  }
  assert {
    condition     = length(data.aws_secretsmanager_secret.push_signing_keys) == 0
    error_message = "Secrets Manager is not looked up"
  }
  # What makes the value land in the state or the configuration: a data source that reads it.
  assert {
    condition = alltrue([for f in fileset(path.module, "*.tf") : length(regexall(
      "data\\s+\"(aws_ssm_parameter|aws_ssm_parameters_by_path|aws_secretsmanager_secret_version|aws_secretsmanager_secrets)\"",
      file("${path.module}/${f}"),
    )) == 0])
    error_message = "the module must not read the keys' value (no aws_ssm_parameter or aws_secretsmanager_secret_version data source)"
  }
}

# A name without a leading "/", on a customer managed key of its own.
run "signing_keys_from_ssm_with_their_own_key" {
  command = apply

  variables {
    push_signing_keys_ssm_parameter = "test-agent-push-signing-keys"
    push_signing_keys_kms_key_arn   = "arn:aws:kms:eu-west-1:123456789012:key/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
  }

  assert {
    condition     = aws_lambda_function.http.environment[0].variables.A2A_PUSH_SIGNING_KEYS == "ssm:test-agent-push-signing-keys" && aws_lambda_function.worker.environment[0].variables.A2A_PUSH_SIGNING_KEYS == "ssm:test-agent-push-signing-keys"
    error_message = "the reference names the parameter as given"
  }
  assert {
    condition = alltrue([for key, p in aws_iam_role_policy.function : (
      jsonencode([for s in jsondecode(p.policy).Statement : s.Resource if s.Sid == "ReadSigningKeys"]) ==
      jsonencode([["arn:aws:ssm:eu-west-1:123456789012:parameter/test-agent-push-signing-keys"]])
    )])
    error_message = "a name without a leading / gets one in the ARN"
  }
  assert {
    condition = alltrue([for key, p in aws_iam_role_policy.function : (
      jsonencode([for s in jsondecode(p.policy).Statement : s if s.Sid == "DecryptSigningKeys"]) == jsonencode([{
        Action    = ["kms:Decrypt"]
        Condition = { StringEquals = { "kms:ViaService" = "ssm.eu-west-1.amazonaws.com" } }
        Effect    = "Allow"
        Resource  = [var.push_signing_keys_kms_key_arn]
        Sid       = "DecryptSigningKeys"
      }])
    )])
    error_message = "every role may decrypt with the parameter's key, through SSM only"
  }
  assert {
    condition     = alltrue([for p in aws_iam_role_policy.function : length([for s in jsondecode(p.policy).Statement : s if s.Sid == "UseDataKey"]) == 0])
    error_message = "the parameter's key is not kms_key_arn: the module's own key grant stays off"
  }
}

run "signing_keys_from_secrets_manager" {
  command = apply

  variables {
    push_signing_keys_secret_id = "agents/test-agent/push-signing-keys"
    public                      = true # no API keys from SSM either: nothing of SSM is looked up
    streaming                   = true
    web_adapter_layer_arn       = "arn:aws:lambda:eu-west-1:753240598075:layer:LambdaAdapterLayerX86:25"
    dead_letter_handler         = "examples.aws_lambda.dead_letters"
  }

  assert {
    condition = alltrue([
      for f in [aws_lambda_function.http, aws_lambda_function.worker, aws_lambda_function.stream[0], aws_lambda_function.dead_letters[0]] :
      f.environment[0].variables.A2A_PUSH_SIGNING_KEYS == "secretsmanager:agents/test-agent/push-signing-keys"
    ])
    error_message = "every function gets the reference to the secret"
  }
  assert {
    condition     = data.aws_secretsmanager_secret.push_signing_keys[0].name == "agents/test-agent/push-signing-keys" && data.aws_secretsmanager_secret.push_signing_keys[0].arn == "arn:aws:secretsmanager:eu-west-1:123456789012:secret:agents/test-agent/push-signing-keys-AbCdEf"
    error_message = "the secret's metadata is looked up by name"
  }
  assert {
    condition = alltrue([for key, p in aws_iam_role_policy.function : (
      jsonencode([for s in jsondecode(p.policy).Statement : s if s.Sid == "ReadSigningKeys"]) == jsonencode([{
        Action   = ["secretsmanager:GetSecretValue"]
        Effect   = "Allow"
        Resource = [data.aws_secretsmanager_secret.push_signing_keys[0].arn]
        Sid      = "ReadSigningKeys"
      }])
    )]) && length(aws_iam_role_policy.function) == 4
    error_message = "every role may secretsmanager:GetSecretValue that one secret, by its full ARN"
  }
  assert {
    condition     = length(data.aws_caller_identity.current) == 0 && length(data.aws_region.current) == 0
    error_message = "SSM's ARN is not built"
  }
}

run "signing_keys_from_a_secret_arn_with_their_own_key" {
  command = apply

  variables {
    push_signing_keys_secret_id   = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:agents/other-keys-XyZ123"
    push_signing_keys_kms_key_arn = "arn:aws:kms:eu-west-1:123456789012:key/aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
  }

  assert {
    condition     = data.aws_secretsmanager_secret.push_signing_keys[0].arn == var.push_signing_keys_secret_id
    error_message = "the secret's metadata is looked up by ARN"
  }
  assert {
    condition     = aws_lambda_function.worker.environment[0].variables.A2A_PUSH_SIGNING_KEYS == "secretsmanager:${var.push_signing_keys_secret_id}"
    error_message = "the reference carries the ARN"
  }
  assert {
    condition = jsonencode([
      for s in jsondecode(aws_iam_role_policy.function["worker"].policy).Statement : s if contains(["ReadSigningKeys", "DecryptSigningKeys"], s.Sid)
      ]) == jsonencode([
      {
        Action   = ["secretsmanager:GetSecretValue"]
        Effect   = "Allow"
        Resource = [var.push_signing_keys_secret_id]
        Sid      = "ReadSigningKeys"
      },
      {
        Action    = ["kms:Decrypt"]
        Condition = { StringEquals = { "kms:ViaService" = "secretsmanager.eu-west-1.amazonaws.com" } }
        Effect    = "Allow"
        Resource  = [var.push_signing_keys_kms_key_arn]
        Sid       = "DecryptSigningKeys"
      },
    ])
    error_message = "the role may read that secret and decrypt with its key, through Secrets Manager only"
  }
}

run "xray_tracing" {
  command = apply

  variables {
    xray_tracing = true
  }

  assert {
    condition     = aws_lambda_function.http.tracing_config[0].mode == "Active" && aws_lambda_function.worker.tracing_config[0].mode == "Active"
    error_message = "active tracing on the functions"
  }
  assert {
    condition     = alltrue([for a in aws_iam_role_policy_attachment.xray : a.policy_arn == "arn:aws:iam::aws:policy/AWSXRayDaemonWriteAccess"]) && length(aws_iam_role_policy_attachment.xray) == 2
    error_message = "each role may write traces"
  }
}

run "long_worker_timings" {
  command = apply

  variables {
    worker_timeout           = 900
    worker_batching_window_s = 20
    max_receive_count        = 3
    worker_max_concurrency   = 5
    finished_task_ttl_s      = 604800
    log_retention_days       = 90
    environment = {
      A2A_AUTH_API_KEYS = "test-key-0123456789abcdef"
    }
  }

  assert {
    condition     = aws_sqs_queue.queue["jobs"].visibility_timeout_seconds == 6 * 900 + 20
    error_message = "visibility = 6 x timeout + batching window"
  }
  assert {
    condition     = aws_lambda_function.worker.environment[0].variables.A2A_WORKER_LEASE_S == "960"
    error_message = "the lease outlives a 900 s worker"
  }
  assert {
    condition     = aws_lambda_function.worker.environment[0].variables.A2A_SQS_MAX_RECEIVE_COUNT == "3" && jsondecode(aws_sqs_queue.queue["jobs"].redrive_policy).maxReceiveCount == 3
    error_message = "maxReceiveCount reaches both the redrive policy and the functions"
  }
  assert {
    condition     = aws_lambda_event_source_mapping.worker["jobs"].scaling_config[0].maximum_concurrency == 5 && aws_lambda_event_source_mapping.worker["jobs"].maximum_batching_window_in_seconds == 20
    error_message = "worker concurrency cap and batching window"
  }
  assert {
    condition     = aws_lambda_function.http.environment[0].variables.A2A_FINISHED_TASK_TTL_S == "604800"
    error_message = "finished tasks expire (the table's TTL deletes them)"
  }
  assert {
    condition = one([
      for r in aws_s3_bucket_lifecycle_configuration.content.rule : one(r.expiration).days if r.id == "finished-task-content"
    ]) == 8
    error_message = "a finished task's content expires a day after its 7-day TTL"
  }
  assert {
    condition     = aws_lambda_function.worker.environment[0].variables.A2A_AUTH_API_KEYS == "test-key-0123456789abcdef"
    error_message = "extra environment reaches the functions"
  }
  assert {
    condition     = alltrue([for g in aws_cloudwatch_log_group.function : g.retention_in_days == 90])
    error_message = "log retention follows the variable"
  }
}

run "dead_letter_function" {
  command = apply

  variables {
    dead_letter_handler = "examples.aws_lambda.dead_letters"
    dead_letter_timeout = 30
    webhook_queue       = true
  }

  assert {
    condition     = aws_lambda_function.dead_letters[0].handler == "examples.aws_lambda.dead_letters" && aws_lambda_function.dead_letters[0].function_name == "test-agent-dead-letters"
    error_message = "the dead-letter function runs the given handler"
  }
  assert {
    condition     = keys(aws_lambda_event_source_mapping.dead_letters) == ["jobs", "webhooks"]
    error_message = "every dead-letter queue triggers it"
  }
  assert {
    condition = alltrue([for q, m in aws_lambda_event_source_mapping.dead_letters : (
      m.event_source_arn == aws_sqs_queue.dead_letter[q].arn &&
      m.function_response_types == toset(["ReportBatchItemFailures"])
    )])
    error_message = "it consumes the dead-letter queues, reporting batch item failures"
  }
  assert {
    condition     = alltrue([for q in aws_sqs_queue.dead_letter : q.visibility_timeout_seconds >= 6 * aws_lambda_function.dead_letters[0].timeout])
    error_message = "the dead-letter queues' visibility timeout is 6x the function's timeout"
  }
  assert {
    condition = alltrue([
      aws_lambda_function.dead_letters[0].environment[0].variables.A2A_LAMBDA_TIMEOUT_S == "30",
      aws_lambda_function.dead_letters[0].environment[0].variables.A2A_SQS_VISIBILITY_TIMEOUT_S == "180",
      aws_lambda_function.dead_letters[0].environment[0].variables.A2A_STORE_URL == aws_lambda_function.worker.environment[0].variables.A2A_STORE_URL,
    ])
    error_message = "the dead-letter function knows its own timeout and its queues' visibility timeout"
  }
  assert {
    condition = jsonencode([
      for s in jsondecode(aws_iam_role_policy.function["dead_letters"].policy).Statement : s.Resource if s.Sid == "ConsumeJobs"
    ]) == jsonencode([[aws_sqs_queue.dead_letter["jobs"].arn, aws_sqs_queue.dead_letter["webhooks"].arn]])
    error_message = "it consumes the dead-letter queues and nothing else"
  }
  assert {
    condition = jsonencode([
      for s in jsondecode(aws_iam_role_policy.function["worker"].policy).Statement : s.Resource if s.Sid == "ConsumeJobs"
    ]) == jsonencode([[aws_sqs_queue.queue["jobs"].arn, aws_sqs_queue.queue["webhooks"].arn]])
    error_message = "the worker does not consume the dead-letter queues"
  }
  assert {
    condition     = output.dead_letter_function_name == "test-agent-dead-letters"
    error_message = "dead-letter function output"
  }
}

run "snap_start" {
  command = apply

  variables {
    snap_start = true
  }

  assert {
    condition = alltrue([
      for f in [aws_lambda_function.http, aws_lambda_function.worker] :
      f.publish && f.snap_start[0].apply_on == "PublishedVersions"
    ])
    error_message = "http and worker publish versions that SnapStart snapshots"
  }
  assert {
    condition     = length(aws_lambda_alias.snap_start) == 2 && alltrue([for a in aws_lambda_alias.snap_start : a.name == "snapstart"])
    error_message = "an alias per function, on the published version"
  }
  assert {
    condition     = aws_apigatewayv2_integration.http.integration_uri == aws_lambda_alias.snap_start["http"].invoke_arn && aws_lambda_permission.api.qualifier == "snapstart"
    error_message = "the API invokes (and may invoke) the alias, not $LATEST"
  }
  assert {
    condition     = alltrue([for m in aws_lambda_event_source_mapping.worker : m.function_name == aws_lambda_alias.snap_start["worker"].arn])
    error_message = "the SQS trigger invokes the worker's alias"
  }
}
