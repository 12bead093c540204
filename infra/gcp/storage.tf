# The functions' source bundle, uploaded to a private bucket Cloud Build reads from. The object
# is named after its content, so a new bundle makes both functions build and deploy again.

resource "google_storage_bucket" "source" {
  #checkov:skip=CKV_GCP_62:the bucket only holds the functions' source bundles, written by this module; Cloud Audit Logs record access, a usage-log bucket would add nothing
  project                     = var.project_id
  name                        = "${var.project_id}-${var.name}-a2a-source"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = true
  labels                      = var.labels

  versioning {
    enabled = true
  }

  # Old bundles are of no use once replaced.
  lifecycle_rule {
    condition {
      num_newer_versions = 3
      with_state         = "ARCHIVED"
    }
    action {
      type = "Delete"
    }
  }

  depends_on = [google_project_service.api]
}

resource "google_storage_bucket_object" "source" {
  name   = "${var.name}-${filemd5(var.source_zip)}.zip"
  bucket = google_storage_bucket.source.name
  source = var.source_zip
}

# The content bucket: parts of tasks too large for a Firestore document
# (a2a_serverless.store.content, a2a_serverless_gcp.cloud_storage). Objects are written once
# under fresh names and read by name; when a task finishes with a TTL, its objects' Custom-Time
# is set to the moment it expires, and the lifecycle rule deletes them a day later. Private
# (uniform access, public access prevented), versioned (what a write overwrites or deletes is
# kept a day), Google-managed or customer-managed (content_kms_key_name) encryption.
resource "google_storage_bucket" "content" {
  #checkov:skip=CKV_GCP_62:objects are read and written only by the functions' service accounts, which Cloud Audit Logs record; a usage-log bucket would add nothing
  project                     = var.project_id
  name                        = "${var.project_id}-${var.name}-a2a-content"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = false
  labels                      = var.labels

  versioning {
    enabled = true
  }

  dynamic "encryption" {
    for_each = var.content_kms_key_name == null ? [] : [var.content_kms_key_name]
    content {
      default_kms_key_name = encryption.value
    }
  }

  # A finished task's content: a day past the task's expiry (its Custom-Time).
  lifecycle_rule {
    condition {
      days_since_custom_time = 1
    }
    action {
      type = "Delete"
    }
  }

  lifecycle_rule {
    condition {
      days_since_noncurrent_time = 1
      with_state                 = "ARCHIVED"
    }
    action {
      type = "Delete"
    }
  }

  depends_on = [google_project_service.api]
}
