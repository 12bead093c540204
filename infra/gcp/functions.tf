# The two Cloud Functions (gen2): the A2A HTTP function (its `invokers`, or everyone when
# `public`), and the worker, reached only by
# Pub/Sub push and Cloud Tasks with the invoker account's ID tokens. Both are built by Cloud
# Build from the same source bundle with different entry points (functions-framework targets).

resource "google_cloudfunctions2_function" "http" {
  #checkov:skip=CKV_GCP_124:the HTTP function is the agent's endpoint on the internet (ALLOW_ALL ingress); Cloud Run IAM lets in only its invokers unless `public`. The worker is internal only
  project     = var.project_id
  location    = var.region
  name        = local.http_function
  description = "A2A agent ${var.name}: card, JSON-RPC, REST, SSE"
  labels      = var.labels

  build_config {
    runtime         = var.runtime
    entry_point     = var.http_entry_point
    service_account = google_service_account.build.id
    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }

  service_config {
    service_account_email            = google_service_account.http.email
    timeout_seconds                  = var.http_timeout
    available_memory                 = var.http_memory
    available_cpu                    = "1"
    max_instance_request_concurrency = var.http_concurrency
    max_instance_count               = var.http_max_instances
    min_instance_count               = var.http_min_instances
    ingress_settings                 = "ALLOW_ALL"
    all_traffic_on_latest_revision   = true
    environment_variables            = local.shared_environment

    dynamic "secret_environment_variables" {
      for_each = var.push_signing_keys_secret == null ? [] : [var.push_signing_keys_secret]
      content {
        key        = "A2A_PUSH_SIGNING_KEYS"
        project_id = var.project_id
        secret     = secret_environment_variables.value
        version    = var.push_signing_keys_version
      }
    }
  }

  depends_on = [
    google_project_iam_member.build,
    google_storage_bucket_iam_member.build_source,
    google_secret_manager_secret_iam_member.signing_keys,
  ]
}

resource "google_cloudfunctions2_function" "worker" {
  project     = var.project_id
  location    = var.region
  name        = local.worker
  description = "A2A agent ${var.name}: worker (agent turns, webhook deliveries)"
  labels      = var.labels

  build_config {
    runtime         = var.runtime
    entry_point     = var.worker_entry_point
    service_account = google_service_account.build.id
    source {
      storage_source {
        bucket = google_storage_bucket.source.name
        object = google_storage_bucket_object.source.name
      }
    }
  }

  service_config {
    service_account_email            = google_service_account.worker.email
    timeout_seconds                  = var.worker_timeout
    available_memory                 = var.worker_memory
    available_cpu                    = "1"
    max_instance_request_concurrency = var.worker_concurrency
    max_instance_count               = var.worker_max_instances
    min_instance_count               = var.worker_min_instances
    ingress_settings                 = var.worker_ingress
    all_traffic_on_latest_revision   = true
    environment_variables            = local.worker_environment

    dynamic "secret_environment_variables" {
      for_each = var.push_signing_keys_secret == null ? [] : [var.push_signing_keys_secret]
      content {
        key        = "A2A_PUSH_SIGNING_KEYS"
        project_id = var.project_id
        secret     = secret_environment_variables.value
        version    = var.push_signing_keys_version
      }
    }
  }

  depends_on = [
    google_project_iam_member.build,
    google_storage_bucket_iam_member.build_source,
    google_secret_manager_secret_iam_member.signing_keys,
  ]
}

# Startup CPU boost (var.startup_cpu_boost) is a setting of the functions' Cloud Run services
# that google_cloudfunctions2_function does not expose: gcloud sets it after each change of a
# function (a deploy makes a new revision from the function's own settings).
resource "terraform_data" "startup_cpu_boost" {
  for_each = var.startup_cpu_boost ? {
    http   = google_cloudfunctions2_function.http
    worker = google_cloudfunctions2_function.worker
  } : {}

  triggers_replace = [each.value.service_config[0].service, each.value.update_time]

  provisioner "local-exec" {
    command = "gcloud run services update ${basename(each.value.service_config[0].service)} --project=${var.project_id} --region=${var.region} --cpu-boost --quiet"
  }
}

# By default Cloud Run lets in only the `invokers`, each request carrying a Google ID token
# (Authorization: Bearer, docs/security.md). `public` lets everyone in: the agent then
# authenticates its callers itself (A2A_AUTH_*), or is open to all, an explicit choice.
resource "google_cloud_run_v2_service_iam_member" "http_invokers" {
  for_each = var.public ? toset([]) : toset(var.invokers)

  project  = var.project_id
  location = var.region
  name     = google_cloudfunctions2_function.http.name
  role     = "roles/run.invoker"
  member   = each.value
}

resource "google_cloud_run_v2_service_iam_member" "http_public" {
  count = var.public ? 1 : 0

  project  = var.project_id
  location = var.region
  name     = google_cloudfunctions2_function.http.name
  role     = "roles/run.invoker"
  member   = "allUsers"
}

# Only the invoker account (Pub/Sub push, Cloud Tasks) may call the worker.
resource "google_cloud_run_v2_service_iam_member" "worker_invoker" {
  project  = var.project_id
  location = var.region
  name     = google_cloudfunctions2_function.worker.name
  role     = "roles/run.invoker"
  member   = google_service_account.invoker.member
}
