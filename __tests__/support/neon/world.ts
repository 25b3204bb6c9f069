/*
 * The state behind the local API server: keys with the scopes of spec 2.1, projects, and operations
 * that move along a timeline of statuses, so a client polling them sees real progress.
 */
import { randomUUID } from 'node:crypto'
import { MAIN_BRANCH, MAIN_ENDPOINT } from './ids.ts'

type KeyType = 'personal' | 'organization' | 'project'

export interface ApiKey {
  token: string
  type: KeyType
  /** Who the rate limits count against: the user of a personal key, else the organization. */
  accountId: string
  /** Organizations the key reaches: a personal key's memberships, an organization key's own. */
  orgIds: string[]
  /** A project-scoped key's one project. */
  projectId?: string
  revoked: boolean
}

export interface ProjectRecord {
  id: string
  name: string
  orgId: string
  regionId: string
  pgVersion: number
  createdAt: number
}

export interface BranchRecord {
  id: string
  projectId: string
  name: string
  createdAt: number
  /** `parent_id`: the project's first branch by default; null for a root branch. */
  parentId?: string | null
  /** The project's default branch (`main`, unless set). */
  default?: boolean
  /**
   * As older answers had it: `primary` (the deprecated name of `default`) instead of `default`,
   * which is then absent.
   */
  primaryOnly?: boolean
  protected?: boolean
  /** `restricted_actions`: what the API refuses on this branch now, and why. */
  restrictedActions?: { name: string; reason: string }[]
  /** `current_state` (and `pending_state`) now; `ready` unless set. */
  state?: BranchState
  /**
   * States the next reads of this one branch (GET …/branches/{id}) see, one per read; the last one
   * stays. Lists show the state without moving it on.
   */
  statesByRead?: BranchState[]
}

interface BranchState {
  current: string
  pending?: string
}

export interface OrganizationRecord {
  id: string
  name: string
  createdAt: number
}

/**
 * One status of an operation's timeline, and how long it lasts (the last one lasts forever): `ms`
 * of the world's time, or `reads`, how many reads of the operation see it (an answer that holds
 * it: a read by id, or a page of the list). A timeline moves by one kind or the other; tests that
 * assert what a read sees move it by reads, so a slow machine cannot race them.
 */
export interface Step {
  status: string
  ms?: number
  reads?: number
}

export interface OperationRecord {
  id: string
  projectId: string
  branchId: string
  endpointId?: string
  action: string
  createdAt: number
  timeline: Step[]
  error?: string
  /**
   * The timeline (and created_at) starts when a client first sees the operation, so tests can place
   * status changes between polls whatever the client's start-up time.
   */
  startOnFirstRead?: boolean
  /** How many answers have held it; a timeline of `reads` moves on with them. */
  reads?: number
  /** With a timeline of `reads`: when the read that first saw each step came. */
  enteredAt?: number[]
}

const FINAL = new Set(['finished', 'skipped', 'cancelled', 'error'])

export class World {
  readonly keys = new Map<string, ApiKey>()
  readonly projects: ProjectRecord[] = []
  readonly organizations = new Map<string, OrganizationRecord>()
  /** The most operations a page holds, whatever `limit` asks (a server may cap it). */
  operationsPageCap = Infinity
  /** The most branches a page holds, whatever `limit` asks. */
  branchesPageCap = Infinity
  /** Projects a list says it could not read right now (`unavailable_project_ids`). */
  readonly unavailableProjectIds: string[] = []
  /** Per project, newest first. */
  private readonly operations = new Map<string, OperationRecord[]>()
  /** Per project, oldest first. */
  private readonly branches = new Map<string, BranchRecord[]>()
  now: () => number

  constructor(now: () => number = Date.now) {
    this.now = now
  }

  addKey(key: Omit<ApiKey, 'revoked'> & { revoked?: boolean }): ApiKey {
    const record = { revoked: false, ...key }
    this.keys.set(key.token, record)
    return record
  }

  addOrganization(id: string, name: string): OrganizationRecord {
    const record = { id, name, createdAt: this.now() - 30 * 86_400_000 }
    this.organizations.set(id, record)
    return record
  }

  /** The branch as a read of it alone sees it now: its scripted state moves on by one. */
  readBranch(branch: BranchRecord): BranchRecord {
    const next = branch.statesByRead?.shift()
    if (next) branch.state = next
    return branch
  }

  addProject(project: Partial<ProjectRecord> & { id: string; orgId: string }): ProjectRecord {
    const record: ProjectRecord = {
      name: project.id,
      regionId: 'aws-us-east-2',
      pgVersion: 17,
      createdAt: this.now() - 86_400_000,
      ...project
    }
    this.projects.push(record)
    this.operations.set(record.id, [])
    this.branches.set(record.id, [])
    this.addBranch(record.id, {
      id: MAIN_BRANCH,
      name: 'main',
      createdAt: record.createdAt,
      parentId: null,
      default: true
    })
    return record
  }

