/*
 * How each front end names the inputs (those both front ends share, src/gate/input-catalog.ts;
 * the action's own for the pull request are the runner's) in its messages: the action as action.yml
 * does (`input "project_id"`, `list_projects: true`), the command as the flag or the
 * variable the user typed (`--project-id`, `NEON_PROJECT_ID`). An error about an input, wherever it
 * is found, is worded with the naming of the front end that shows it.
 */
/** How a front end names its inputs in messages (a front end's own inputs too: `Name`). */
export interface InputNaming<Name extends string = string> {
  /** Where a problem is, at the start of its message: `input "project_id"`, `--project-id`. */
  label(name: Name): string
  /** The input inside a sentence: `project_id`, `--project-id`. */
  mention(name: Name): string
  /** A boolean input turned on: `list_projects: true`, `--list-projects`. */
  enabled(name: Name): string
}

/** The contract's names, as action.yml spells them: the action's naming, and every message's default. */
export const CONTRACT_NAMING: InputNaming<string> = {
  label: (name) => `input "${name}"`,
  mention: (name) => name,
  enabled: (name) => `${name}: true`
}
