# The module neon-preview: one Neon branch with its compute (Neon's provider, kislerdm/neon), gated
# before its migrations run, and checked before it is deleted (gate.tf). It has no provider block,
# so a root module can call it with for_each, one instance a branch (../../main.tf does). The
# machine that runs `terraform apply` and `terraform destroy` needs Node 22.22.2+ or 24.15+ with
# npm, and git for a github: package spec (the only one before the first release).
# docs/recipes.md explains each part.
#
# The API key is never a Terraform variable: both the provider (configured in the root module)
# and the gate read NEON_API_KEY from the environment that `terraform apply` runs in, so the key
# is in neither the configuration, the plan nor the state, and no provisioner gets it as a
# sensitive value (which would hide its output).

terraform {
  required_version = ">= 1.4" # terraform_data is built in from 1.4 on
  required_providers {
    neon = {
      source  = "kislerdm/neon"
      version = "~> 0.15.0"
    }
  }
}

variable "project_id" {
  type        = string
  description = "The Neon project."
}

variable "branch_name" {
  type        = string
  description = "The branch to create (preview/pr-12); another name renames it in place (kislerdm/neon updates name), with no new gate or migration."
}

variable "database" {
  type        = string
  description = "The database the migrations run on, as the branch has it from its parent."
  default     = "neondb"
}

variable "role" {
  type        = string
  description = "The role the migrations run as, as the branch has it from its parent."
  default     = "neondb_owner"
}

resource "neon_branch" "preview" {
  project_id = var.project_id
  name       = var.branch_name
}

resource "neon_endpoint" "preview" {
  project_id = var.project_id
  branch_id  = neon_branch.preview.id
  type       = "read_write"
  # Created after, so destroyed before, the check in gate.tf that waits for its delete to finish:
  # only then does the branch's delete start (no 423 Locked from the endpoint's delete).
  depends_on = [terraform_data.neon_endpoint_deleted]
}

# The role's password on the new branch (the parent's). Sensitive: Terraform keeps it out of its
# log, and, like every value a provider reads, in the state: keep the state where secrets may be.
data "neon_branch_role_password" "migrations" {
  project_id = var.project_id
  branch_id  = neon_branch.preview.id
  role_name  = var.role
}

# What gate.tf needs to know of the branch.
locals {
  neon_project_id = var.project_id
  neon_branch_id  = neon_branch.preview.id
  neon_database_url = format(
    "postgresql://%s:%s@%s/%s?sslmode=require",
    var.role,
    urlencode(data.neon_branch_role_password.migrations.password),
    neon_endpoint.preview.host,
    var.database
  )
}
