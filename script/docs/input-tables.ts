/*
 * npm run docs: the input tables of action.yml, docs/usage.md and docs/cli.md, written from the
 * input catalog (src/gate/input-catalog.ts) between their generated markers, and docs/cli.md's
 * exit codes from the command's and the steps' reasons (src/command/help.ts); the command's --help is
 * made from it when it runs. __tests__/tooling/docs.test.ts fails when a written table is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EXIT_CODE_REASONS } from '../../src/command/help.js'
import { inputEntries, refusesEmpty } from '../../src/gate/input-catalog.js'
import { NOT_GIVEN } from '../../src/domain/input-catalog.js'

const root = join(import.meta.dirname, '..', '..')

/** Where each generated part stands: in its file, between its two marker lines. */
const MARKERS = {
  'action.yml': ['action.yml', '  # inputs of the catalog: npm run docs', '  # end of the catalog'],
  'docs/usage.md': ['docs/usage.md', '<!-- inputs: npm run docs -->', '<!-- end of inputs -->'],
  'docs/cli.md': [
    'docs/cli.md',
    '<!-- flags of the inputs: npm run docs -->',
    '<!-- end of flags -->'
  ],
  'docs/cli.md exit codes': [
    'docs/cli.md',
    '<!-- exit codes of the command and the steps: npm run docs -->',
    '<!-- end of exit codes -->'
  ]
} as const

type Doc = keyof typeof MARKERS

/** A YAML string as Prettier writes it: in double quotes when it holds a single quote. */
const yamlText = (text: string) =>
  text.includes("'") && !text.includes('"') ? `"${text}"` : `'${text.replace(/'/g, "''")}'`
const cell = (text: string) => text.replace(/\|/g, '\\|')

/** A Markdown table, its columns padded as Prettier pads them. */
function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, index) =>
    Math.max(header.length, ...rows.map((row) => [...row[index]].length))
  )
  const line = (cells: string[]) =>
    `| ${cells.map((text, index) => text + ' '.repeat(widths[index] - [...text].length)).join(' | ')} |`
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join(
    '\n'
  )
}

/**
 * What every input that refuses an empty value says of it, from the catalog (refusesEmpty): the
 * runner gives an input its default only when the workflow leaves it out.
 */
const GIVEN_EMPTY =
  'Given empty or as white space alone (an expression naming an unset variable or a step output that does not exist), it fails the step, never reads as its default.'

/** An input's description in action.yml: the catalog's, and what it does given empty. */
const described = (name: string, description: string) =>
  refusesEmpty(name) ? `${description} ${GIVEN_EMPTY}` : description

const GENERATED: Record<Doc, () => string> = {
  'action.yml': () =>
    inputEntries()
      .flatMap(([name, { docs }]) => [
        `  ${name}:`,
        `    description: ${yamlText(described(name, docs.description))}`,
        `    required: ${docs.default === undefined}`,
        ...(docs.default === undefined ? [] : [`    default: ${yamlText(docs.default)}`])
      ])
      .join('\n'),
  'docs/usage.md': () =>
    table(
      ['input', 'default', 'meaning'],
      inputEntries().map(([name, { docs, secret }]) => [
        `\`${name}\``,
        docs.default === undefined ? 'required' : docs.default && `\`${docs.default}\``,
        cell(`${docs.summary}${secret ? '; a secret' : ''}`)
      ])
    ),
  // Each flag of an input (a secret's: the file that holds it): the first says the input's summary,
  // every other flag its own help, and a switch that turns an input off (`--no-wait`) the first
  // phrase of its help. The default: the variable read without the flag, or the input's own where
  // the flag takes a value.
  'docs/cli.md': () =>
    table(
      ['flag', 'default', 'meaning'],
      inputEntries().flatMap(([, { command, help, docs }]) => {
        const flags = 'flags' in help ? help.flags : [[`--${command.file ?? ''} PATH`] as const]
        const valued = docs.default && docs.default !== NOT_GIVEN && !flagIsSwitch(command)
        const fallback = command.env ?? (valued ? docs.default : undefined)
        return flags.map(([usage, ...lines], index) => [
          `\`${cell(usage)}\``,
          index === 0 && fallback ? `\`${fallback}\`` : '',
          cell(
            usage.startsWith('--no-')
              ? capitalized([lines[0].split(':')[0]])
              : index === 0
                ? docs.summary
                : capitalized(lines)
          )
        ])
      })
    ),
  // The command's codes with its own reasons and each step's, as --help gives them, flags as code.
  'docs/cli.md exit codes': () =>
    table(
      ['code', 'when'],
      EXIT_CODE_REASONS.flatMap(([code, reasons]) =>
        reasons.map((reason, index) => [
          index === 0 ? String(code) : '',
          cell(`${index === 0 ? '' : 'or '}${reason.replace(/(sweep )?--[a-z-]+/g, '`$&`')}`)
        ])
      )
    )
}

/** Whether a command's flag for an input takes no value (`--fail-fast`, `--no-wait`). */
const flagIsSwitch = (command: { flag?: { boolean?: boolean } }) => command.flag?.boolean === true

/** A flag's help lines as one sentence of a table's cell. */
const capitalized = (lines: readonly string[]) => {
  const text = lines.join(' ')
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** `doc` as it is, and as npm run docs writes it. */
export function inputTables(doc: Doc): { written: string; generated: string } {
  const [file, start, end] = MARKERS[doc]
  const written = readFileSync(join(root, file), 'utf8')
  const from = written.indexOf(`${start}\n`)
  const to = written.indexOf(`\n${end}`)
  if (from < 0 || to < from) throw new Error(`${doc}: no ${start} … ${end}`)
  const before = written.slice(0, from + start.length + 1)
  const blank = doc === 'action.yml' ? '' : '\n'
  return {
    written,
    generated: `${before}${blank}${GENERATED[doc]()}\n${blank}${written.slice(to + 1)}`
  }
}

if (import.meta.main) {
  for (const doc of Object.keys(MARKERS) as Doc[]) {
    const { written, generated } = inputTables(doc)
    if (generated !== written) writeFileSync(join(root, MARKERS[doc][0]), generated)
    console.log(`${doc}: ${generated === written ? 'up to date' : 'written'}`)
  }
}
