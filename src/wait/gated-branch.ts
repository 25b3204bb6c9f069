/*
 * The branch the project gate is narrowed to (`branch_id`): whether it can be queried, read anew in
 * every poll that finds its operations final, since what was read at resolution or before its
 * operations ran says nothing of now. Its state is told when it changes (and at the first poll), an
 * archived branch warned about at each read, an unknown state once.
 */
import { branchReadiness } from '../domain/branch-state.js'
import { branchStatePhrase, phraseText } from '../domain/phrase.js'
import type { Logger } from '../domain/logger.js'
import type { Branch } from '../domain/schemas.js'
import { truncate } from '../domain/untrusted-text.js'

export class GatedBranch {
  private readonly warnedStates = new Set<string>()

  /** `branch`: as resolved, then as last read; `readAgain` reads the resolved branch anew. */
  constructor(
    public branch: Branch,
    private readonly readAgain: () => Promise<Branch>,
    private readonly logger: Logger
  ) {}

  async read(firstPoll: boolean): Promise<void> {
    const previous = branchStateText(this.branch)
    this.branch = await this.readAgain()
    const state = branchStateText(this.branch)
    const readiness = branchReadiness(this.branch)
    const name = `Branch ${truncate(this.branch.name, 80)} (${this.branch.id})`
    if (readiness === 'archived') {
      this.logger.warning(`${name} is archived: its first queries will be slow`)
    } else if (readiness === 'unknown' && !this.warnedStates.has(state)) {
      this.warnedStates.add(state)
      this.logger.warning(`${name} is in an unknown state, ${state}; waiting until it is ready`)
    } else if (state !== previous || firstPoll) {
      this.logger.info(`${name} is ${state}`)
    }
  }
}

function branchStateText(branch: Branch): string {
  return phraseText(branchStatePhrase(branch))
}
