# --- where and what --------------------------------------------------------------------------

variable "project_id" {
  description = "Google Cloud project to deploy into."
  type        = string
}

variable "region" {
  description = "Region of the functions, the Cloud Tasks queue and the source bucket (e.g. europe-west1)."
  type        = string
}

variable "name" {
  description = "Name of the agent's deployment: prefix of the functions, service accounts, topics and queue."
  type        = string

  validation {
    # Service account ids are 6-30 characters; the longest suffix here is "-invoker".
    condition     = can(regex("^[a-z][a-z0-9-]{2,18}[a-z0-9]$", var.name))
    error_message = "name must be 4-20 lowercase letters, digits and '-', starting with a letter and not ending with '-'."
  }
}

variable "source_zip" {
  description = "Path of the source bundle (the packaging command's GCP output: main.py, requirements.txt, the agent module)."
  type        = string
}

variable "http_entry_point" {
  description = "functions-framework target of the HTTP function (the name given to make_http_handler)."
  type        = string
  default     = "a2a"
}

variable "worker_entry_point" {
  description = "functions-framework target of the worker function (the name given to make_worker_handler)."
  type        = string
  default     = "worker"
}

variable "runtime" {
  description = "Cloud Functions runtime."
  type        = string
  default     = "python312"
}

variable "environment" {
  description = "Extra environment variables for both functions (A2A_AUTH_*, A2A_PUBLIC_URL, A2A_PUSH_ALLOWED_DOMAINS, ...). The variables this module derives cannot be overridden here."
  type        = map(string)
  default     = {}

  validation {
    condition = length(setintersection(keys(var.environment), [
      "A2A_STORE_URL", "A2A_GCP_PROJECT", "A2A_PUBSUB_TOPIC", "A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS",
      "A2A_CLOUD_TASKS_QUEUE", "A2A_CLOUD_TASKS_URL", "A2A_CLOUD_TASKS_SERVICE_ACCOUNT",
      "A2A_CLOUD_TASKS_AUDIENCE", "A2A_CLOUD_TASKS_MAX_ATTEMPTS", "A2A_WORKER_AUTH",
      "A2A_WORKER_OIDC_AUDIENCE", "A2A_WORKER_OIDC_EMAILS", "A2A_PUSH_SIGNING_KEYS",
      "A2A_STREAM_TIMEOUT_S", "A2A_FINISHED_TASK_TTL_S", "A2A_WORKER_LEASE_S",
    ])) == 0
    error_message = "environment must not set the variables the module derives from its own inputs (see the README)."
  }
}

variable "enable_apis" {
  description = "Enable the Google APIs the deployment uses (never disabled on destroy)."
  type        = bool
  default     = true
}

# --- HTTP function -----------------------------------------------------------------------------

variable "http_timeout" {
  description = "Request timeout of the HTTP function, seconds: an SSE stream stays open at most this long."
  type        = number
  default     = 360

  validation {
    condition     = var.http_timeout >= 60 && var.http_timeout <= 3600
    error_message = "http_timeout must be 60-3600 seconds."
  }
}

variable "stream_timeout_s" {
  description = "A2A_STREAM_TIMEOUT_S: how long one SSE response stays open before the client resubscribes. Below http_timeout."
  type        = number
  default     = 300

  validation {
    condition     = var.stream_timeout_s > 0 && var.stream_timeout_s < var.http_timeout
    error_message = "stream_timeout_s must be positive and below http_timeout, or the platform cuts streams mid-event."
  }
}

variable "http_memory" {
  description = "Memory of the HTTP function."
  type        = string
  default     = "512Mi"
}

variable "http_concurrency" {
  description = "Concurrent requests per HTTP function instance (the app is asynchronous; SSE streams mostly wait)."
  type        = number
  default     = 80
}

variable "http_max_instances" {
  description = "Most HTTP function instances."
  type        = number
  default     = 20
}

variable "http_min_instances" {
  description = "HTTP function instances kept warm, so the first request after a quiet spell meets no cold start. Each one is billed all the time at Cloud Run's idle rates (about $10 a month for 1 vCPU and 512 MiB in a tier 1 region; see the README's \"Cold starts\"). 0 scales to zero."
  type        = number
  default     = 0

  validation {
    condition     = var.http_min_instances >= 0 && var.http_min_instances <= var.http_max_instances
    error_message = "http_min_instances must be between 0 and http_max_instances."
  }
}

