# {{ cookiecutter.agent_name }} on Google Cloud: the kit's infra/gcp module (Cloud Functions gen2
# for the A2A endpoint and the worker, Firestore, Pub/Sub with a dead-letter topic, Cloud Tasks).
#
#   python package.py                      # build/source.zip (from the project directory)
#   terraform -chdir=infra init
#   terraform -chdir=infra apply -var project_id=<project>

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
  # Where the kit's module comes from: a path to an a2a-serverless checkout's infra/gcp, or a
  # git URL such as "git::https://<host>/<owner>/a2a-serverless.git//infra/gcp?ref=<tag>".
  source = "{{ cookiecutter.terraform_module_source }}"

  project_id = var.project_id
  region     = var.region
  name       = var.name
  source_zip = var.source_zip

  # The functions main.py registers.
  http_entry_point   = "a2a"
  worker_entry_point = "worker"

  push_signing_keys_secret = var.push_signing_keys_secret
  # Who may call the agent (Google ID tokens, checked by Cloud Run). public = true would let
  # anyone in: an explicit choice, see the kit's docs/security.md.
  public              = var.public
  invokers            = var.invokers
  finished_task_ttl_s = 30 * 24 * 3600
  environment         = var.environment

  labels = {
    application = "{{ cookiecutter.project_slug }}"
  }
}
