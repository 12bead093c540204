# The webhook signing keys (a JWK set): a reference, resolved by the functions at start-up.
#
# A2A_PUSH_SIGNING_KEYS carries `ssm:<parameter name>` or `secretsmanager:<secret name or ARN>`,
# never the keys: the AWS adapter (a2a_serverless_aws.secrets) reads the parameter or secret once
# per container, when the handler is built, and a function that cannot read it fails its start
# (one whose parameter or secret does not exist starts without push and logs an ERROR).
# So the value stays out of the functions' configuration and out of the Terraform state, and
# nothing here reads it: no aws_ssm_parameter or aws_secretsmanager_secret_version data source.
# Terraform only needs the ARN of the one parameter or secret, for the roles' grants (iam.tf):
#
# - SSM: built from the name (there is no metadata-only data source for a parameter; the
#   aws_ssm_parameter data source always fetches the value). The region and account are the
#   provider's, which is where the functions look the name up too.
# - Secrets Manager: looked up with aws_secretsmanager_secret, which describes the secret (name,
#   ARN, key id) without reading its value. Its ARN carries the random suffix Secrets Manager
#   adds, so the grant names exactly this secret, not `name-*`.
#
# The key that encrypts the parameter or secret is not something the module can see (the
# parameter is made outside it), so push_signing_keys_kms_key_arn names it; see variables.tf.

data "aws_partition" "current" {
  count = local.uses_ssm ? 1 : 0
}

data "aws_region" "current" {
  count = local.uses_ssm ? 1 : 0
}

# Only with SSM: an offline plan (skip_requesting_account_id) has no account to ask for.
data "aws_caller_identity" "current" {
  count = local.uses_ssm ? 1 : 0
}

data "aws_secretsmanager_secret" "push_signing_keys" {
  count = var.push_signing_keys_secret_id != null ? 1 : 0

  # The data source takes a name or an ARN, in different arguments.
  arn  = startswith(var.push_signing_keys_secret_id, "arn:") ? var.push_signing_keys_secret_id : null
  name = startswith(var.push_signing_keys_secret_id, "arn:") ? null : var.push_signing_keys_secret_id
}

locals {
  # The API keys callers must present (A2A_AUTH_API_KEYS), the same way: a SecureString read at
  # start-up. Authentication is the default; `public` is the explicit way out.
  # The agent's own A2A_AUTH_* settings in `environment` (bearer JWTs, say) replace it.
  own_auth           = length([for k in keys(var.environment) : k if startswith(k, "A2A_AUTH_")]) > 0
  api_keys_parameter = var.public || local.own_auth ? null : coalesce(var.api_keys_ssm_parameter, "/${var.name}/api-keys")
  uses_ssm           = var.push_signing_keys_ssm_parameter != null || local.api_keys_parameter != null

  # Where the SSM parameters' ARNs start (the provider's partition, region and account, where the
  # functions look the names up too).
  ssm_parameter_arn_prefix = local.uses_ssm ? format(
    "arn:%s:ssm:%s:%s:parameter/",
    data.aws_partition.current[0].partition,
    data.aws_region.current[0].name,
    data.aws_caller_identity.current[0].account_id,
  ) : null

  # "/agent/keys" and "agent-keys" are both names; the ARN has exactly one "/" after "parameter".
  api_keys_parameter_arn          = local.api_keys_parameter == null ? null : "${local.ssm_parameter_arn_prefix}${trimprefix(local.api_keys_parameter, "/")}"
  push_signing_keys_parameter_arn = var.push_signing_keys_ssm_parameter == null ? null : "${local.ssm_parameter_arn_prefix}${trimprefix(var.push_signing_keys_ssm_parameter, "/")}"

  # What A2A_PUSH_SIGNING_KEYS says, and the one grant each role gets to make it work.
  push_signing_keys = (
    var.push_signing_keys_ssm_parameter != null ? {
      reference = "ssm:${var.push_signing_keys_ssm_parameter}"
      action    = "ssm:GetParameter"
      arn       = local.push_signing_keys_parameter_arn
      service   = "ssm"
    } :
    var.push_signing_keys_secret_id != null ? {
      reference = "secretsmanager:${var.push_signing_keys_secret_id}"
      action    = "secretsmanager:GetSecretValue"
      arn       = data.aws_secretsmanager_secret.push_signing_keys[0].arn
      service   = "secretsmanager"
    } :
    null
  )
}
