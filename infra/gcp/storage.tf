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
