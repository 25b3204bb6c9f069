/*
 * The layers' rules (.dependency-cruiser.mjs, run by `npm run lint`) can fail: a small tree that
 * breaks each of them once makes dependency-cruiser name every rule. `npm run lint` shows that the
 * real src/ breaks none.
 */
import { describe, expect, it } from '@jest/globals'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { IForbiddenRuleType } from 'dependency-cruiser'
import { depcruise } from '../fixtures/depcruise.js'

const root = join(import.meta.dirname, '..', '..')

/** Each file of the broken tree, and what it imports. */
const BROKEN: Record<string, string[]> = {
  // A layer importing a later one, at each floor.
  'src/domain/time.ts': ['../api/client.js'],
  'src/api/client.ts': ['../wait/loop.js'],
  'src/wait/loop.ts': ['../report/words.js'],
  'src/report/words.ts': ['../gate/gate.js', '@actions/github'],
  'src/gate/gate.ts': ['../runner/main.js'],
  // The front ends importing each other, and the command the toolkit.
  'src/runner/main.ts': ['../command/main.js'],
  'src/command/main.ts': ['../runner/main.js', '@actions/core'],
  'src/command/index.ts': ['./main.js'],
  // The action's entry starting something besides the runner.
  'src/index.ts': ['./gate/gate.js', './runner/main.js'],
  // Imported by nothing.
  'src/wait/forgotten.ts': []
}

describe('the rules of the layers', () => {
  it('each rule of .dependency-cruiser.mjs fails on a tree that breaks it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'))
    try {
      for (const [file, imports] of Object.entries(BROKEN)) {
        mkdirSync(dirname(join(dir, file)), { recursive: true })
        const lines = imports.map((from, index) => `import * as m${index} from '${from}'`)
        writeFileSync(
          join(dir, file),
          `${lines.join('\n')}\nexport const used = ${imports.length}\n`
        )
      }
      copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'))
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
      // As `npm run lint` runs it, on the broken tree.
      const configFile = join(root, '.dependency-cruiser.mjs')
      const output = JSON.parse(
        depcruise(['src', '--config', configFile, '--output-type', 'json'], dir)
      ) as { summary: { violations: { rule: { name: string } }[] } }
      const { default: config } = (await import(pathToFileURL(configFile).href)) as {
        default: { forbidden: IForbiddenRuleType[] }
      }
      const broken = new Set(output.summary.violations.map((violation) => violation.rule.name))
      expect([...broken].sort()).toEqual(config.forbidden.map((rule) => rule.name).sort())
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
