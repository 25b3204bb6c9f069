/**
 * The management API as the action reads it, the way Neon's SDK (neondatabase/neon-pkgs) lays it
 * out: one small request core (src/api/api-core.ts) and a reader per resource
 * (src/api/resources/), each with its schema and its answer checks. The wait loop and the sources
 * depend on the readers' small interfaces, never on this whole.
 */
import { ApiCore, type ApiCoreOptions, type RequestStats } from './api-core.js'
import { BranchesReader } from './resources/branches.js'
import { ComputesReader } from './resources/computes.js'
import { OperationsReader } from './resources/operations.js'
import { OrganizationsReader } from './resources/organizations.js'
import { ProjectsReader } from './resources/projects.js'

export class ApiClient {
  readonly stats: RequestStats
  readonly operations: OperationsReader
  readonly branches: BranchesReader
  readonly computes: ComputesReader
  readonly projects: ProjectsReader

  constructor(options: ApiCoreOptions) {
    const core = new ApiCore(options)
    this.stats = core.stats
    this.operations = new OperationsReader(core)
    this.branches = new BranchesReader(core, options.logger)
    this.computes = new ComputesReader(core)
    this.projects = new ProjectsReader(core, new OrganizationsReader(core), options.logger)
  }
}
