variable "region" {
  description = "AWS region to deploy to."
  type        = string
  default     = "us-east-1"
}

variable "name" {
  description = "Name of the deployment: prefix of every resource."
  type        = string
  default     = "{{ cookiecutter.project_slug }}"
}

variable "package_zip" {
  description = "The Lambda zip built by `python package.py`, relative to this directory."
  type        = string
  default     = "../build/lambda.zip"
}

variable "push_signing_keys_ssm_parameter" {
  description = "SSM SecureString holding the webhook signing keys (`a2a-serverless keys generate`); null deploys without push notifications."
  type        = string
  default     = null
}

variable "api_keys_ssm_parameter" {
  description = "SSM SecureString holding the API keys callers must send in X-API-Key (\"KEY=SUBJECT,...\"); null: \"/<name>/api-keys\". A function whose parameter is missing does not start."
  type        = string
  default     = null
}

variable "environment" {
  description = "More settings for every function, e.g. the agent's authentication (A2A_AUTH_*)."
  type        = map(string)
  default     = {}
}
