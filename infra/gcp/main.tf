# Names, URLs and the environment both functions share.

data "google_project" "this" {
  project_id = var.project_id
}

locals {
  http_function = "${var.name}-http"
  worker        = "${var.name}-worker"

  database = coalesce(var.firestore_database, var.name)

  # Cloud Run's deterministic URL of the worker (https://<service>-<project number>.<region>.run.app).
  # Pub/Sub, Cloud Tasks and the worker itself (its OIDC audience, the tasks it queues) all need
  # it, and the worker cannot refer to its own resource's attributes.
  worker_url = "https://${local.worker}-${data.google_project.this.number}.${var.region}.run.app"
  # The HTTP function's own URL, the same way: the agent card's URL (A2A_PUBLIC_URL), so the
  # card never depends on a request's headers. `environment` may set another (a custom domain).
  http_url = "https://${local.http_function}-${data.google_project.this.number}.${var.region}.run.app"

  worker_lease_s = coalesce(var.worker_lease_s, var.worker_timeout + 60)

  # Roughly how long Pub/Sub keeps retrying a nacked job before dead-lettering it: the waits
  # between its max_delivery_attempts deliveries, doubling from the minimum back-off.
  pubsub_retry_span_s = sum([
    for i in range(var.max_delivery_attempts - 1) :
    min(tonumber(trimsuffix(var.pubsub_min_backoff, "s")) * pow(2, i), tonumber(trimsuffix(var.pubsub_max_backoff, "s")))
  ])

  pubsub_service_agent = "serviceAccount:service-${data.google_project.this.number}@gcp-sa-pubsub.iam.gserviceaccount.com"

  queue_id = var.cloud_tasks ? google_cloud_tasks_queue.webhooks[0].id : null

  shared_environment = merge(
    { A2A_PUBLIC_URL = local.http_url },
    var.environment,
    {
      A2A_STORE_URL                    = "firestore://${var.project_id}/${local.database}?prefix=${var.collection_prefix}&content=gs://${google_storage_bucket.content.name}"
      A2A_GCP_PROJECT                  = var.project_id
      A2A_PUBSUB_TOPIC                 = google_pubsub_topic.jobs.id
      A2A_PUBSUB_MAX_DELIVERY_ATTEMPTS = tostring(var.max_delivery_attempts)
      A2A_STREAM_TIMEOUT_S             = tostring(var.stream_timeout_s)
      # Near the turn's longest run, so a turn whose worker died is taken over soon after.
      A2A_WORKER_LEASE_S = tostring(local.worker_lease_s)
    },
    var.cloud_tasks ? {
      A2A_CLOUD_TASKS_QUEUE           = local.queue_id
      A2A_CLOUD_TASKS_URL             = local.worker_url
      A2A_CLOUD_TASKS_SERVICE_ACCOUNT = google_service_account.invoker.email
      A2A_CLOUD_TASKS_AUDIENCE        = local.worker_url
      A2A_CLOUD_TASKS_MAX_ATTEMPTS    = tostring(var.cloud_tasks_max_attempts)
    } : {},
    var.finished_task_ttl_s != null ? { A2A_FINISHED_TASK_TTL_S = tostring(var.finished_task_ttl_s) } : {},
  )

  # Pub/Sub push and Cloud Tasks send Google ID tokens of the invoker account; the worker checks
  # them itself too (a2a_serverless_gcp.worker_auth), not only Cloud Run's IAM at the door.
  worker_environment = merge(local.shared_environment, {
    A2A_WORKER_AUTH          = "oidc"
    A2A_WORKER_OIDC_AUDIENCE = local.worker_url
    A2A_WORKER_OIDC_EMAILS   = google_service_account.invoker.email
  })

  apis = [
    "artifactregistry.googleapis.com",
    "cloudbuild.googleapis.com",
    "cloudfunctions.googleapis.com",
    "cloudtasks.googleapis.com",
    "firestore.googleapis.com",
    "iam.googleapis.com",
    "pubsub.googleapis.com",
    "run.googleapis.com",
    "secretmanager.googleapis.com",
    "storage.googleapis.com",
  ]
}

resource "google_project_service" "api" {
  for_each = var.enable_apis ? toset(local.apis) : toset([])

  project            = var.project_id
  service            = each.key
  disable_on_destroy = false
}

# A turn nacked because another worker holds its lease (a duplicate delivery, or a worker that
# died) must come back after the lease ends, not run out of delivery attempts first: that would
# dead-letter it and fail a task that could have gone on.
check "pubsub_retries_outlast_the_lease" {
  assert {
    condition     = local.pubsub_retry_span_s >= local.worker_lease_s
    error_message = "Pub/Sub's retries (about ${local.pubsub_retry_span_s} s over ${var.max_delivery_attempts} deliveries) end before A2A_WORKER_LEASE_S (${local.worker_lease_s} s): raise pubsub_min_backoff or max_delivery_attempts, or lower worker_lease_s."
  }
}
