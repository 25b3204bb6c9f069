/*
 * What an entry of the input catalog is: the one place an input is named (src/gate/input-catalog.ts
 * puts the core's entries, core-inputs.ts, and each step's together). Its key is the action's input
 * (as action.yml spells it, the contract's name); the entry gives its typed (camelCase) name, its
 * schema, how the command takes it (its flag, the variable behind it, the flag of a file that holds
 * it), whether it is a secret, and its lines in the command's --help. What the front ends list (the
 * typed inputs, the action's inputs, the command's flags, the secrets to redact, the help) and the
 * docs' input tables (npm run docs) are derived from the catalog.
 */
import type { z } from 'zod'
import type { InputNaming } from './input-naming.js'

/**
 * action.yml's default for an input that refuses an empty value: the runner sets a default only
 * when the workflow does not give the input, so this value, and only it, says "not given".
 */
export const NOT_GIVEN = '(not given)'

/** A flag of the command as typed (`--project-id ID`), then what it does, a line each. */
export type FlagHelp = readonly [usage: string, ...lines: string[]]

/** Where an input stands in --help: a paragraph before the flags, or a flag's lines in a part. */
export type InputHelp =
  { part: 'intro'; text: readonly string[] } | { part: 'what' | 'how'; flags: readonly FlagHelp[] }

export interface InputEntry {
  /** Its name in the typed inputs (camelCase). */
  readonly typed: string
  /** What it accepts, its default and its problems, worded as the front end names inputs. */
  readonly schema: (naming: InputNaming) => z.ZodType<unknown, string | undefined>
  /**
   * Given as '' or white space alone (an expression that came out empty), an input error: not
   * given, another gate would run. Its default in action.yml is NOT_GIVEN.
   */
  readonly refusesEmpty?: true
  /** A secret: redacted in every form from the start; a database URL with its password's forms. */
  readonly secret?: 'text' | 'database_url'
  readonly command: {
    /** The command's flag, in kebab-case; a secret's value has none (ps and history show it). */
    readonly flag?: {
      readonly name: string
      readonly boolean?: true
      /** Repeated, its values are joined by commas. */
      readonly multiple?: true
      /** It asks for a gate: with it, the project variable is the project even beside listing. */
      readonly gate?: true
    }
    /** The environment variable it is read from when its flag is not given. */
    readonly env?: string
    /** The flag naming a file that holds it (`-`: standard input): how a secret is given. */
    readonly file?: string
  }
  readonly help: InputHelp
  /** Its rows in the docs (npm run docs): action.yml's default and description, a table's summary. */
  readonly docs: {
    /** None: the input is required. */
    readonly default?: string
    readonly summary: string
    readonly description: string
  }
}
