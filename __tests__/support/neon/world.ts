/*
 * The state behind the local API server: keys with the scopes of spec 2.1, projects, and operations
 * that move along a timeline of statuses (timeline.ts), so a client polling them sees real
 * progress. What it holds is records.ts; api-json.ts words it as the live API does.
 */
import { randomUUID } from 'node:crypto'
import { MAIN_BRANCH, MAIN_ENDPOINT } from './ids.ts'
import type {
  ApiKey,
  BranchRecord,
  ComputeRecord,
  OperationRecord,
  OrganizationRecord,
  ProjectRecord,
  Step
} from './records.ts'
import { branchCreationTimelines, byReads, stepByReads } from './timeline.ts'

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
  /** Computes added with a state of their own, by id. */
  private readonly computes = new Map<string, ComputeRecord>()
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

  /** A compute of a branch with a state of its own (`idle` unless `current` says). */
  addCompute(
    projectId: string,
    compute: Partial<ComputeRecord> & { id: string; branchId: string }
  ): ComputeRecord {
    const record = { projectId, createdAt: this.now(), current: 'idle', ...compute }
    this.computes.set(record.id, record)
    return record
  }

  /** The branch's computes: those added, and one for every other compute its operations name. */
  computesOf(branch: BranchRecord): ComputeRecord[] {
    const added = [...this.computes.values()].filter(
      (compute) => compute.projectId === branch.projectId && compute.branchId === branch.id
    )
    const named = new Set(
      this.operationsOf(branch.projectId).flatMap((operation) =>
        operation.branchId === branch.id && operation.endpointId ? [operation.endpointId] : []
      )
    )
    for (const compute of added) named.delete(compute.id)
    const derived = [...named].map((id) => ({
      id,
      projectId: branch.projectId,
      branchId: branch.id,
      createdAt: branch.createdAt,
      current: 'idle'
    }))
    return [...added, ...derived]
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
    // Neon's shape (two words and a code): Neon's CLI takes only that as an id, anything else as a name.
    const branchId = options.branchId ?? `br-quiet-river-${randomUUID().slice(0, 8)}`
    const createMs = options.createMs ?? 3000
    const startMs = options.startMs ?? 2000
    const now = this.now()
    if (!this.branchesOf(projectId).some((branch) => branch.id === branchId)) {
      this.addBranch(projectId, { id: branchId, name: options.branchName ?? `preview/${branchId}` })
    }
    const timelines = branchCreationTimelines(options.byReads ?? false, createMs, startMs)
    const create = this.addOperation(projectId, {
      action: 'create_branch',
      branchId,
      createdAt: now,
      startOnFirstRead: options.startOnFirstRead,
      timeline: timelines.create
    })
    const start = this.addOperation(projectId, {
      action: 'start_compute',
      branchId,
      endpointId: options.endpointId ?? `ep-${randomUUID().slice(0, 8)}`,
      createdAt: now + 1,
      startOnFirstRead: options.startOnFirstRead,
      timeline: timelines.start
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
