# The gate, then the migrations, for the branch of main.tf (local.neon_*), and the gate again
# before the branch is deleted: each a terraform_data resource with local-exec provisioners, run by
# `terraform apply` and `terraform destroy` on their own machine.
#
# - The gate runs again whenever the branch is replaced (triggers_replace on its id), and the
#   migrations whenever the gate ran again or migrations_version changes. A failure fails
#   `terraform apply` (local-exec provisioner error ... exit status N) and taints the resource, so
#   the next apply tries again.
# - Before the branch goes (`terraform destroy`, or its key removed from the root's map), a
#   destroy-time step runs the gate with --before delete: it waits until the project is idle, then
#   fails the destroy, with the gate's reason in the log, when the API would refuse the delete (a
#   child branch, a protected or default branch). Nothing is deleted then; fix it and destroy again.
# - The compute's delete is an operation of its own, and a branch delete that meets it gets
#   `423 Locked`. So the same check runs once more between the two (neon_endpoint_deleted): main.tf's
#   compute depends on it, so Terraform deletes the compute, runs it, and only then the branch.
# - Commands run through a shell (sh -c), so quotes in neon_gate and migrate_command work as in a
#   terminal: npm run migrate -- --tag 'release 7' is one command, not words split on spaces.
#   Prefer a migration tool that reads DATABASE_URL from its environment: one given the URL as an
#   argument (psql "$DATABASE_URL") shows its password to anyone who can run ps on this machine.
# - The database URL is sensitive, and Terraform hides all the output of a provisioner whose
#   command or environment holds a sensitive value ("output suppressed due to sensitive value in
#   config"). So a first, silent provisioner writes it into a file only this user can read (named
#   after the resource's id, so that instances of this module for several branches, side by side
#   with for_each, never read each other's), and the
#   gate and the migrations, which print what they do, read it from there and remove it, also when
#   they are stopped (a trap on EXIT; only SIGKILL can leave it).

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

variable "migrations_version" {
  type        = string
  description = "Change it (a hash of the migrations, say) to migrate the same branch again."
  default     = ""
}

resource "terraform_data" "neon_gate" {
  triggers_replace = [local.neon_project_id, local.neon_branch_id]

  provisioner "local-exec" {
    command     = "umask 077 && printf '%s' \"$DATABASE_URL\" > \"$URL_FILE\""
    environment = { DATABASE_URL = local.neon_database_url, URL_FILE = ".neon-gate-${self.id}.url" }
  }

  provisioner "local-exec" {
    # Values reach the command through its environment, so no quoting is needed; the key comes
    # from terraform's own environment (NEON_API_KEY).
    command = <<-EOT
      trap 'rm -f "$URL_FILE"' EXIT
      trap 'exit 143' TERM HUP
      trap 'exit 130' INT
      sh -c "$NEON_GATE"' "$@"' neon-gate --project-id "$GATE_PROJECT_ID" \
        --branch-id "$GATE_BRANCH_ID" --database-url-file "$URL_FILE" --timeout 15m
    EOT
    environment = {
      NEON_GATE       = var.neon_gate
      GATE_PROJECT_ID = local.neon_project_id
      GATE_BRANCH_ID  = local.neon_branch_id
      URL_FILE        = ".neon-gate-${self.id}.url"
    }
  }
}

resource "terraform_data" "migrate" {
  triggers_replace = [terraform_data.neon_gate.id, var.migrations_version]

  provisioner "local-exec" {
    command     = "umask 077 && printf '%s' \"$DATABASE_URL\" > \"$URL_FILE\""
    environment = { DATABASE_URL = local.neon_database_url, URL_FILE = ".neon-migrate-${self.id}.url" }
  }

  provisioner "local-exec" {
    command     = <<-EOT
      trap 'rm -f "$URL_FILE"' EXIT
      trap 'exit 143' TERM HUP
      trap 'exit 130' INT
      [ -s "$URL_FILE" ] || { echo "no database URL in $URL_FILE: nothing migrated" >&2; exit 1; }
      DATABASE_URL="$(cat "$URL_FILE")" sh -c "$MIGRATE"
    EOT
    environment = { MIGRATE = var.migrate_command, URL_FILE = ".neon-migrate-${self.id}.url" }
  }
}

# Before the branch is deleted: the gate with --before delete. A destroy-time step can read only
# its own resource (self), so what it needs is kept in `input`. It depends on the gate, and through
# it on the branch and its compute: Terraform destroys it, and runs this check, before them.
resource "terraform_data" "neon_teardown" {
  triggers_replace = [local.neon_project_id, local.neon_branch_id]
  input = {
    gate       = var.neon_gate
    project_id = local.neon_project_id
    branch_id  = local.neon_branch_id
  }
  depends_on = [terraform_data.neon_gate]

  provisioner "local-exec" {
    when    = destroy
    command = <<-EOT
      sh -c "$NEON_GATE"' "$@"' neon-gate --project-id "$GATE_PROJECT_ID" \
        --branch-id "$GATE_BRANCH_ID" --before delete --timeout 10m
    EOT
    environment = {
      NEON_GATE       = self.input.gate
      GATE_PROJECT_ID = self.input.project_id
      GATE_BRANCH_ID  = self.input.branch_id
    }
  }
}

# Between the compute's delete and the branch's: the gate with --before delete waits until the
# compute's delete operation is done, so the branch's delete does not meet 423 Locked. It reads the
# branch only (not the compute), and main.tf's compute depends on it: Terraform creates it before
# the compute and destroys it after.
resource "terraform_data" "neon_endpoint_deleted" {
  triggers_replace = [local.neon_project_id, local.neon_branch_id]
  input = {
    gate       = var.neon_gate
    project_id = local.neon_project_id
    branch_id  = local.neon_branch_id
  }

  provisioner "local-exec" {
    when    = destroy
    command = <<-EOT
      sh -c "$NEON_GATE"' "$@"' neon-gate --project-id "$GATE_PROJECT_ID" \
        --branch-id "$GATE_BRANCH_ID" --before delete --timeout 10m
    EOT
    environment = {
      NEON_GATE       = self.input.gate
      GATE_PROJECT_ID = self.input.project_id
      GATE_BRANCH_ID  = self.input.branch_id
    }
  }
}
