# --- the agent and its code -------------------------------------------------------------------

variable "name" {
  description = "Name of the agent's deployment: prefix of every resource (functions, queues, table, roles)."
  type        = string

  validation {
    # Lambda names are at most 64 characters and the longest suffix here is "-stream".
    condition     = can(regex("^[a-zA-Z][a-zA-Z0-9-]{1,39}$", var.name))
    error_message = "name must be 2-40 letters, digits and '-', starting with a letter."
  }
}

variable "package_zip" {
  description = "Path of the Lambda zip (the packaging command's output): the agent module, a2a-serverless and a2a-serverless-aws with their dependencies, and run.sh when streaming is on."
  type        = string
}

variable "http_handler" {
  description = "Handler of the HTTP function (API Gateway + Mangum): module.attribute of make_http_handler(agent)."
  type        = string
  default     = "handler.handler"
}

variable "worker_handler" {
  description = "Handler of the SQS worker function: module.attribute of make_worker_handler(agent)."
  type        = string
  default     = "worker.handler"
}

variable "runtime" {
  description = "Lambda runtime; must match the Python the package was built for."
  type        = string
  default     = "python3.12"
}

variable "snap_start" {
  description = "Lambda SnapStart for the http and worker functions: each apply that changes them publishes a version, which Lambda initialises once and snapshots; a `snapstart` alias points at it and the API and the SQS trigger invoke the alias. Needs a python3.12+ runtime. Costs a charge per snapshot cached and per restore (see adapters/aws/README.md, \"SnapStart\")."
  type        = bool
  default     = false

  validation {
    condition     = !var.snap_start || can(regex("^python3\\.(1[2-9]|[2-9][0-9])$", var.runtime))
    error_message = "snap_start needs a python3.12 or later runtime (Lambda SnapStart for Python starts at 3.12)."
  }
}

variable "architecture" {
  description = "Lambda architecture; must match the wheels in the package (x86_64 for manylinux x86_64 wheels)."
  type        = string
  default     = "x86_64"

  validation {
    condition     = contains(["x86_64", "arm64"], var.architecture)
    error_message = "architecture must be x86_64 or arm64."
  }
}

variable "environment" {
  description = "Extra environment variables for every function (A2A_AUTH_*, A2A_PUBLIC_URL, A2A_PUSH_ALLOWED_DOMAINS, A2A_TRACING, ...). The variables this module sets itself cannot be overridden here."
  type        = map(string)
  default     = {}

  validation {
    condition = length(setintersection(keys(var.environment), [
      "A2A_STORE_URL", "A2A_SQS_QUEUE_URL", "A2A_SQS_WEBHOOK_QUEUE_URL", "A2A_SQS_MAX_RECEIVE_COUNT",
      "A2A_SQS_VISIBILITY_TIMEOUT_S", "A2A_LAMBDA_TIMEOUT_S", "A2A_WORKER_LEASE_S",
      "A2A_PUSH_SIGNING_KEYS", "A2A_STREAMING", "A2A_FINISHED_TASK_TTL_S",
      "AWS_LAMBDA_EXEC_WRAPPER", "AWS_LWA_INVOKE_MODE", "AWS_LWA_PORT", "AWS_LWA_READINESS_CHECK_PATH",
    ])) == 0
    error_message = "environment must not set the variables the module derives from its own inputs (see the README)."
  }
}

# --- HTTP function (API Gateway HTTP API) -----------------------------------------------------

variable "http_timeout" {
  description = "Timeout of the HTTP function, seconds. API Gateway answers 503 after 30 s, and a blocking message/send waits A2A_BLOCKING_TIMEOUT_S (25) plus A2A_LAMBDA_TIMEOUT_MARGIN_S (3)."
  type        = number
  default     = 29

  validation {
    condition     = var.http_timeout >= 3 && var.http_timeout <= 30
    error_message = "http_timeout must be 3-30 seconds (API Gateway's integration limit is 30 s)."
  }
}

