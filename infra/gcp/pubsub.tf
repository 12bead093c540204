# Agent-run jobs: a topic pushed to the worker, a dead-letter topic after max_delivery_attempts,
# and a push subscription on the dead-letter topic to the same worker, which fails the job's
# task with the reason (a2a_serverless_gcp.pubsub).

resource "google_pubsub_topic" "jobs" {
  project      = var.project_id
  name         = "${var.name}-jobs"
  kms_key_name = var.kms_key_name
  labels       = var.labels

  depends_on = [google_project_service.api]
}

resource "google_pubsub_topic" "dead_letter" {
  project      = var.project_id
  name         = "${var.name}-jobs-dead-letter"
  kms_key_name = var.kms_key_name
  labels       = var.labels

  depends_on = [google_project_service.api]
}

resource "google_pubsub_subscription" "jobs" {
  project = var.project_id
  name    = "${var.name}-jobs-to-worker"
  topic   = google_pubsub_topic.jobs.id
  labels  = var.labels

  # A push waits this long for the worker's answer: a turn's whole run.
  ack_deadline_seconds       = var.worker_timeout
  message_retention_duration = "604800s"

  push_config {
    push_endpoint = local.worker_url
    oidc_token {
      service_account_email = google_service_account.invoker.email
      audience              = local.worker_url
    }
  }

  retry_policy {
    minimum_backoff = var.pubsub_min_backoff
    maximum_backoff = var.pubsub_max_backoff
  }

  dead_letter_policy {
    dead_letter_topic     = google_pubsub_topic.dead_letter.id
    max_delivery_attempts = var.max_delivery_attempts
  }

  expiration_policy {
    ttl = ""
  }

  depends_on = [
    google_pubsub_topic_iam_member.dead_letter_publisher,
    google_cloud_run_v2_service_iam_member.worker_invoker,
  ]
}

resource "google_pubsub_subscription" "dead_letter" {
  project = var.project_id
  name    = "${var.name}-jobs-dead-letter-to-worker"
  topic   = google_pubsub_topic.dead_letter.id
  labels  = var.labels

  ack_deadline_seconds       = 60
  message_retention_duration = "604800s"

  push_config {
    push_endpoint = local.worker_url
    oidc_token {
      service_account_email = google_service_account.invoker.email
      audience              = local.worker_url
    }
  }

  retry_policy {
    minimum_backoff = var.pubsub_min_backoff
    maximum_backoff = var.pubsub_max_backoff
  }

  expiration_policy {
    ttl = ""
  }

  depends_on = [google_cloud_run_v2_service_iam_member.worker_invoker]
}

# Pub/Sub's service agent forwards undeliverable messages to the dead-letter topic and acks
# them on the source subscription.
resource "google_pubsub_topic_iam_member" "dead_letter_publisher" {
  project = var.project_id
  topic   = google_pubsub_topic.dead_letter.name
  role    = "roles/pubsub.publisher"
  member  = local.pubsub_service_agent
}

resource "google_pubsub_subscription_iam_member" "dead_letter_subscriber" {
  project      = var.project_id
  subscription = google_pubsub_subscription.jobs.name
  role         = "roles/pubsub.subscriber"
  member       = local.pubsub_service_agent
}
