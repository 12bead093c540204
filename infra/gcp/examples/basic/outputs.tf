output "agent_url" {
  description = "The agent (JSON-RPC at /, card at /.well-known/agent-card.json)."
  value       = module.agent.agent_url
}

output "worker_url" {
  value = module.agent.worker_url
}

output "topic" {
  value = module.agent.topic
}

output "cloud_tasks_queue" {
  value = module.agent.cloud_tasks_queue
}

output "store_url" {
  value = module.agent.store_url
}