variable "http_memory" {
  description = "Memory of the HTTP function, MB (CPU grows with it: it shortens cold starts)."
  type        = number
  default     = 512
}

variable "api_throttling_burst_limit" {
  description = "API Gateway stage throttling: burst of requests."
  type        = number
  default     = 100
}

variable "api_throttling_rate_limit" {
  description = "API Gateway stage throttling: steady requests per second."
  type        = number
  default     = 50
}

# --- worker function and its queue ------------------------------------------------------------

variable "worker_timeout" {
  description = "Timeout of the worker function, seconds: an agent turn may run this long minus A2A_LAMBDA_TIMEOUT_MARGIN_S (3 s)."
  type        = number
  default     = 300

  validation {
    condition     = var.worker_timeout >= 10 && var.worker_timeout <= 900
    error_message = "worker_timeout must be 10-900 seconds."
  }
}

variable "worker_memory" {
  description = "Memory of the worker function, MB."
  type        = number
  default     = 512
}

variable "worker_lease_s" {
  description = "A2A_WORKER_LEASE_S for every function: how long a turn's claim lasts without a write. Must exceed worker_timeout (the adapter refuses to start otherwise). Default: the core's 900 s, or worker_timeout + 60 when that is longer."
  type        = number
  default     = null

  validation {
    condition     = var.worker_lease_s == null || try(var.worker_lease_s > var.worker_timeout, false)
    error_message = "worker_lease_s must be longer than worker_timeout: otherwise a second delivery of a job can take over a turn that is still running."
  }
}

variable "worker_batch_size" {
  description = "SQS messages per worker invocation (they run concurrently; failures are reported per message)."
  type        = number
  default     = 10

  validation {
    condition     = var.worker_batch_size >= 1 && var.worker_batch_size <= 10000
    error_message = "worker_batch_size must be 1-10000."
  }
}

variable "worker_batching_window_s" {
  description = "Seconds the event source mapping may wait to fill a batch (0: invoke at once). Added to the visibility timeout, as AWS recommends."
  type        = number
  default     = 0

  validation {
    condition     = var.worker_batching_window_s >= 0 && var.worker_batching_window_s <= 300
    error_message = "worker_batching_window_s must be 0-300."
  }
}

variable "worker_max_concurrency" {
  description = "Most concurrent worker invocations per queue (event source mapping scaling_config, 2-1000); null: no cap beyond the account's."
  type        = number
  default     = null

  validation {
    condition     = var.worker_max_concurrency == null || try(var.worker_max_concurrency >= 2 && var.worker_max_concurrency <= 1000, false)
    error_message = "worker_max_concurrency must be 2-1000 (or null)."
  }
}

variable "max_receive_count" {
  description = "Redrive policy maxReceiveCount: on that delivery a failing job is abandoned (its task failed with a reason) and SQS moves it to the dead-letter queue. Passed to the functions as A2A_SQS_MAX_RECEIVE_COUNT."
  type        = number
  default     = 5

  validation {
    condition     = var.max_receive_count >= 1 && var.max_receive_count <= 1000
    error_message = "max_receive_count must be 1-1000."
  }
}

variable "visibility_timeout_factor" {
  description = "Queue visibility timeout = factor x worker_timeout + worker_batching_window_s. AWS recommends at least 6 for queues that trigger Lambda."
  type        = number
  default     = 6

  validation {
    condition     = var.visibility_timeout_factor >= 6
    error_message = "visibility_timeout_factor must be at least 6 (AWS's recommendation for Lambda event sources)."
  }
}

variable "message_retention_s" {
  description = "How long the job queue keeps a message, seconds."
  type        = number
  default     = 345600
}

variable "dlq_retention_s" {
  description = "How long the dead-letter queue keeps a message, seconds (the maximum: 14 days)."
  type        = number
  default     = 1209600
}

variable "webhook_queue" {
  description = "Give webhook deliveries a queue (and dead-letter queue) of their own, so a backlog of slow receivers never delays agent turns. Both queues trigger the same worker."
  type        = bool
  default     = false
}

