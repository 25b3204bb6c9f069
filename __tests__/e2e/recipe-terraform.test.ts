/*
 * The Terraform recipe, examples/command/terraform/, as far as this machine allows: the gate and
 * the migrations on apply, the gate with --before delete on destroy. Neon's provider
 * (kislerdm/neon) cannot be downloaded here (no registry but npm's), so its part, main.tf, is
 * checked statically: `terraform fmt -check` parses both files, main.tf names the provider and
 * defines every `local.neon_*` that gate.tf reads. gate.tf, the gate and the migrations, runs for
 * real with `terraform apply` (terraform_data is built in: init downloads nothing), over a
 * stand-in for main.tf that gives the same locals from variables: the command against the local
 * API server, the database check and the migrations on the suite's real PostgreSQL. Where no
 * `terraform` is on the PATH, its tests fail under CI=true and are skipped elsewhere (itWith).
 */
import { describe, expect, it } from '@jest/globals'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import { join } from 'node:path'
import { runCommandBundle } from '../support/bundles/run-bundle.ts'
import { inTempDir } from '../support/bundles/command.js'
import { secretForms } from '../support/bundles/action.js'
import { freshDatabase } from '../support/postgres/databases.js'
import {
  branches,
  gateCommandLine,
  itWith,
  migration,
  migrations,
  root
} from '../support/bundles/recipes.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

const RECIPE = join(root, 'examples', 'command', 'terraform')
const read = (file: string) => readFileSync(join(RECIPE, file), 'utf8')
const withTerraform = itWith('terraform')

/** main.tf's part for the test: the branch and its database URL, given as variables. */
const STAND_IN = `
variable "project_id" {
  type = string
}
variable "branch_id" {
  type = string
}
variable "database_url" {
  type      = string
  sensitive = true
}
locals {
  neon_project_id   = var.project_id
  neon_branch_id    = var.branch_id
  neon_database_url = var.database_url
}
`

const environment = (dir: string, env: Record<string, string>) => ({
  HOME: dir,
  // No configuration file, no hints for people, no call home to HashiCorp.
  TF_CLI_CONFIG_FILE: '/dev/null',
  TF_IN_AUTOMATION: '1',
  CHECKPOINT_DISABLE: '1',
  ...env
})

const terraformRun = (dir: string, cwd: string, env: Record<string, string>, args: string[]) =>
  runCommandBundle([], environment(dir, env), {
    program: ['terraform', ...args, '-no-color'],
    cwd
  })

describe('Terraform: main.tf, the provider part, checked statically', () => {
  const main = read('main.tf')

  withTerraform('terraform fmt -check parses and passes both files', async () => {
    await inTempDir(async (dir) => {
      const run = await terraformRun(dir, RECIPE, {}, ['fmt', '-check', '-diff'])
      expect([run.code, run.stdout]).toEqual([0, ''])
    })
  })

  it("names Neon's provider with a version, and creates the branch and its compute", () => {
    expect(main).toMatch(/source {2}= "kislerdm\/neon"\n\s+version = "~> 0\.15\.0"/)
    expect(main).toContain('resource "neon_branch" "preview"')
    expect(main).toMatch(
      /resource "neon_endpoint" "preview" \{[^}]*branch_id {2}= neon_branch\.preview\.id/
    )
  })

  it('defines every local that gate.tf reads, as the stand-in does', () => {
    const used = [
      ...new Set([...read('gate.tf').matchAll(/\blocal\.([a-z_]*[a-z])\b/g)].map((m) => m[1]))
    ]
    const defined = (text: string) =>
      [...(/locals \{([\s\S]*?)\n\}/.exec(text)?.[1] ?? '').matchAll(/^ {2}(\w+)\s*=/gm)]
        .map((match) => match[1])
        .sort()
    expect(used.sort()).toEqual(['neon_branch_id', 'neon_database_url', 'neon_project_id'])
    expect(defined(main)).toEqual(used)
    expect(defined(STAND_IN)).toEqual(used)
  })
})

