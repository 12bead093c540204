# The example agent (examples/trip_planner.py) on Google Cloud, deployed with the infra/gcp
# module: Cloud Functions (gen2) from the source bundle `scripts/package gcp` builds.
#
#   scripts/package gcp                  # builds build/package/gcp-source.zip, prints its size
#   terraform init
#   terraform apply -var project_id=<project> -var source_zip=../../../../build/package/gcp-source.zip
#
# Webhook signing keys: create the secret first, outside Terraform, so the keys never enter
# its state, then pass its id as push_signing_keys_secret:
#
#   a2a-serverless keys generate | gcloud secrets create trip-planner-push-keys --data-file=-

terraform {
  required_version = ">= 1.9"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 6.0, < 8.0"
    }
  }
}

provider "google" {
  project = var.project_id
  region  = var.region
}

module "agent" {
  source = "../.."

  project_id = var.project_id
  region     = var.region
  name       = var.name
  source_zip = var.source_zip

  # The targets registered by examples/gcp_main.py (the bundle's main.py).
  http_entry_point   = "a2a"
  worker_entry_point = "worker"

  push_signing_keys_secret = var.push_signing_keys_secret
  finished_task_ttl_s      = 30 * 24 * 3600

  labels = {
    application = "a2a-serverless"
    agent       = var.name
  }
}