variable "dead_letter_handler" {
  description = "Handler of a function triggered by the dead-letter queue(s): module.attribute of make_dead_letter_handler(agent). It fails the task of every job that reaches them, also jobs whose worker crashed or timed out on every delivery (which never got to do it themselves). null: no such function; such tasks then stay `working` until someone acts."
  type        = string
  default     = null
}

variable "dead_letter_timeout" {
  description = "Timeout of the dead-letter function, seconds (the dead-letter queues' visibility timeout is 6x this)."
  type        = number
  default     = 60

  validation {
    condition     = var.dead_letter_timeout >= 10 && var.dead_letter_timeout <= 300
    error_message = "dead_letter_timeout must be 10-300 seconds."
  }
}

variable "dead_letter_memory" {
  description = "Memory of the dead-letter function, MB."
  type        = number
  default     = 256
}

# --- streaming function (function URL, Lambda Web Adapter) ------------------------------------

variable "streaming" {
  description = "Also deploy a streaming function: a function URL in RESPONSE_STREAM mode running the app under uvicorn behind the Lambda Web Adapter (live SSE)."
  type        = bool
  default     = false
}

variable "web_adapter_layer_arn" {
  description = "ARN of the AWS Lambda Web Adapter layer for the region and architecture (e.g. arn:aws:lambda:<region>:753240598075:layer:LambdaAdapterLayerX86:<version>). Required with streaming."
  type        = string
  default     = null

  validation {
    condition     = !var.streaming || var.web_adapter_layer_arn != null
    error_message = "streaming needs web_adapter_layer_arn (the Lambda Web Adapter layer)."
  }
}

variable "stream_handler" {
  description = "Handler of the streaming function: the executable script in the package that starts the server (exec python -m a2a_serverless_aws.web_adapter module:agent)."
  type        = string
  default     = "run.sh"
}

variable "stream_timeout" {
  description = "Timeout of the streaming function, seconds: a live stream ends this long minus the margin after it starts, and the client resubscribes."
  type        = number
  default     = 300

  validation {
    condition     = var.stream_timeout >= 30 && var.stream_timeout <= 900
    error_message = "stream_timeout must be 30-900 seconds."
  }
}

variable "stream_memory" {
  description = "Memory of the streaming function, MB."
  type        = number
  default     = 512
}

# --- store --------------------------------------------------------------------------------------

variable "finished_task_ttl_s" {
  description = "A2A_FINISHED_TASK_TTL_S: keep finished tasks this long, then DynamoDB's TTL deletes them. null keeps them forever."
  type        = number
  default     = null
}

variable "table_deletion_protection" {
  description = "DynamoDB deletion protection on the task table."
  type        = bool
  default     = true
}

# --- push notification signing keys -----------------------------------------------------------

# --- who may call the agent ---------------------------------------------------------------------

variable "api_keys_ssm_parameter" {
  description = "Name of an SSM Parameter Store SecureString holding the API keys callers must send (A2A_AUTH_API_KEYS: \"KEY=SUBJECT,...\"; docs/security.md). null: \"/<name>/api-keys\". The functions get A2A_AUTH_API_KEYS=ssm:<name> and read it at start-up (a function whose parameter is missing does not start); their roles may ssm:GetParameter it. Not used when `public`, or when `environment` sets the agent's own A2A_AUTH_* settings."
  type        = string
  default     = null

  validation {
    condition     = var.api_keys_ssm_parameter == null || can(regex("^[a-zA-Z0-9_./-]+$", var.api_keys_ssm_parameter))
    error_message = "api_keys_ssm_parameter must be a parameter name (letters, digits, _ . - /), not an ARN or a version selector."
  }
}

variable "public" {
  description = "Deploy an agent ANYONE can call, without API keys: an explicit choice. false (the default): callers need the API keys of api_keys_ssm_parameter, or whatever the A2A_AUTH_* settings given in `environment` require."
  type        = bool
  default     = false
}

