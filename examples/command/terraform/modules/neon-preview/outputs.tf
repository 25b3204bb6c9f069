# What the module gives: only what gate.tf's locals hold, so that a stand-in for main.tf gives the
# same outputs (the suite runs the module that way, under for_each, with no provider).

output "branch_id" {
  description = "The branch's id."
  value       = local.neon_branch_id
}

output "database_url" {
  description = "The database URL of the branch's compute, for the deploy (sensitive)."
  value       = local.neon_database_url
  sensitive   = true
}

output "migrated" {
  description = "Changes whenever the gate passed and the migrations ran: a deploy can depend on it."
  value       = terraform_data.migrate.id
}