describe('Terraform: gate.tf as written', () => {
  const gate = read('gate.tf')

  it("keeps the database URL in a file of each resource's own, so that instances side by side (for_each) never read each other's", () => {
    const files = [...gate.matchAll(/URL_FILE\s*=\s*"([^"]+)"/g)].map((match) => match[1])
    expect(files).toEqual([
      '.neon-gate-${self.id}.url',
      '.neon-gate-${self.id}.url',
      '.neon-migrate-${self.id}.url',
      '.neon-migrate-${self.id}.url'
    ])
    expect(gate).not.toMatch(/\.neon-(gate|migrate)-database-url/)
    // A missing file is no migration against an empty DATABASE_URL.
    expect(gate).toContain('[ -s "$URL_FILE" ] ||')
  })

  it('runs the commands through a shell, so that quotes in them work', () => {
    expect(gate).toContain('DATABASE_URL="$(cat "$URL_FILE")" sh -c "$MIGRATE"')
    expect(gate.match(/sh -c "\$NEON_GATE"' "\$@"' neon-gate/g)).toHaveLength(2)
    expect(gate).not.toMatch(/^\s*\$(MIGRATE|NEON_GATE)\b/m)
  })

  it('has a destroy-time step that runs the gate with --before delete, from what it kept in input', () => {
    const teardown =
      /resource "terraform_data" "neon_teardown" \{[\s\S]*?\n\}/.exec(gate)?.[0] ?? ''
    expect(teardown).toContain('when    = destroy')
    expect(teardown).toContain('--before delete')
    expect(teardown).toContain('depends_on = [terraform_data.neon_gate]')
    // A destroy-time provisioner may read only self.
    expect(teardown.split('provisioner')[1]).not.toMatch(/\b(var|local)\./)
  })

  it('asks for neon_gate plainly: nothing is on npm before the first release', () => {
    const variable = /variable "neon_gate" \{[\s\S]*?\n\}/.exec(gate)![0]
    expect(variable).not.toContain('default')
    expect(variable).toContain('github:OWNER/neon-operations-gate#<full commit SHA>')
  })
})

describe('Terraform: gate.tf, the gate and the migrations, applied', () => {
  withTerraform(
    'gates, then migrates; the same branch again changes nothing; another branch gates and migrates again; a failed one fails the apply',
    async () => {
      const { world, server, ready, failing } = await branches()
      const other = 'br-ready-000008'
      world.addBranch(PROJECT, { id: other, name: 'ready-again' })
      const password = 'terraform-database-password'
      const database = await freshDatabase(password)
      await inTempDir(async (dir) => {
        const work = join(dir, 'work')
        mkdirSync(work)
        copyFileSync(join(RECIPE, 'gate.tf'), join(work, 'gate.tf'))
        writeFileSync(join(work, 'neon.tf'), STAND_IN)
        const apply = (branchId: string) =>
          terraformRun(
            dir,
            work,
            {
              TF_VAR_neon_gate: gateCommandLine(server),
              TF_VAR_migrate_command: migration(dir),
              TF_VAR_project_id: PROJECT,
              TF_VAR_branch_id: branchId,
              TF_VAR_database_url: database.url(),
              NEON_API_KEY: KEYS.organization
            },
            ['apply', '-auto-approve', '-input=false']
          )
        const init = await terraformRun(dir, work, {}, ['init', '-input=false'])
        expect(init.code).toBe(0)

        const first = await apply(ready)
        expect(first.code).toBe(0)
        // The silent provisioner hides its own output only: the gate's report and the migration's
        // line are in the log.
        expect(first.stdout).toContain('(output suppressed due to sensitive value in config)')
        expect(first.stdout).toMatch(/terraform_data\.neon_gate \(local-exec\): .*success/)
        expect(first.stdout).toMatch(/terraform_data\.migrate \(local-exec\): migrated/)
        expect(await migrations(database.url())).toBe(1)

        const again = await apply(ready)
        expect([again.code, again.stdout]).toEqual([
          0,
          expect.stringContaining('0 added, 0 changed, 0 destroyed')
        ])
        expect(await migrations(database.url())).toBe(1)

        const replaced = await apply(other)
        expect(replaced.code).toBe(0)
        // The gate, the migrations and the check before a delete, each for the new branch; the
        // old branch was checked first (the provider would delete it next).
        expect(replaced.stdout).toContain('3 added, 0 changed, 3 destroyed')
        expect(replaced.stdout).toMatch(
          /terraform_data\.neon_teardown \(local-exec\): .*br-ready-000007.*can be deleted now/
        )
        expect(await migrations(database.url())).toBe(2)

        const failed = await apply(failing)
        expect(failed.code).toBe(1)
        expect(failed.stderr.replace(/\s+/g, ' ')).toContain('exit status 1')
        expect(failed.stdout).not.toMatch(/terraform_data\.migrate \(local-exec\): migrated/)
        expect(await migrations(database.url())).toBe(2)

        // The URL files are gone, and no secret is in the logs or the state.
        expect(
          readdirSync(work).filter((file) => file.startsWith('.neon-') && file.endsWith('.url'))
        ).toEqual([])
        const state = readFileSync(join(work, 'terraform.tfstate'), 'utf8')
        for (const run of [first, again, replaced, failed]) {
          for (const secret of [KEYS.organization, password].flatMap(secretForms)) {
            expect(run.stdout + run.stderr + state).not.toContain(secret)
          }
        }
      })
    },
    120_000
  )
})

