# Webhook deliveries and delayed jobs: HTTP tasks to the worker with a schedule time, retried
# with back-off up to max_attempts (a2a_serverless_gcp.cloud_tasks).

resource "google_cloud_tasks_queue" "webhooks" {
  count = var.cloud_tasks ? 1 : 0

  project  = var.project_id
  location = var.region
  name     = "${var.name}-webhooks"

  rate_limits {
    max_dispatches_per_second = var.cloud_tasks_max_dispatches_per_second
  }

  retry_config {
    max_attempts  = var.cloud_tasks_max_attempts
    min_backoff   = var.cloud_tasks_min_backoff
    max_backoff   = var.cloud_tasks_max_backoff
    max_doublings = 5
  }

  stackdriver_logging_config {
    sampling_ratio = 1.0
  }

  depends_on = [google_project_service.api]
}
