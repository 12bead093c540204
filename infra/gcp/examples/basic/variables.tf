variable "project_id" {
  description = "Google Cloud project."
  type        = string
}

variable "region" {
  description = "Region of the functions and queue."
  type        = string
  default     = "europe-west1"
}

variable "name" {
  description = "Name of the deployment (prefix of every resource)."
  type        = string
  default     = "trip-planner"
}

variable "source_zip" {
  description = "The source bundle built by `scripts/package gcp` (build/package/gcp-source.zip)."
  type        = string
}

variable "push_signing_keys_secret" {
  description = "Secret Manager secret id with the webhook signing keys; null deploys without push notifications."
  type        = string
  default     = null
}
