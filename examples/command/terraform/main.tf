# Terraform: one Neon preview branch a key of `branches`, each created, gated, migrated, and checked
# before it is deleted, by the module modules/neon-preview (docs/recipes.md explains each part).
# The provider is configured here, in the root module, and only here: a module with a provider
# block of its own cannot be called with for_each.

terraform {
  required_version = ">= 1.4"
  required_providers {
    neon = {
      source  = "kislerdm/neon"
      version = "~> 0.15.0"
    }
  }
}

provider "neon" {} # the key from NEON_API_KEY

variable "project_id" {
  type        = string
  description = "The Neon project."
}

variable "branches" {
  type        = map(string)
  description = "The preview branches, a key each (pr-12 = \"preview/pr-12\"). Remove a key to delete its branch."
}

variable "neon_gate" {
  type        = string
  description = <<-EOT
    How to run the gate command, pinned to what you have reviewed. Before the first release:
    npx --yes github:OWNER/neon-operations-gate#<full commit SHA> (needs git). After it:
    npx --yes neon-operations-gate@0.1.0.
  EOT
}

variable "migrate_command" {
  type        = string
  description = "The migration command; it reads the database URL from DATABASE_URL."
  default     = "npm run migrate"
}

module "preview" {
  source   = "./modules/neon-preview"
  for_each = var.branches

  project_id      = var.project_id
  branch_name     = each.value
  neon_gate       = var.neon_gate
  migrate_command = var.migrate_command
}

output "branch_ids" {
  description = "Each preview branch's id, by key."
  value       = { for key, preview in module.preview : key => preview.branch_id }
}

output "database_urls" {
  description = "Each preview branch's database URL, by key (sensitive)."
  value       = { for key, preview in module.preview : key => preview.database_url }
  sensitive   = true
}
