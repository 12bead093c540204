# The job queue (agent turns and, unless webhook_queue is set, webhook deliveries), an optional
# webhook queue, and one dead-letter queue for each.

resource "aws_sqs_queue" "dead_letter" {
  for_each = toset(local.queue_names)

  name                       = "${var.name}-${each.key}-dlq"
  message_retention_seconds  = var.dlq_retention_s
  visibility_timeout_seconds = local.dlq_visibility_timeout_s

  sqs_managed_sse_enabled           = var.kms_key_arn == null ? true : null
  kms_master_key_id                 = var.kms_key_arn
  kms_data_key_reuse_period_seconds = var.kms_key_arn == null ? null : 300

  tags = var.tags
}

resource "aws_sqs_queue" "queue" {
  for_each = toset(local.queue_names)

  name                       = "${var.name}-${each.key}"
  visibility_timeout_seconds = local.visibility_timeout_s
  message_retention_seconds  = var.message_retention_s
  # Long polling is the event source mapping's business; a delay of 0 keeps turns immediate.
  delay_seconds = 0

  # On the maxReceiveCount-th failed delivery the worker abandons the job (the task fails with a
  # reason) and SQS moves the message here for an operator to see.
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dead_letter[each.key].arn
    maxReceiveCount     = var.max_receive_count
  })

  sqs_managed_sse_enabled           = var.kms_key_arn == null ? true : null
  kms_master_key_id                 = var.kms_key_arn
  kms_data_key_reuse_period_seconds = var.kms_key_arn == null ? null : 300

  tags = var.tags
}

# Only the queue it belongs to may move messages into a dead-letter queue.
resource "aws_sqs_queue_redrive_allow_policy" "dead_letter" {
  for_each = toset(local.queue_names)

  queue_url = aws_sqs_queue.dead_letter[each.key].id
  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.queue[each.key].arn]
  })
}
