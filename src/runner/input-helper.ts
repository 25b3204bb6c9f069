/*
 * The action's inputs, as action.yml names them, in one typed object: the gate's shared inputs and
 * the action's own for the pull request (`pr_comment`, `pr_comment_author`, `pr_comment_leg`,
 * `github_token`), read
 * and checked together, so that one error names every bad input.
 */
import { z } from 'zod'
import { NOT_GIVEN } from '../domain/input-catalog.js'
import { CONTRACT_NAMING, type InputNaming } from '../domain/input-naming.js'
import { type InputName, refusesEmpty } from '../gate/input-catalog.js'
import { idInput, refusingEmpty } from '../domain/input-fields.js'
import { type Inputs, parseInputs } from '../gate/inputs.js'

/** The inputs only the action has: the pull-request comment's. */
export const ACTION_ONLY_INPUT_NAMES = [
  'pr_comment',
  'pr_comment_author',
  'pr_comment_leg',
  'github_token'
] as const
type ActionOnlyInputName = (typeof ACTION_ONLY_INPUT_NAMES)[number]

/** The action names its inputs as action.yml does. */
export const ACTION_INPUT_NAMING: InputNaming<InputName | ActionOnlyInputName> = CONTRACT_NAMING

/** The `pr_comment_leg` input at most (`${{ toJSON(matrix) }}` of a large matrix leg). */
const MAX_LEG_CHARS = 2000

const PR_COMMENT_MODES = ['off', 'always', 'failure'] as const
/** `pr_comment`'s default in action.yml: not set (a run without action.yml's defaults), it is that. */
const PR_COMMENT_DEFAULT = 'off'

/** A user's or a bot's login. */
const GITHUB_LOGIN_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/

const actionOnlySchema = z
  .object({
    pr_comment: refusingEmpty(
      z.string().transform((raw, ctx) => {
        const text = raw.trim()
        const mode = PR_COMMENT_MODES.find((name) => name === text.toLowerCase())
        if (mode) return mode
        // Quoted as given: a value folded in case would slip past the redactor.
        ctx.addIssue({ code: 'custom', message: `"${text}" is not one of off, always, failure` })
        return z.NEVER
      }),
      `leave pr_comment out for ${PR_COMMENT_DEFAULT}`
    ).transform((mode) => mode ?? PR_COMMENT_DEFAULT),
    pr_comment_author: idInput(
      GITHUB_LOGIN_PATTERN,
      'the GitHub login the token writes as, such as my-app[bot]'
    ),
    pr_comment_leg: z
      .string()
      .transform((raw) => raw.trim())
      .refine((text) => text.length <= MAX_LEG_CHARS, {
        message: `is longer than ${MAX_LEG_CHARS} characters; name the leg by fewer matrix values`
      }),
    github_token: z.string().transform((raw) => raw.trim())
  })
  .transform((inputs) => ({
    prComment: inputs.pr_comment,
    prCommentAuthor: inputs.pr_comment_author,
    prCommentLeg: inputs.pr_comment_leg,
    githubToken: inputs.github_token
  }))

/** The action's inputs: the gate's, and the pull-request comment's. */
export type ActionInputs = Inputs & z.output<typeof actionOnlySchema>

/** An input's value as given; undefined when not given: action.yml's NOT_GIVEN default is none. */
export const givenValue = (name: string, value: string | undefined): string | undefined =>
  refusesEmpty(name) && value === NOT_GIVEN ? undefined : value

/**
 * Reads and validates every input of the action before any request (one InputError for all).
 * `readInput` gives an input as the runner set it, or undefined when it set none; action.yml's
 * NOT_GIVEN default is not given too.
 */
export function getInputs(
  readInput: (name: InputName | ActionOnlyInputName) => string | undefined
): ActionInputs {
  const given = (name: InputName | ActionOnlyInputName) =>
    givenValue(name, readInput(name)) ?? (name === 'pr_comment' ? PR_COMMENT_DEFAULT : undefined)
  return parseInputs(given, ACTION_INPUT_NAMING, {
    names: ACTION_ONLY_INPUT_NAMES,
    schema: actionOnlySchema
  })
}
