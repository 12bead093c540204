variable "project_id" {
  description = "Google Cloud project to deploy into."
  type        = string
}

variable "region" {
  description = "Region of the functions and the Cloud Tasks queue."
  type        = string
  default     = "europe-west1"
}

variable "name" {
  description = "Name of the deployment: prefix of the functions, service accounts, topics and queue (4-20 characters)."
  type        = string
  default     = "{{ cookiecutter.project_slug[:20].rstrip('-') }}"
}

variable "source_zip" {
  description = "The source bundle built by `python package.py`, relative to this directory."
  type        = string
  default     = "../build/source.zip"
}

variable "push_signing_keys_secret" {
  description = "Secret Manager secret id holding the webhook signing keys (`a2a-serverless keys generate`); null deploys without push notifications."
  type        = string
  default     = null
}

variable "environment" {
  description = "More settings for both functions, e.g. the agent's authentication (A2A_AUTH_*)."
  type        = map(string)
  default     = {}
}

variable "public" {
  description = "Let ANYONE reach the A2A function (allUsers); the agent then authenticates callers itself (A2A_AUTH_*) or is open to all. An explicit choice: false (the default, and what organisation policies forbidding allUsers require) lets in only `invokers`, with Google ID tokens (README)."
  type        = bool
  default     = false
}

variable "invokers" {
  description = "With public = false: the IAM principals (serviceAccount:..., user:..., group:...) that may call the A2A function with a Google ID token."
  type        = list(string)
  default     = []
}
