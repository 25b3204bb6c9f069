/*
 * The action's own inputs (the pull-request comment's), value by value: what each accepts, as it
 * keeps it, and what each refuses, in the words of the error.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from '@jest/globals'
import YAML from 'yaml'
import { INPUT_NAMES } from '../src/gate/input-catalog.js'
import { ACTION_ONLY_INPUT_NAMES, getInputs } from '../src/runner/input-helper.js'

const GIVEN = { api_key: 'key-456', project_id: 'demo-project-000002' }

/** The inputs from `values` beside the key and the project; an input not among them is not given. */
function read(values: Record<string, string>) {
  const given: Record<string, string> = { ...GIVEN, ...values }
  return getInputs((name) => given[name])
}

describe("the pull-request comment's inputs", () => {
  it('pr_comment is read trimmed and in any case; another word is quoted in the error', () => {
    expect(read({ pr_comment: ' Failure\n' }).prComment).toBe('failure')
    expect(() => read({ pr_comment: 'never' })).toThrow(
      'input "pr_comment": "never" is not one of off, always, failure'
    )
  })

  it('pr_comment_author takes a user login or a bot login', () => {
    for (const login of ['octocat', 'my-app[bot]', '7-eleven', 'a']) {
      expect(read({ pr_comment_author: login }).prCommentAuthor).toBe(login)
    }
    for (const login of ['-octocat', 'octo_cat', 'x'.repeat(40), 'app[bot]x']) {
      expect(() => read({ pr_comment_author: login })).toThrow(
        `input "pr_comment_author": "${login}" is not valid`
      )
    }
  })

  it('pr_comment_leg is read trimmed, up to 2000 characters', () => {
    expect(read({ pr_comment_leg: ' {"node":24} ' }).prCommentLeg).toBe('{"node":24}')
    const longest = 'n'.repeat(2000)
    expect(read({ pr_comment_leg: ` ${longest} ` }).prCommentLeg).toBe(longest)
    expect(() => read({ pr_comment_leg: `${longest}n` })).toThrow(
      'input "pr_comment_leg": is longer than 2000 characters; name the leg by fewer matrix values'
    )
  })
})

it("action.yml's inputs are lower case words joined by '_': each one's variable is INPUT_ and its upper case", () => {
  // main.ts's givenInput looks each one up so, without @actions/core's replacement of spaces.
  const actionYml = YAML.parse(readFileSync('action.yml', 'utf8')) as { inputs: object }
  const names = Object.keys(actionYml.inputs)
  expect(names).toEqual(expect.arrayContaining([...INPUT_NAMES, ...ACTION_ONLY_INPUT_NAMES]))
  expect(names.filter((name) => !/^[a-z]+(_[a-z]+)*$/.test(name))).toEqual([])
})
