# The webhook signing keys (a JWK set), read at deploy time.
#
# The core reads A2A_PUSH_SIGNING_KEYS from the environment (or from a file, `file:/path`); the
# AWS adapter has no run-time lookup of SSM or Secrets Manager yet. So the value is resolved here
# and lands in the functions' environment (encrypted at rest, with kms_key_arn when given) and in
# the Terraform state (keep the state encrypted and private). Rotating the keys means updating
# the parameter or secret and applying again.

data "aws_ssm_parameter" "push_signing_keys" {
  count = var.push_signing_keys_ssm_parameter != null ? 1 : 0

  name            = var.push_signing_keys_ssm_parameter
  with_decryption = true
}

data "aws_secretsmanager_secret_version" "push_signing_keys" {
  count = var.push_signing_keys_secret_id != null ? 1 : 0

  secret_id = var.push_signing_keys_secret_id
}
