output "agent_url" {
  description = "The agent's URL (the HTTP function): JSON-RPC at /, the card at /.well-known/agent-card.json."
  value       = google_cloudfunctions2_function.http.url
}

output "worker_url" {
  description = "The worker's URL (Pub/Sub push endpoint, Cloud Tasks target, OIDC audience)."
  value       = local.worker_url
}

output "store_url" {
  description = "A2A_STORE_URL of the functions."
  value       = local.shared_environment.A2A_STORE_URL
}

output "content_bucket" {
  description = "The Cloud Storage bucket holding parts too large for a Firestore document."
  value       = google_storage_bucket.content.name
}

output "firestore_database" {
  description = "The Firestore database."
  value       = local.database
}

output "topic" {
  description = "The job topic (A2A_PUBSUB_TOPIC)."
  value       = google_pubsub_topic.jobs.id
}

output "dead_letter_topic" {
  description = "The dead-letter topic."
  value       = google_pubsub_topic.dead_letter.id
}

output "subscription" {
  description = "The push subscription delivering jobs to the worker."
  value       = google_pubsub_subscription.jobs.id
}

output "cloud_tasks_queue" {
  description = "The Cloud Tasks queue (A2A_CLOUD_TASKS_QUEUE), or null."
  value       = local.queue_id
}

output "function_names" {
  description = "The HTTP and worker functions."
  value = {
    http   = google_cloudfunctions2_function.http.name
    worker = google_cloudfunctions2_function.worker.name
  }
}

output "service_accounts" {
  description = "The service accounts (http, worker, invoker, build)."
  value = {
    http    = google_service_account.http.email
    worker  = google_service_account.worker.email
    invoker = google_service_account.invoker.email
    build   = google_service_account.build.email
  }
}
