# Terraform: gate on a Neon branch before anything that needs it, with the neon-gate command.
#
# The API key is never a Terraform variable: the command reads NEON_API_KEY from the environment
# that `terraform apply` runs in, so the key is in neither the configuration, the plan nor the state.
# `terraform apply` fails when the gate does (an operation failed, the timeout ran out, ...).

terraform {
  required_version = ">= 1.4" # terraform_data is built in from 1.4 on
}

variable "project_id" {
  type        = string
  description = "The Neon project."
}

variable "branch_id" {
  type        = string
  description = "The Neon branch to gate on (an id, br-..., or a name)."
}

variable "neon_gate" {
  type        = string
  description = "How to run the gate command. Pin the version you have reviewed. npm fetches a github: spec with git, which must be on the PATH of the machine that runs terraform apply."
  default     = "npx --yes github:OWNER/neon-operations-gate#v0"
}

resource "terraform_data" "neon_gate" {
  # Another branch replaces this resource, and so runs the gate again.
  triggers_replace = [var.project_id, var.branch_id]

  provisioner "local-exec" {
    # Values reach the command through its environment, so no quoting is needed.
    command = "$NEON_GATE --project-id \"$GATE_PROJECT_ID\" --branch-id \"$GATE_BRANCH_ID\" --timeout 15m"
    environment = {
      NEON_GATE       = var.neon_gate
      GATE_PROJECT_ID = var.project_id
      GATE_BRANCH_ID  = var.branch_id
    }
  }
}

# What needs the branch ready waits for the gate:
#
# resource "terraform_data" "migrate" {
#   depends_on = [terraform_data.neon_gate]
#   provisioner "local-exec" {
#     command = "npm run migrate"
#   }
# }
