/*
 * The Terraform recipe, examples/command/terraform/, as far as this machine allows: a root module
 * (main.tf: the provider, and the module under for_each) and the module modules/neon-preview/ (the
 * gate and the migrations on apply, the gate with --before delete on destroy). Neon's provider
 * (kislerdm/neon) cannot be downloaded here (no registry but npm's), so neither `terraform init`
 * nor `terraform validate` can run on the recipe as written: its provider parts are checked
 * statically (`terraform fmt -check` parses every file; the module has no provider block, declares
 * what the root passes and reads, and defines every `local.neon_*`). The module's gate.tf and
 * outputs.tf run for real with `terraform apply` (terraform_data is built in: init downloads
 * nothing), over a stand-in for main.tf that gives the same locals from variables, alone and as a
 * module under for_each: the command against the local API server, the database check and the
 * migrations on the suite's real PostgreSQL. Where no `terraform` is on the PATH, its tests fail
 * under CI=true and are skipped elsewhere (itWith).
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
import { terraform } from '../support/bundles/recipe-tools.js'
import { KEYS, PROJECT } from '../support/neon/ids.js'

const RECIPE = join(root, 'examples', 'command', 'terraform')
const MODULE = join('modules', 'neon-preview')
const read = (file: string) => readFileSync(join(RECIPE, file), 'utf8')
/** The module's files that run here, without the provider: all but main.tf. */
const RUNNABLE = ['gate.tf', 'outputs.tf']
const withTerraform = itWith('terraform')