  addBranch(projectId: string, branch: Partial<BranchRecord> & { id: string }): BranchRecord {
    const list = this.branches.get(projectId)
    if (!list) throw new Error(`no project ${projectId}`)
    // A new branch is a child of the project's first one (main), unless it says otherwise.
    const record = {
      projectId,
      name: branch.id,
      createdAt: this.now(),
      parentId: list[0]?.id ?? null,
      ...branch
    }
    list.push(record)
    return record
  }

  branchesOf(projectId: string): BranchRecord[] {
    return this.branches.get(projectId) ?? []
  }

  project(id: string): ProjectRecord | undefined {
    return this.projects.find((project) => project.id === id)
  }

  addOperation(
    projectId: string,
    operation: Partial<OperationRecord> & { action: string; timeline: Step[] }
  ): OperationRecord {
    const list = this.operations.get(projectId)
    if (!list) throw new Error(`no project ${projectId}`)
    const record: OperationRecord = {
      id: randomUUID(),
      projectId,
      branchId: MAIN_BRANCH,
      createdAt: this.now(),
      ...operation
    }
    list.push(record)
    list.sort((a, b) => b.createdAt - a.createdAt)
    return record
  }

  /**
   * What a create-branch request starts (spec 4.3): create_branch (running) and start_compute
   * (scheduling), one millisecond apart.
   */
  createBranch(
    projectId: string,
    options: {
      branchId?: string
      /** The new branch's name; `preview/<id>` by default. */
      branchName?: string
      endpointId?: string
      createMs?: number
      startMs?: number
      startOnFirstRead?: boolean
      /**
       * Move on by reads instead of time: create_branch running for 2 reads (final on its third),
       * start_compute scheduling for 2 and running for 1 (final on its fourth).
       */
      byReads?: boolean
    } = {}
  ): [OperationRecord, OperationRecord] {
    const branchId = options.branchId ?? `br-${randomUUID().slice(0, 8)}`
    const createMs = options.createMs ?? 3000
    const startMs = options.startMs ?? 2000
    const now = this.now()
    if (!this.branchesOf(projectId).some((branch) => branch.id === branchId)) {
      this.addBranch(projectId, { id: branchId, name: options.branchName ?? `preview/${branchId}` })
    }
    const create = this.addOperation(projectId, {
      action: 'create_branch',
      branchId,
      createdAt: now,
      startOnFirstRead: options.startOnFirstRead,
      timeline: options.byReads
        ? [{ status: 'running', reads: 2 }, { status: 'finished' }]
        : [{ status: 'running', ms: createMs }, { status: 'finished' }]
    })
    const start = this.addOperation(projectId, {
      action: 'start_compute',
      branchId,
      endpointId: options.endpointId ?? `ep-${randomUUID().slice(0, 8)}`,
      createdAt: now + 1,
      startOnFirstRead: options.startOnFirstRead,
      timeline: options.byReads
        ? [
            { status: 'scheduling', reads: 2 },
            { status: 'running', reads: 1 },
            { status: 'finished' }
          ]
        : [
            { status: 'scheduling', ms: createMs },
            { status: 'running', ms: startMs },
            { status: 'finished' }
          ]
    })
    return [create, start]
  }

  /** `count` finished operations of the past, one every `everyMs`, the newest `ageMs` old. */
  addHistory(projectId: string, count: number, options: { everyMs?: number; ageMs?: number } = {}) {
    const everyMs = options.everyMs ?? 600_000
    const start = this.now() - (options.ageMs ?? 60_000)
    const actions = ['check_availability', 'suspend_compute', 'start_compute', 'apply_config']
    for (let i = 0; i < count; i++) {
      this.addOperation(projectId, {
        action: actions[i % actions.length],
        endpointId: MAIN_ENDPOINT,
        createdAt: start - i * everyMs,
        timeline: [{ status: 'running', ms: 1500 + (i % 7) * 300 }, { status: 'finished' }]
      })
    }
  }

  operationsOf(projectId: string): OperationRecord[] {
    return this.operations.get(projectId) ?? []
  }

  /** A client is reading these operations now: start the timelines that wait for that. */
  observe(projectId: string, operations: OperationRecord[]): void {
    const starting = operations.filter((operation) => operation.startOnFirstRead)
    if (starting.length === 0) return
    // Shift them together, keeping their order (create_branch before start_compute).
    const shift = this.now() - Math.min(...starting.map((operation) => operation.createdAt))
    for (const operation of starting) {
      operation.startOnFirstRead = false
      operation.createdAt += shift
    }
    this.operationsOf(projectId).sort((a, b) => b.createdAt - a.createdAt)
  }

  /** These operations are in an answer now: timelines of `reads` move on by one read. */
  read(operations: OperationRecord[]): void {
    const now = this.now()
    for (const operation of operations) {
      operation.reads = (operation.reads ?? 0) + 1
      if (!byReads(operation)) continue
      const entered = (operation.enteredAt ??= [operation.createdAt])
      entered[stepByReads(operation).index] ??= now
    }
  }

  operation(projectId: string, id: string): OperationRecord | undefined {
    return this.operationsOf(projectId).find((operation) => operation.id === id)
  }
}

