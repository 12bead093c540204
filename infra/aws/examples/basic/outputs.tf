output "agent_url" {
  description = "The agent (JSON-RPC at /, card at /.well-known/agent-card.json)."
  value       = module.agent.agent_url
}

output "stream_url" {
  description = "Live SSE endpoint, with streaming."
  value       = module.agent.stream_url
}

output "table_name" {
  value = module.agent.table_name
}

output "queue_url" {
  value = module.agent.queue_url
}

output "dlq_url" {
  value = module.agent.dlq_url
}

output "function_names" {
  value = {
    http   = module.agent.http_function_name
    worker = module.agent.worker_function_name
    stream = module.agent.stream_function_name
  }
}
