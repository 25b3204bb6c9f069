/*
 * What the local API server's world (world.ts) holds: keys with the scopes of spec 2.1, projects,
 * branches, organizations, and operations with their timelines of statuses.
 */
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
  /** `updated_at`: when it last changed; its creation unless set (a sweep judges it). */
  updatedAt?: number
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

/**
 * A compute of a branch (an endpoint). The world lists one for every compute its branch's operations
 * name, `idle` unless one is added with another state.
 */
export interface ComputeRecord {
  id: string
  projectId: string
  branchId: string
  createdAt: number
  /** `last_active`: when it last served a query; absent unless set (as for a compute never started). */
  lastActive?: number
  /** `current_state`, `pending_state` (`idle`, `active`, `init`). */
  current: string
  pending?: string
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
