output "agent_url" {
  description = "The agent (JSON-RPC at /, card at /.well-known/agent-card.json)."
  value       = module.agent.agent_url
}

output "worker_url" {
  value = module.agent.worker_url
}

output "store_url" {
  value = module.agent.store_url
}