describe('Terraform: gate.tf, destroyed', () => {
  withTerraform(
    "a branch with a child fails the destroy with the gate's reason and keeps the check; once the child is gone the destroy passes; a gone branch passes",
    async () => {
      const { world, server } = await branches()
      world.addBranch(PROJECT, { id: 'br-preview-tf-000001', name: 'preview/tf-1' })
      const child = world.addBranch(PROJECT, {
        id: 'br-preview-tf-000002',
        name: 'preview/tf-1-debug',
        parentId: 'br-preview-tf-000001'
      })
      world.addBranch(PROJECT, { id: 'br-preview-tf-000003', name: 'preview/tf-3' })
      const database = await freshDatabase('terraform-destroy-password')
      await inTempDir(async (dir) => {
        const run = async (work: string, branchId: string, command: string) => {
          if (!existsSync(work)) {
            mkdirSync(work)
            copyFileSync(join(RECIPE, 'gate.tf'), join(work, 'gate.tf'))
            writeFileSync(join(work, 'neon.tf'), STAND_IN)
            expect((await terraformRun(dir, work, {}, ['init', '-input=false'])).code).toBe(0)
          }
          return terraformRun(
            dir,
            work,
            {
              TF_VAR_neon_gate: gateCommandLine(server),
              TF_VAR_migrate_command: migration(dir),
              TF_VAR_project_id: PROJECT,
              TF_VAR_branch_id: branchId,
              TF_VAR_database_url: database.url(),
              NEON_API_KEY: KEYS.organization
            },
            [command, '-auto-approve', '-input=false']
          )
        }
        const blockedDir = join(dir, 'blocked')
        expect((await run(blockedDir, 'br-preview-tf-000001', 'apply')).code).toBe(0)
        const blocked = await run(blockedDir, 'br-preview-tf-000001', 'destroy')
        expect(blocked.code).toBe(1)
        const said = (blocked.stdout + blocked.stderr).replace(/\s+/g, ' ')
        expect(said).toContain(
          'Branch preview/tf-1 (br-preview-tf-000001) cannot be deleted: it has 1 child branch, to delete first: preview/tf-1-debug (br-preview-tf-000002)'
        )
        expect(said).toContain('exit status 1')
        // The check stays, and runs again next time; so does the gate, and through it the branch
        // and its compute (main.tf), which Terraform destroys only after the check. (The
        // migrations' resource, which holds nothing, goes meanwhile.)
        const state = readFileSync(join(blockedDir, 'terraform.tfstate'), 'utf8')
        expect(state).toContain('"neon_teardown"')
        expect(state).toContain('"neon_gate"')

        const branches = world.branchesOf(PROJECT)
        branches.splice(branches.indexOf(child), 1)
        const cleared = await run(blockedDir, 'br-preview-tf-000001', 'destroy')
        expect(cleared.code).toBe(0)
        expect(cleared.stdout).toMatch(
          /terraform_data\.neon_teardown \(local-exec\): .*can be deleted now/
        )
        expect(cleared.stdout).toContain('Destroy complete! Resources: 2 destroyed.')

        // A branch deleted meanwhile (by hand, say): nothing to delete, and the destroy passes.
        const goneDir = join(dir, 'gone')
        expect((await run(goneDir, 'br-preview-tf-000003', 'apply')).code).toBe(0)
        branches.splice(
          branches.findIndex((branch) => branch.id === 'br-preview-tf-000003'),
          1
        )
        const gone = await run(goneDir, 'br-preview-tf-000003', 'destroy')
        expect(gone.code).toBe(0)
        expect(gone.stdout).toMatch(
          /terraform_data\.neon_teardown \(local-exec\): .*nothing to delete/
        )

        for (const each of [blocked, cleared, gone]) {
          for (const secret of secretForms(KEYS.organization)) {
            expect(each.stdout + each.stderr).not.toContain(secret)
          }
        }
      })
    },
    180_000
  )
})