/**
 * main.tf's part for the test: the branch and its database URL, given as variables, and a stand-in
 * for the compute, ordered as main.tf orders neon_endpoint (replaced with the branch, created after
 * and destroyed before neon_endpoint_deleted).
 */
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
resource "terraform_data" "endpoint" {
  triggers_replace = [var.branch_id]
  input            = var.branch_id
  depends_on       = [terraform_data.neon_endpoint_deleted]
}
locals {
  neon_project_id = var.project_id
  neon_branch_id  = var.branch_id
  # Known once the compute is, as main.tf's (it names the compute's host); not in the state.
  neon_database_url = terraform_data.endpoint.output == var.branch_id ? var.database_url : ""
}
`

/** The module's runnable files and the stand-in, into `work`. */
const copyModule = (work: string) => {
  mkdirSync(work, { recursive: true })
  for (const file of RUNNABLE) copyFileSync(join(RECIPE, MODULE, file), join(work, file))
  writeFileSync(join(work, 'neon.tf'), STAND_IN)
}

/** Terraform's blocks of a kind in a file: `variable "x" {…}` → x. */
const declared = (text: string, kind: string) =>
  [...text.matchAll(new RegExp(`^${kind} "(\\w+)" \\{`, 'gm'))].map((match) => match[1]).sort()

/**
 * `terraform <command> -auto-approve` in `work`: the gate and the migration as the root hands them
 * to the module, against the local API server, the key, and the root's `variables`.
 */
const applyOrDestroy = (
  dir: string,
  work: string,
  server: { apiHost: string },
  variables: Record<string, string>,
  command: 'apply' | 'destroy' = 'apply'
) =>
  terraform(
    dir,
    work,
    {
      TF_VAR_neon_gate: gateCommandLine(server),
      TF_VAR_migrate_command: migration(dir),
      ...variables,
      NEON_API_KEY: KEYS.organization
    },
    [command, '-auto-approve', '-input=false']
  )

/** The stand-in's variables: the project, the branch and its database's URL. */
const standIn = (branchId: string, database: { url: () => string }) => ({
  TF_VAR_project_id: PROJECT,
  TF_VAR_branch_id: branchId,
  TF_VAR_database_url: database.url()
})

describe('Terraform: the root and the module, checked statically', () => {
  const rootMain = read('main.tf')
  const main = read(join(MODULE, 'main.tf'))
  const moduleText = ['main.tf', ...RUNNABLE].map((file) => read(join(MODULE, file))).join('\n')
  const moduleBlock = /^module "preview" \{([\s\S]*?)\n\}/m.exec(rootMain)?.[1] ?? ''

  withTerraform("terraform fmt -check parses and passes every file, the module's too", async () => {
    await inTempDir(async (dir) => {
      const run = await terraform(dir, RECIPE, {}, ['fmt', '-check', '-diff', '-recursive'])
      expect([run.code, run.stdout]).toEqual([0, ''])
    })
  })

  it('the module has no provider block (it could not run under for_each), and the root has the only one', () => {
    expect(readdirSync(join(RECIPE, MODULE)).sort()).toEqual(['gate.tf', 'main.tf', 'outputs.tf'])
    expect(moduleText).not.toMatch(/^\s*provider\s+"/m)
    expect(rootMain.match(/^provider "neon" \{\}/gm)).toHaveLength(1)
  })

  it("names Neon's provider with a version in both, and the module creates the branch and its compute", () => {
    for (const text of [rootMain, main])
      expect(text).toMatch(/source {2}= "kislerdm\/neon"\n\s+version = "~> 0\.15\.0"/)
    expect(main).toContain('resource "neon_branch" "preview"')
    expect(main).toMatch(
      /resource "neon_endpoint" "preview" \{[^}]*branch_id {2}= neon_branch\.preview\.id/
    )
  })

  it('the root calls the module under for_each, passing only what it declares and every input it has no default for', () => {
    expect(moduleBlock).toMatch(/^\s+source {3}= "\.\/modules\/neon-preview"$/m)
    expect(moduleBlock).toMatch(/^\s+for_each = var\.branches$/m)
    const passed = [...moduleBlock.matchAll(/^ {2}(\w+)\s*=/gm)]
      .map((match) => match[1])
      .filter((name) => !['source', 'for_each'].includes(name))
      .sort()
    const variables = declared(moduleText, 'variable')
    expect(passed.filter((name) => !variables.includes(name))).toEqual([])
    const required = variables.filter(
      (name) => !new RegExp(`variable "${name}" \\{[^}]*?\\n {2}default\\s*=`).test(moduleText)
    )
    expect(required).toEqual(['branch_name', 'neon_gate', 'project_id'])
    expect(required.filter((name) => !passed.includes(name))).toEqual([])
  })

  it('the module gives the outputs the root reads: the branch, its database URL (sensitive), the migrations', () => {
    const outputs = read(join(MODULE, 'outputs.tf'))
    expect(declared(outputs, 'output')).toEqual(['branch_id', 'database_url', 'migrated'])
    expect(/output "database_url" \{[^}]*sensitive {3}= true/.exec(outputs)).not.toBeNull()
    const readByRoot = [...rootMain.matchAll(/\bpreview\.(\w+)/g)].map((match) => match[1])
    expect(readByRoot.sort()).toEqual(['branch_id', 'database_url'])
  })

  it('defines every local that gate.tf and outputs.tf read, as the stand-in does', () => {
    const used = [
      ...new Set(
        RUNNABLE.flatMap((file) =>
          [...read(join(MODULE, file)).matchAll(/\blocal\.([a-z_]*[a-z])\b/g)].map((m) => m[1])
        )
      )
    ]
    const defined = (text: string) =>
      [...(/locals \{([\s\S]*?)\n\}/.exec(text)?.[1] ?? '').matchAll(/^ {2}(\w+)\s*=/gm)]
        .map((match) => match[1])
        .sort()
    expect(used.sort()).toEqual(['neon_branch_id', 'neon_database_url', 'neon_project_id'])
    expect(defined(main)).toEqual(used)
    expect(defined(STAND_IN)).toEqual(used)
  })

  it("orders the compute's delete before a check, and the check before the branch's delete (no 423 Locked)", () => {
    const endpoint = /resource "neon_endpoint" "preview" \{[\s\S]*?\n\}/.exec(main)?.[0] ?? ''
    expect(endpoint).toContain('depends_on = [terraform_data.neon_endpoint_deleted]')
    // The check reads the branch only: through local.neon_branch_id, which is the branch's id.
    expect(main).toMatch(/^ {2}neon_branch_id {2}= neon_branch\.preview\.id$/m)
    const check =
      /resource "terraform_data" "neon_endpoint_deleted" \{[\s\S]*?\n\}/.exec(
        read(join(MODULE, 'gate.tf'))
      )?.[0] ?? ''
    expect(check).toContain('when    = destroy')
    expect(check).toContain('--before delete')
    expect(check).not.toMatch(/neon_database_url|neon_endpoint\.|depends_on/)
  })
})

describe('Terraform: gate.tf as written', () => {
  const gate = read(join(MODULE, 'gate.tf'))

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
    expect(gate.match(/sh -c "\$NEON_GATE"' "\$@"' neon-gate/g)).toHaveLength(3)
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
    for (const text of [gate, read('main.tf')]) {
      const variable = /variable "neon_gate" \{[\s\S]*?\n\}/.exec(text)![0]
      expect(variable).not.toContain('default')
      expect(variable).toContain('github:OWNER/neon-operations-gate#<full commit SHA>')
    }
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
        copyModule(work)
        const apply = (branchId: string) =>
          applyOrDestroy(dir, work, server, standIn(branchId, database))
        const init = await terraform(dir, work, {}, ['init', '-input=false'])
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
        // The gate, the migrations, the compute (the stand-in's) and both checks before a delete,
        // each for the new branch; the old branch was checked first, and again once its compute
        // was gone (the provider would delete the branch next).
        expect(replaced.stdout).toContain('5 added, 0 changed, 5 destroyed')
        expect(replaced.stdout).toMatch(
          /terraform_data\.endpoint: Destruction complete[\s\S]*terraform_data\.neon_endpoint_deleted \(local-exec\): .*br-ready-000007.*can be deleted now/
        )
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
        // The module's database_url output is the URL, for a deploy: the state keeps it as the
        // provider's own state does (docs/recipes.md), marked sensitive. The resources keep none.
        const { outputs, ...resources } = JSON.parse(
          readFileSync(join(work, 'terraform.tfstate'), 'utf8')
        ) as { outputs: Record<string, { sensitive?: boolean }> }
        expect(outputs.database_url.sensitive).toBe(true)
        const state = JSON.stringify(resources)
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
        const run = async (work: string, branchId: string, command: 'apply' | 'destroy') => {
          if (!existsSync(work)) {
            copyModule(work)
            expect((await terraform(dir, work, {}, ['init', '-input=false'])).code).toBe(0)
          }
          return applyOrDestroy(dir, work, server, standIn(branchId, database), command)
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
        expect(cleared.stdout).toContain('Destroy complete! Resources: 4 destroyed.')
        // The compute goes first, then the check that its delete is done, and only then the branch.
        expect(cleared.stdout).toMatch(
          /terraform_data\.endpoint: Destruction complete[\s\S]*terraform_data\.neon_endpoint_deleted \(local-exec\): .*can be deleted now/
        )

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

describe('Terraform: the module under for_each', () => {
  withTerraform(
    "two instances side by side: each gates and migrates its own branch's database; removing a key checks and destroys that one only",
    async () => {
      const { world, server, ready } = await branches()
      const other = 'br-ready-000009'
      world.addBranch(PROJECT, { id: other, name: 'ready-two' })
      const first = await freshDatabase('terraform-each-one')
      const second = await freshDatabase('terraform-each-two')
      await inTempDir(async (dir) => {
        const work = join(dir, 'work')
        copyModule(join(work, MODULE))
        // The root as main.tf calls the module, with the stand-in's inputs for the provider's.
        writeFileSync(
          join(work, 'main.tf'),
          `
variable "branches" {
  type = map(string)
}
variable "database_urls" {
  type      = map(string)
  sensitive = true
}
variable "neon_gate" {
  type = string
}
variable "migrate_command" {
  type = string
}
module "preview" {
  source   = "./modules/neon-preview"
  for_each = var.branches

  project_id      = "${PROJECT}"
  branch_id       = each.value
  database_url    = var.database_urls[each.key]
  neon_gate       = var.neon_gate
  migrate_command = var.migrate_command
}
output "branch_ids" {
  value = { for key, preview in module.preview : key => preview.branch_id }
}
`
        )
        expect((await terraform(dir, work, {}, ['init', '-input=false'])).code).toBe(0)
        const apply = (keys: Record<string, string>) =>
          applyOrDestroy(dir, work, server, {
            TF_VAR_branches: JSON.stringify(keys),
            TF_VAR_database_urls: JSON.stringify({ one: first.url(), two: second.url() })
          })
        const both = await apply({ one: ready, two: other })
        expect(both.code).toBe(0)
        for (const key of ['one', 'two'])
          expect(both.stdout).toMatch(
            new RegExp(
              `module\\.preview\\["${key}"\\]\\.terraform_data\\.migrate \\(local-exec\\): migrated`
            )
          )
        expect(both.stdout).toContain(
          `branch_ids = {\n  "one" = "${ready}"\n  "two" = "${other}"\n}`
        )
        expect([await migrations(first.url()), await migrations(second.url())]).toEqual([1, 1])

        const one = await apply({ one: ready })
        expect(one.code).toBe(0)
        expect(one.stdout).toContain('0 added, 0 changed, 5 destroyed')
        expect(one.stdout).toMatch(
          new RegExp(
            `module\\.preview\\["two"\\]\\.terraform_data\\.neon_teardown \\(local-exec\\): .*${other}.*can be deleted now`
          )
        )
        expect(one.stdout).not.toMatch(/module\.preview\["one"\]\.terraform_data\.\w+: Destroying/)
        expect(
          readdirSync(join(work, MODULE))
            .concat(readdirSync(work))
            .filter((file) => file.endsWith('.url'))
        ).toEqual([])
      })
    },
    120_000
  )
})
