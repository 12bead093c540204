# Log groups made before the functions, so retention and encryption apply from the first line
# (Lambda would otherwise create them itself, kept forever).

resource "aws_cloudwatch_log_group" "function" {
  #checkov:skip=CKV_AWS_338:retention is a variable (log_retention_days, default 30 days): these are operational logs of an agent, not an audit trail; raise it where compliance asks for a year
  for_each = local.functions

  name              = "/aws/lambda/${each.value.name}"
  retention_in_days = var.log_retention_days
  kms_key_id        = var.log_group_kms_key_arn

  tags = var.tags
}

resource "aws_cloudwatch_log_group" "api" {
  #checkov:skip=CKV_AWS_338:retention is a variable (log_retention_days, default 30 days): these are operational logs of an agent, not an audit trail; raise it where compliance asks for a year
  name              = "/aws/apigateway/${var.name}-http-api"
  retention_in_days = var.log_retention_days
  kms_key_id        = var.log_group_kms_key_arn

  tags = var.tags
}
