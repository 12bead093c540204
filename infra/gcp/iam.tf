# Service accounts, each allowed only what it does:
#
#   account   what it may do
#   http      the store's database and content bucket (objects only); publish to the job
#             topic; queue tasks (with the invoker's identity); read the signing keys
#   worker    the same, except publishing unless Cloud Tasks is off (webhooks then use Pub/Sub)
#   invoker   call the worker (the identity of Pub/Sub pushes and Cloud Tasks requests)
#   build     Cloud Build for the functions: read the source bucket, write images and logs

resource "google_service_account" "http" {
  project      = var.project_id
  account_id   = "${var.name}-http"
  display_name = "A2A agent ${var.name}: HTTP function"
}

resource "google_service_account" "worker" {
  project      = var.project_id
  account_id   = "${var.name}-worker"
  display_name = "A2A agent ${var.name}: worker function"
}

resource "google_service_account" "invoker" {
  project      = var.project_id
  account_id   = "${var.name}-invoker"
  display_name = "A2A agent ${var.name}: Pub/Sub and Cloud Tasks calls to the worker"
}

resource "google_service_account" "build" {
  project      = var.project_id
  account_id   = "${var.name}-build"
  display_name = "A2A agent ${var.name}: Cloud Build of the functions"
}

locals {
  runtime_accounts = {
    http   = google_service_account.http.member
    worker = google_service_account.worker.member
  }
}

# Firestore has no per-database IAM resource: the role is granted on the project with a
# condition naming the database.
resource "google_project_iam_member" "firestore" {
  for_each = local.runtime_accounts

  project = var.project_id
  role    = "roles/datastore.user"
  member  = each.value

  condition {
    title      = "${var.name}-firestore-database"
    expression = "resource.name == \"projects/${var.project_id}/databases/${local.database}\""
  }
}

# The content store reads, writes, lists and deletes objects, and patches a finished task's
# objects' Custom-Time: objectUser on this bucket alone, no bucket administration.
resource "google_storage_bucket_iam_member" "content" {
  for_each = local.runtime_accounts

  bucket = google_storage_bucket.content.name
  role   = "roles/storage.objectUser"
  member = each.value
}

resource "google_pubsub_topic_iam_member" "publisher" {
  for_each = var.cloud_tasks ? { http = local.runtime_accounts.http } : local.runtime_accounts

  project = var.project_id
  topic   = google_pubsub_topic.jobs.name
  role    = "roles/pubsub.publisher"
  member  = each.value
}

resource "google_cloud_tasks_queue_iam_member" "enqueuer" {
  for_each = var.cloud_tasks ? local.runtime_accounts : {}

  project  = var.project_id
  location = var.region
  name     = google_cloud_tasks_queue.webhooks[0].name
  role     = "roles/cloudtasks.enqueuer"
  member   = each.value
}

# A task carrying an OIDC token of the invoker needs its creator to act as the invoker.
resource "google_service_account_iam_member" "act_as_invoker" {
  for_each = var.cloud_tasks ? local.runtime_accounts : {}

  service_account_id = google_service_account.invoker.name
  role               = "roles/iam.serviceAccountUser"
  member             = each.value
}

# Pub/Sub's service agent mints the push requests' ID tokens.
resource "google_service_account_iam_member" "pubsub_token_creator" {
  service_account_id = google_service_account.invoker.name
  role               = "roles/iam.serviceAccountTokenCreator"
  member             = local.pubsub_service_agent
}

resource "google_secret_manager_secret_iam_member" "signing_keys" {
  for_each = var.push_signing_keys_secret == null ? {} : local.runtime_accounts

  project   = var.project_id
  secret_id = var.push_signing_keys_secret
  role      = "roles/secretmanager.secretAccessor"
  member    = each.value
}

resource "google_project_iam_member" "build" {
  for_each = toset(["roles/logging.logWriter", "roles/artifactregistry.writer"])

  project = var.project_id
  role    = each.key
  member  = google_service_account.build.member
}

resource "google_storage_bucket_iam_member" "build_source" {
  bucket = google_storage_bucket.source.name
  role   = "roles/storage.objectViewer"
  member = google_service_account.build.member
}
