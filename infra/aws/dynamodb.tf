# The store's one table, exactly as adapters/aws/README.md ("DynamoDB store", "Table") documents
# it and a2a_serverless_aws.dynamodb.table.create_table makes it.

resource "aws_dynamodb_table" "tasks" {
  name                        = local.table_name
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "PK"
  range_key                   = "SK"
  deletion_protection_enabled = var.table_deletion_protection

  attribute {
    name = "PK"
    type = "S"
  }
  attribute {
    name = "SK"
    type = "S"
  }
  attribute {
    name = "owner"
    type = "S"
  }
  attribute {
    name = "owner_ctx"
    type = "S"
  }
  attribute {
    name = "order_key"
    type = "S"
  }

  # tasks/list: an owner's tasks, newest update first.
  global_secondary_index {
    name               = "by_owner"
    hash_key           = "owner"
    range_key          = "order_key"
    projection_type    = "INCLUDE"
    non_key_attributes = ["state", "expires_ms"]
  }

  # tasks/list with a contextId: keys only, on a key no task write changes, so DynamoDB writes
  # one entry per task (an index sorted by update time would move it on every visible write).
  global_secondary_index {
    name            = "by_context_tasks"
    hash_key        = "owner_ctx"
    projection_type = "KEYS_ONLY"
  }

  # Finished tasks (with A2A_FINISHED_TASK_TTL_S) carry `ttl` in epoch seconds.
  ttl {
    attribute_name = "ttl"
    enabled        = true
  }

  point_in_time_recovery {
    enabled = true
  }

  server_side_encryption {
    enabled     = true
    kms_key_arn = var.kms_key_arn
  }

  tags = var.tags
}