const byReads = (operation: OperationRecord) =>
  operation.timeline.some((step) => step.reads !== undefined)

/** The step the last read saw, of a timeline of `reads`, and the `failed` steps up to it. */
function stepByReads(operation: OperationRecord): { index: number; failures: number } {
  let seen = 0
  let failures = 0
  const last = operation.timeline.length - 1
  for (let index = 0; index <= last; index++) {
    const step = operation.timeline[index]
    if (step.status === 'failed') failures++
    seen += step.reads ?? Infinity
    if ((operation.reads ?? 0) <= seen || index === last) return { index, failures }
  }
  throw new Error('empty timeline')
}

/** Where an operation is on its timeline at `now` (or, by reads, at its last read). */
function operationState(operation: OperationRecord, now: number) {
  if (byReads(operation)) {
    const { index, failures } = stepByReads(operation)
    const enteredAt = operation.enteredAt?.[index] ?? operation.createdAt
    return { status: operation.timeline[index].status, enteredAt, endsAt: NaN, failures }
  }
  const elapsed = now - operation.createdAt
  let start = 0
  let failures = 0
  for (let i = 0; i < operation.timeline.length; i++) {
    const step = operation.timeline[i]
    if (step.status === 'failed') failures++
    const end = step.ms === undefined ? Infinity : start + step.ms
    if (elapsed < end || i === operation.timeline.length - 1) {
      return {
        status: step.status,
        enteredAt: operation.createdAt + start,
        endsAt: operation.createdAt + end,
        failures
      }
    }
    start = end
  }
  throw new Error('empty timeline')
}

const iso = (ms: number) => new Date(ms).toISOString()

/** The operation as the live API sends it, extra fields included. */
export function operationJson(operation: OperationRecord, now: number) {
  const state = operationState(operation, now)
  const json: Record<string, unknown> = {
    id: operation.id,
    project_id: operation.projectId,
    branch_id: operation.branchId,
    action: operation.action,
    status: state.status,
    failures_count: state.failures,
    created_at: iso(operation.createdAt),
    updated_at: iso(state.enteredAt)
  }
  if (operation.endpointId) json.endpoint_id = operation.endpointId
  if (state.status === 'failed') {
    json.error = operation.error ?? 'compute failed to start; the control plane will retry'
    if (Number.isFinite(state.endsAt)) json.retry_at = iso(state.endsAt)
  }
  if (state.status === 'error') json.error = operation.error ?? 'operation failed'
  if (state.status === 'cancelled' && operation.error) json.error = operation.error
  // Required on every operation; 0 until it is final, as the live API sends it.
  json.total_duration_ms = FINAL.has(state.status) ? state.enteredAt - operation.createdAt : 0
  return json
}

/** The branch as the live API sends it, extra fields included, every field the document requires. */
export function branchJson(branch: BranchRecord) {
  const state = branch.state ?? { current: 'ready' }
  return {
    id: branch.id,
    project_id: branch.projectId,
    ...(branch.parentId ? { parent_id: branch.parentId } : {}),
    name: branch.name,
    current_state: state.current,
    ...(state.pending ? { pending_state: state.pending } : {}),
    state_changed_at: iso(branch.createdAt),
    creation_source: 'console',
    ...(branch.primaryOnly
      ? { primary: branch.default ?? false }
      : { default: branch.default ?? false }),
    protected: branch.protected ?? false,
    ...(branch.restrictedActions ? { restricted_actions: branch.restrictedActions } : {}),
    cpu_used_sec: 0,
    compute_time_seconds: 0,
    active_time_seconds: 0,
    written_data_bytes: 0,
    data_transfer_bytes: 0,
    created_at: iso(branch.createdAt),
    updated_at: iso(branch.createdAt)
  }
}

/** The organization as `GET /users/me/organizations` lists it. */
export function organizationJson(organization: OrganizationRecord) {
  return {
    id: organization.id,
    name: organization.name,
    handle: organization.id,
    plan: 'scale',
    created_at: iso(organization.createdAt),
    updated_at: iso(organization.createdAt),
    managed_by: 'console'
  }
}

/** The project as the live API lists it, extra fields included. */
export function projectJson(project: ProjectRecord) {
  return {
    id: project.id,
    platform_id: 'aws',
    region_id: project.regionId,
    name: project.name,
    provisioner: 'k8s-neonvm',
    default_endpoint_settings: { autoscaling_limit_min_cu: 0.25, autoscaling_limit_max_cu: 2 },
    settings: { allowed_ips: { ips: [] }, enable_logical_replication: false },
    pg_version: project.pgVersion,
    proxy_host: `${project.regionId.replace(/^aws-/, '')}.aws.neon.tech`,
    branch_logical_size_limit: 512,
    branch_logical_size_limit_bytes: 536_870_912,
    store_passwords: true,
    active_time: 0,
    cpu_used_sec: 0,
    creation_source: 'console',
    created_at: iso(project.createdAt),
    updated_at: iso(project.createdAt),
    owner_id: 'user-local-0001',
    org_id: project.orgId,
    history_retention_seconds: 86_400
  }
}
