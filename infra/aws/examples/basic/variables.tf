variable "region" {
  description = "AWS region to deploy to."
  type        = string
  default     = "us-east-1"
}

variable "name" {
  description = "Name of the deployment (prefix of every resource)."
  type        = string
  default     = "trip-planner"
}

variable "package_zip" {
  description = "The Lambda zip built by `scripts/package aws` (build/package/aws-lambda.zip; with --streaming when streaming = true)."
  type        = string
}

variable "streaming" {
  description = "Also deploy the live-SSE function URL (Lambda Web Adapter)."
  type        = bool
  default     = false
}

variable "web_adapter_layer_arn" {
  description = "The Lambda Web Adapter layer of the region (x86_64), needed with streaming."
  type        = string
  default     = null
}

variable "push_signing_keys_ssm_parameter" {
  description = "SSM SecureString with the webhook signing keys (`a2a-serverless keys generate`); null deploys without push notifications."
  type        = string
  default     = null
}