variable "push_signing_keys_ssm_parameter" {
  description = "Name of an SSM Parameter Store SecureString holding the JWK set (`a2a-serverless keys generate`), with or without a leading \"/\", in the deployment's region and account. The functions get A2A_PUSH_SIGNING_KEYS=ssm:<name> and read it at start-up; their roles may ssm:GetParameter it. Terraform never reads the value."
  type        = string
  default     = null

  validation {
    # The name goes into the grant's ARN: an ARN or a version selector (name:3) here would not.
    condition     = var.push_signing_keys_ssm_parameter == null || can(regex("^[a-zA-Z0-9_./-]+$", var.push_signing_keys_ssm_parameter))
    error_message = "push_signing_keys_ssm_parameter must be a parameter name (letters, digits, _ . - /), not an ARN or a version selector."
  }
}

variable "push_signing_keys_secret_id" {
  description = "Name or ARN of a Secrets Manager secret holding the JWK set, as an alternative to push_signing_keys_ssm_parameter. The functions get A2A_PUSH_SIGNING_KEYS=secretsmanager:<this> and read it at start-up; their roles may secretsmanager:GetSecretValue that secret (its ARN looked up with aws_secretsmanager_secret, which does not read the value)."
  type        = string
  default     = null

  validation {
    condition     = var.push_signing_keys_secret_id == null || var.push_signing_keys_ssm_parameter == null
    error_message = "Give the signing keys from SSM or from Secrets Manager, not both."
  }
}

variable "push_signing_keys_kms_key_arn" {
  description = "ARN of the customer managed KMS key that encrypts the signing keys' parameter or secret: every role may kms:Decrypt with it through SSM or Secrets Manager. null: the AWS managed key (aws/ssm, aws/secretsmanager), which needs no grant, or the parameter uses kms_key_arn, which every role may already use."
  type        = string
  default     = null

  validation {
    condition     = var.push_signing_keys_kms_key_arn == null || can(regex("^arn:[^:]+:kms:[^:]+:[0-9]{12}:key/.+$", var.push_signing_keys_kms_key_arn))
    error_message = "push_signing_keys_kms_key_arn must be a key ARN (arn:<partition>:kms:<region>:<account>:key/<id>): IAM grants on an alias do not authorise Decrypt."
  }
  validation {
    condition     = var.push_signing_keys_kms_key_arn == null || var.push_signing_keys_ssm_parameter != null || var.push_signing_keys_secret_id != null
    error_message = "push_signing_keys_kms_key_arn is the key of the signing keys' parameter or secret: give push_signing_keys_ssm_parameter or push_signing_keys_secret_id too."
  }
}

# --- encryption, logs, tracing ------------------------------------------------------------------

variable "kms_key_arn" {
  description = "Customer managed KMS key for the table, the queues and the functions' environment variables. null: AWS managed encryption. The key policy must let the account's IAM policies grant its use. Every role may use it, so a signing keys' parameter or secret encrypted with it needs no push_signing_keys_kms_key_arn."
  type        = string
  default     = null
}

variable "log_group_kms_key_arn" {
  description = "Customer managed KMS key for the CloudWatch log groups (its policy must allow logs.<region>.amazonaws.com). null: CloudWatch's own encryption."
  type        = string
  default     = null
}

variable "log_retention_days" {
  description = "Retention of the functions' and the API's log groups, days."
  type        = number
  default     = 30

  validation {
    condition     = contains([1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653], var.log_retention_days)
    error_message = "log_retention_days must be a retention CloudWatch Logs accepts (1, 3, 5, 7, 14, 30, 60, 90, ... 3653)."
  }
}

variable "xray_tracing" {
  description = "Active X-Ray tracing on the functions (the Lambda service's segments). Subsegments for DynamoDB and SQS calls also need A2A_TRACING=true in environment and the X-Ray SDK in the package."
  type        = bool
  default     = false
}

variable "tags" {
  description = "Tags for every resource that takes them."
  type        = map(string)
  default     = {}
}
