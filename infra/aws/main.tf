# Names, derived timings and the environment every function shares.

locals {
  table_name    = "${var.name}-tasks"
  http_function = "${var.name}-http"
  worker        = "${var.name}-worker"
  stream        = "${var.name}-stream"
  dead_letters  = "${var.name}-dead-letters"

  # The queues: "jobs" always, "webhooks" when webhook deliveries get a queue of their own.
  queue_names = var.webhook_queue ? ["jobs", "webhooks"] : ["jobs"]

  # AWS: a queue that triggers Lambda needs a visibility timeout of at least 6x the function's
  # timeout (plus the batching window), or a message comes back while its worker still runs.
  visibility_timeout_s = var.visibility_timeout_factor * var.worker_timeout + var.worker_batching_window_s
  # The same rule for the dead-letter queues, which the dead-letter function consumes.
  dlq_visibility_timeout_s = 6 * var.dead_letter_timeout

  # The lease must outlive the worker's timeout (a2a_serverless_aws.config checks it at init).
  worker_lease_s = coalesce(var.worker_lease_s, max(900, var.worker_timeout + 60))

  # The table, and the bucket for parts too large for its items (s3.tf).
  store_url = "dynamodb://${aws_dynamodb_table.tasks.name}?content=s3://${aws_s3_bucket.content.id}"

  queue_arns = [for q in local.queue_names : aws_sqs_queue.queue[q].arn]
  dlq_arns   = [for q in local.queue_names : aws_sqs_queue.dead_letter[q].arn]

  # What every function needs to reach the store and the queue(s), with the timing rules'
  # inputs. Each function adds A2A_LAMBDA_TIMEOUT_S (its own timeout) and its mode.
  # A2A_PUBLIC_URL: the HTTP API's URL, unless `environment` gives another (a custom domain):
  # the worker, which serves no request, addresses durable calls' callbacks to it.
  shared_environment = merge(
    { A2A_PUBLIC_URL = aws_apigatewayv2_api.http.api_endpoint },
    var.environment,
    {
      A2A_STORE_URL                = local.store_url
      A2A_SQS_QUEUE_URL            = aws_sqs_queue.queue["jobs"].url
      A2A_SQS_MAX_RECEIVE_COUNT    = tostring(var.max_receive_count)
      A2A_SQS_VISIBILITY_TIMEOUT_S = tostring(local.visibility_timeout_s)
      A2A_WORKER_LEASE_S           = tostring(local.worker_lease_s)
    },
    var.webhook_queue ? { A2A_SQS_WEBHOOK_QUEUE_URL = aws_sqs_queue.queue["webhooks"].url } : {},
    var.finished_task_ttl_s != null ? { A2A_FINISHED_TASK_TTL_S = tostring(var.finished_task_ttl_s) } : {},
    # A reference (secrets.tf): each function reads the keys at start-up.
    local.push_signing_keys != null ? { A2A_PUSH_SIGNING_KEYS = local.push_signing_keys.reference } : {},
    local.api_keys_parameter != null ? { A2A_AUTH_API_KEYS = "ssm:${local.api_keys_parameter}" } : {},
  )

  tracing_mode = var.xray_tracing ? "Active" : "PassThrough"

  # The core's defaults for the settings the adapter's timing rules compare with the timeouts,
  # unless `environment` overrides them: checked at plan time (the resources' preconditions)
  # rather than by a function refusing to start.
  timeout_margin_s   = tonumber(lookup(var.environment, "A2A_LAMBDA_TIMEOUT_MARGIN_S", "3"))
  blocking_timeout_s = tonumber(lookup(var.environment, "A2A_BLOCKING_TIMEOUT_S", "25"))
  push_timeout_s     = tonumber(lookup(var.environment, "A2A_PUSH_TIMEOUT_S", "10"))
}
