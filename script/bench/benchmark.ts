/*
 * npm run benchmark: request counts and timings of the real bundle against the local API server,
 * one section a file in sections/. Figures go into docs/benchmarks.md; nothing here is asserted,
 * the machines are noisy.
 *
 *   npm run benchmark [-- section ...]   (startup latency gate ids silent storm database fleet)
 *   npm run benchmark -- suite           (test:unit and npm test against the loop; only when named)
 */
import type { Row } from './common.ts'
import { database } from './sections/database.ts'
import { fleet } from './sections/fleet.ts'
import { ids } from './sections/ids.ts'
import { latency } from './sections/latency.ts'
import { branchGate, projectGate } from './sections/project-gate.ts'
import { silent } from './sections/silent.ts'
import { startup } from './sections/startup.ts'
import { storms } from './sections/storm.ts'
import { suiteSpeed } from './sections/suite.ts'

/** A section's name, its body, and whether it runs only when named (it takes minutes). */
const SECTIONS: [string, (row: Row) => Promise<void>, 'named only'?][] = [
  ['startup', startup],
  ['latency', latency],
  ['gate', projectGate],
  ['branch', branchGate],
  ['ids', ids],
  ['silent', silent],
  ['storm', storms],
  ['database', database],
  ['fleet', fleet],
  ['suite', suiteSpeed, 'named only']
]

const chosen = process.argv.slice(2)
const unknown = chosen.filter((name) => !SECTIONS.some(([section]) => section === name))
if (unknown.length > 0) {
  console.error(
    `No such section: ${unknown.join(', ')} (sections: ${SECTIONS.map(([name]) => name).join(' ')})`
  )
  process.exit(2)
}
const rows: string[][] = []
const row: Row = (...cells) => {
  rows.push(cells.map(String))
  console.error(`measured: ${cells[0]}`)
}
try {
  for (const [name, section, namedOnly] of SECTIONS) {
    if (chosen.includes(name) || (chosen.length === 0 && !namedOnly)) await section(row)
  }
} finally {
  // What was measured before a section failed is printed too.
  console.log('| scenario | measured | requests / result |')
  console.log('|---|---|---|')
  for (const cells of rows) console.log(`| ${cells.join(' | ')} |`)
}
