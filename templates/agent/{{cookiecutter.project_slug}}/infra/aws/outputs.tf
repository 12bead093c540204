output "agent_url" {
  description = "The agent (JSON-RPC at /, card at /.well-known/agent-card.json)."
  value       = module.agent.agent_url
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
