# One role per function, each allowed only what its function does:
#
#   function      table (+ indexes)       queues                                     its log group
#   (every function also reads, writes, tags and deletes objects of the content bucket, and
#   lists it: the S3 content store, for parts too large for an item)
#   http          read/write (the Store)  SendMessage                                write
#   stream        read/write              SendMessage                                write
#   worker        read/write              SendMessage; Receive/Delete/GetAttr (jobs) write
#   dead-letters  read/write              SendMessage; Receive/Delete/GetAttr (DLQs) write
#
# Every function builds a runtime, so with signing keys each also may read that one parameter
# (ssm:GetParameter) or secret (secretsmanager:GetSecretValue), and decrypt with its customer
# managed key when push_signing_keys_kms_key_arn names one (secrets.tf).
#
# The table actions are the ones the DynamoDB store documents (adapters/aws/README.md): it never
# describes or scans the table, and TransactWriteItems is authorised by the actions inside it.

locals {
  table_actions = [
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:Query",
    "dynamodb:BatchGetItem",
    "dynamodb:BatchWriteItem",
  ]

  table_statement = {
    Sid      = "TaskTable"
    Effect   = "Allow"
    Action   = local.table_actions
    Resource = [aws_dynamodb_table.tasks.arn, "${aws_dynamodb_table.tasks.arn}/index/*"]
  }

  # What the S3 content store does (a2a_serverless_aws.s3content): objects by key, and the
  # listing of a finished task's objects to tag them for the lifecycle rule.
  content_statements = [
    {
      Sid      = "ContentObjects"
      Effect   = "Allow"
      Action   = ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:PutObjectTagging"]
      Resource = ["${aws_s3_bucket.content.arn}/*"]
    },
    {
      Sid      = "ListContent"
      Effect   = "Allow"
      Action   = ["s3:ListBucket"]
      Resource = [aws_s3_bucket.content.arn]
    },
  ]

  send_statement = {
    Sid      = "EnqueueJobs"
    Effect   = "Allow"
    Action   = ["sqs:SendMessage"]
    Resource = local.queue_arns
  }

  # What an event source mapping polls with (the AWSLambdaSQSQueueExecutionRole actions).
  consume_actions = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"]

  # The table, the queues and the environment variables are encrypted with this key when given.
  kms_statements = var.kms_key_arn == null ? [] : [{
    Sid      = "UseDataKey"
    Effect   = "Allow"
    Action   = ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey", "kms:DescribeKey"]
    Resource = [var.kms_key_arn]
  }]

  # The keys are read at start-up (secrets.tf): the one parameter or secret, nothing around it.
  signing_keys_statements = local.push_signing_keys == null ? [] : [{
    Sid      = "ReadSigningKeys"
    Effect   = "Allow"
    Action   = [local.push_signing_keys.action]
    Resource = [local.push_signing_keys.arn]
  }]

  # The API keys, read at start-up too (secrets.tf).
  api_keys_statements = local.api_keys_parameter == null ? [] : [{
    Sid      = "ReadApiKeys"
    Effect   = "Allow"
    Action   = ["ssm:GetParameter"]
    Resource = [local.api_keys_parameter_arn]
  }]

  # With the AWS managed key (aws/ssm, aws/secretsmanager) the key's own policy lets the service
  # decrypt for any principal of the account, so no grant is needed. A customer managed key is
  # used only through that service (in the ARN's region): the grant above already limits which
  # parameter or secret the service will decrypt for the role.
  signing_keys_kms_statements = local.push_signing_keys == null || var.push_signing_keys_kms_key_arn == null ? [] : [{
    Sid       = "DecryptSigningKeys"
    Effect    = "Allow"
    Action    = ["kms:Decrypt"]
    Resource  = [var.push_signing_keys_kms_key_arn]
    Condition = { StringEquals = { "kms:ViaService" = "${local.push_signing_keys.service}.${split(":", local.push_signing_keys.arn)[3]}.amazonaws.com" } }
  }]

  # Each function and the queues it consumes (sending jobs is common to all: a failed or
  # abandoned task notifies its webhooks).
  functions = merge(
    {
      http   = { name = local.http_function, consumes = [] }
      worker = { name = local.worker, consumes = local.queue_arns }
    },
    var.streaming ? { stream = { name = local.stream, consumes = [] } } : {},
    var.dead_letter_handler != null ? { dead_letters = { name = local.dead_letters, consumes = local.dlq_arns } } : {},
  )

  function_policies = {
    for key, f in local.functions : key => jsonencode({
      Version = "2012-10-17"
      Statement = concat(
        [
          local.table_statement,
          local.send_statement,
          {
            Sid      = "Logs"
            Effect   = "Allow"
            Action   = ["logs:CreateLogStream", "logs:PutLogEvents"]
            Resource = ["${aws_cloudwatch_log_group.function[key].arn}:*"]
          },
        ],
        local.content_statements,
        length(f.consumes) > 0 ? [{
          Sid      = "ConsumeJobs"
          Effect   = "Allow"
          Action   = local.consume_actions
          Resource = f.consumes
        }] : [],
        local.kms_statements,
        local.signing_keys_statements,
        local.signing_keys_kms_statements,
        local.api_keys_statements,
      )
    })
  }
}

resource "aws_iam_role" "function" {
  for_each = local.functions

  name = "${each.value.name}-role"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "lambda.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })

  tags = var.tags
}

resource "aws_iam_role_policy" "function" {
  for_each = local.functions

  name   = "${each.value.name}-access"
  role   = aws_iam_role.function[each.key].id
  policy = local.function_policies[each.key]
}

# X-Ray's write actions take no resource-level permissions; AWS's managed policy holds exactly
# them, which keeps "Resource": "*" out of this module's own policies.
resource "aws_iam_role_policy_attachment" "xray" {
  for_each = var.xray_tracing ? local.functions : {}

  role       = aws_iam_role.function[each.key].name
  policy_arn = "arn:aws:iam::aws:policy/AWSXRayDaemonWriteAccess"
}