variable "public" {
  description = "Let ANYONE reach the HTTP function (roles/run.invoker for allUsers): the agent authenticates callers itself (A2A_AUTH_*) or is open to all. An explicit choice: false (the default) lets in only `invokers`, with Google ID tokens checked by Cloud Run."
  type        = bool
  default     = false
}

variable "invokers" {
  description = "With public = false: the IAM principals granted roles/run.invoker on the HTTP function, e.g. [\"serviceAccount:caller@p.iam.gserviceaccount.com\", \"group:agents@example.com\"]."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for m in var.invokers : can(regex("^(user|serviceAccount|group|domain|principal|principalSet):", m))])
    error_message = "invokers are IAM principals such as serviceAccount:..., user:..., group:... (allUsers is what public = true grants)."
  }
}

# --- worker function and its queues ------------------------------------------------------------

variable "worker_timeout" {
  description = "Request timeout of the worker function, seconds: a turn runs at most this long. Pub/Sub push waits at most 600 s for an answer, Cloud Tasks 10 min by default."
  type        = number
  default     = 540

  validation {
    condition     = var.worker_timeout >= 10 && var.worker_timeout <= 600
    error_message = "worker_timeout must be 10-600 seconds (Pub/Sub's longest ack deadline)."
  }
}

variable "worker_lease_s" {
  description = "A2A_WORKER_LEASE_S: how long a turn's claim lasts without a write; a turn whose worker died is taken over by a redelivery after it. Longer than worker_timeout; default worker_timeout + 60."
  type        = number
  default     = null

  validation {
    condition     = var.worker_lease_s == null || try(var.worker_lease_s > var.worker_timeout, false)
    error_message = "worker_lease_s must be longer than worker_timeout: otherwise a redelivery can take over a turn that is still running."
  }
}

variable "worker_memory" {
  description = "Memory of the worker function."
  type        = string
  default     = "512Mi"
}

variable "worker_concurrency" {
  description = "Concurrent jobs per worker instance."
  type        = number
  default     = 8
}

variable "worker_max_instances" {
  description = "Most worker instances."
  type        = number
  default     = 20
}

variable "worker_min_instances" {
  description = "Worker instances kept warm (billed all the time like http_min_instances). Jobs tolerate a cold start better than callers do: 0 is usually right."
  type        = number
  default     = 0

  validation {
    condition     = var.worker_min_instances >= 0 && var.worker_min_instances <= var.worker_max_instances
    error_message = "worker_min_instances must be between 0 and worker_max_instances."
  }
}

variable "startup_cpu_boost" {
  description = "Startup CPU boost on both functions' Cloud Run services: more CPU while an instance starts (imports, priming) and for 10 s after. Billed as ordinary CPU time for those seconds. The functions API has no such setting, so the module runs `gcloud run services update --cpu-boost` after every change of a function: gcloud must be installed and authenticated where Terraform runs."
  type        = bool
  default     = false
}

variable "worker_ingress" {
  description = "Ingress of the worker. ALLOW_INTERNAL_ONLY admits Pub/Sub push and Cloud Tasks requests of the same project on the run.app URL, and nothing from the internet."
  type        = string
  default     = "ALLOW_INTERNAL_ONLY"

  validation {
    condition     = contains(["ALLOW_ALL", "ALLOW_INTERNAL_ONLY", "ALLOW_INTERNAL_AND_GCLB"], var.worker_ingress)
    error_message = "worker_ingress must be ALLOW_ALL, ALLOW_INTERNAL_ONLY or ALLOW_INTERNAL_AND_GCLB."
  }
}

variable "max_delivery_attempts" {
  description = "Pub/Sub dead-letter policy: deliveries of a job before it goes to the dead-letter topic (A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS; the last one abandons the job, failing its task with a reason)."
  type        = number
  default     = 5

  validation {
    condition     = var.max_delivery_attempts >= 5 && var.max_delivery_attempts <= 100
    error_message = "max_delivery_attempts must be 5-100 (Pub/Sub's limits)."
  }
}

