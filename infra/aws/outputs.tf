output "agent_url" {
  description = "The agent's URL (API Gateway): JSON-RPC at /, the card at /.well-known/agent-card.json."
  value       = "${aws_apigatewayv2_api.http.api_endpoint}/"
}

output "stream_url" {
  description = "The streaming function's URL (live SSE), or null without streaming."
  value       = var.streaming ? aws_lambda_function_url.stream[0].function_url : null
}

output "table_name" {
  description = "The DynamoDB task table."
  value       = aws_dynamodb_table.tasks.name
}

output "table_arn" {
  description = "ARN of the task table."
  value       = aws_dynamodb_table.tasks.arn
}

output "store_url" {
  description = "A2A_STORE_URL of the functions."
  value       = local.store_url
}

output "content_bucket" {
  description = "The S3 bucket holding parts too large for the table's items."
  value       = aws_s3_bucket.content.id
}

output "queue_url" {
  description = "The job queue (A2A_SQS_QUEUE_URL)."
  value       = aws_sqs_queue.queue["jobs"].url
}

output "queue_arn" {
  description = "ARN of the job queue."
  value       = aws_sqs_queue.queue["jobs"].arn
}

output "dlq_url" {
  description = "The job queue's dead-letter queue."
  value       = aws_sqs_queue.dead_letter["jobs"].url
}

output "dlq_arn" {
  description = "ARN of the job queue's dead-letter queue."
  value       = aws_sqs_queue.dead_letter["jobs"].arn
}

output "webhook_queue_url" {
  description = "The webhook queue (A2A_SQS_WEBHOOK_QUEUE_URL), or null when webhooks share the job queue."
  value       = var.webhook_queue ? aws_sqs_queue.queue["webhooks"].url : null
}

output "webhook_dlq_url" {
  description = "The webhook queue's dead-letter queue, or null."
  value       = var.webhook_queue ? aws_sqs_queue.dead_letter["webhooks"].url : null
}

output "visibility_timeout_s" {
  description = "The queues' visibility timeout (visibility_timeout_factor x worker_timeout + batching window)."
  value       = local.visibility_timeout_s
}

output "http_function_name" {
  description = "The HTTP function."
  value       = aws_lambda_function.http.function_name
}

output "worker_function_name" {
  description = "The SQS worker function."
  value       = aws_lambda_function.worker.function_name
}

output "stream_function_name" {
  description = "The streaming function, or null without streaming."
  value       = var.streaming ? aws_lambda_function.stream[0].function_name : null
}

output "dead_letter_function_name" {
  description = "The dead-letter function, or null without dead_letter_handler."
  value       = var.dead_letter_handler != null ? aws_lambda_function.dead_letters[0].function_name : null
}

output "role_arns" {
  description = "Each function's role (http, worker, stream, dead_letters)."
  value       = { for key, role in aws_iam_role.function : key => role.arn }
}

output "log_group_names" {
  description = "Each function's log group, and the API's access log group under \"api\"."
  value = merge(
    { for key, group in aws_cloudwatch_log_group.function : key => group.name },
    { api = aws_cloudwatch_log_group.api.name },
  )
}
