/*
 * What the report says of the database probe, once: that a query answered (after how many attempts,
 * how long after the control plane was done, which server), or why none did.
 */
import { formatDuration } from '../../domain/duration.js'
import { type Phrase, plural } from '../../domain/phrase.js'
import type { DatabaseProbe } from './database-probe.js'

/** `the database app on ep-1.neon.tech answered after 2 attempts, 4.1 s after the control plane …` */
export function databasePhrase(probe: DatabaseProbe): Phrase {
  const { target, failure } = probe
  const where: Phrase = ['the database ', { code: target.database }, ' on ', { code: target.host }]
  if (probe.state === 'ready') {
    const version: Phrase = probe.serverVersion
      ? [' (PostgreSQL ', { code: probe.serverVersion }, ')']
      : []
    return [
      ...where,
      ` answered after ${plural(probe.attempts, 'attempt')}, ${formatDuration(probe.afterControlPlaneMs)} after the control plane was done`,
      ...version
    ]
  }
  if (failure?.answer) {
    return [...where, ' answered ', { code: 'SELECT 1' }, ' with ', ...failure.answer, ', not 1']
  }
  const cause: Phrase = failure
    ? [...(failure.code ? [{ code: failure.code }, ' '] : []), { quote: failure.message }]
    : []
  switch (probe.state) {
    case 'refused':
      return [...where, ' refused the role ', { code: target.user }, ' or its password: ', ...cause]
    case 'unreachable':
      // Cancelled during the first attempt, nothing is known of why: no colon before nothing.
      return [...where, ' did not answer', ...(failure ? [': ', ...cause] : [])]
    default:
      return [...where, ' answered with an error: ', ...cause]
  }
}