variable "pubsub_min_backoff" {
  description = "Pub/Sub retry policy: shortest wait before a nacked job comes back. The waits (roughly doubling) over max_delivery_attempts should outlast A2A_WORKER_LEASE_S, so a turn still held by a live or dead worker is retried after its lease rather than dead-lettered (a plan-time check warns otherwise)."
  type        = string
  default     = "60s"

  validation {
    condition     = can(regex("^[0-9]+s$", var.pubsub_min_backoff))
    error_message = "pubsub_min_backoff is a duration in seconds, such as \"60s\"."
  }
}

variable "pubsub_max_backoff" {
  description = "Pub/Sub retry policy: longest wait (at most 600s)."
  type        = string
  default     = "600s"

  validation {
    condition     = can(regex("^[0-9]+s$", var.pubsub_max_backoff))
    error_message = "pubsub_max_backoff is a duration in seconds, such as \"600s\"."
  }
}

variable "cloud_tasks" {
  description = "Use a Cloud Tasks queue for webhook deliveries and delayed jobs (per-task schedule times, which Pub/Sub lacks). Without it everything goes through Pub/Sub and delays are approximated by nacks."
  type        = bool
  default     = true
}

variable "cloud_tasks_max_attempts" {
  description = "Cloud Tasks retry_config.max_attempts (A2A_CLOUD_TASKS_MAX_ATTEMPTS; the last attempt abandons the job)."
  type        = number
  default     = 10
}

variable "cloud_tasks_min_backoff" {
  description = "Cloud Tasks retry back-off, shortest."
  type        = string
  default     = "5s"
}

variable "cloud_tasks_max_backoff" {
  description = "Cloud Tasks retry back-off, longest."
  type        = string
  default     = "600s"
}

variable "cloud_tasks_max_dispatches_per_second" {
  description = "Cloud Tasks rate limit: webhook requests per second."
  type        = number
  default     = 50
}

# --- store ------------------------------------------------------------------------------------

variable "create_database" {
  description = "Create the Firestore database. False: use an existing Native mode database named firestore_database."
  type        = bool
  default     = true
}

variable "firestore_database" {
  description = "Firestore database id. Default: the deployment's name (a database per agent); \"(default)\" uses the project's default database."
  type        = string
  default     = null
}

variable "firestore_location" {
  description = "Firestore location (a region such as europe-west1, or a multi-region such as eur3). Default: region."
  type        = string
  default     = null
}

variable "collection_prefix" {
  description = "Prefix of the store's collections (the store URL's ?prefix=): <prefix>_tasks, <prefix>_events, ..."
  type        = string
  default     = "a2a"

  validation {
    condition     = can(regex("^[A-Za-z0-9_-]+$", var.collection_prefix))
    error_message = "collection_prefix must be letters, digits, '_' and '-'."
  }
}

variable "database_deletion_protection" {
  description = "Firestore delete protection on the database this module creates."
  type        = bool
  default     = true
}

variable "finished_task_ttl_s" {
  description = "A2A_FINISHED_TASK_TTL_S: keep finished tasks this long, then Firestore's TTL policy deletes them. null keeps them forever."
  type        = number
  default     = null
}

# --- secrets, encryption ----------------------------------------------------------------------

variable "push_signing_keys_secret" {
  description = "Secret Manager secret id holding the webhook signing keys (`a2a-serverless keys generate`), created and filled outside Terraform so the keys never enter its state. Read at instance start into A2A_PUSH_SIGNING_KEYS. null: no push notifications."
  type        = string
  default     = null
}

variable "push_signing_keys_version" {
  description = "Version of the signing keys secret (\"latest\": new instances pick up a rotation)."
  type        = string
  default     = "latest"
}

variable "content_kms_key_name" {
  description = "Cloud KMS key for the content bucket (CMEK); the Cloud Storage service agent must be allowed to use it. null: Google-managed encryption."
  type        = string
  default     = null
}

variable "kms_key_name" {
  description = "Cloud KMS key for the Pub/Sub topics (CMEK); its Pub/Sub service agent must be allowed to use it. null: Google-managed encryption."
  type        = string
  default     = null
}

variable "labels" {
  description = "Labels for every resource that takes them."
  type        = map(string)
  default     = {}
}
