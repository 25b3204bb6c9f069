/*
 * Where the command writes its result files (--summary, --dotenv), also read from a command line
 * that did not parse, so that the files still say why.
 */

/** Where the command writes its result files: --summary and --dotenv. */
export interface ResultTargets {
  /** The job summary's Markdown; `append` inside GitHub Actions, where the step's file is shared. */
  summary?: { path: string; append: boolean }
  dotenvFile?: string
}

/**
 * The result files named by a command line that did not parse (an unknown flag, a value missing, a
 * flag given twice): they are written on every exit whose paths are known, bad flags included,
 * each path given (none keeps an earlier run's outcome). A value that starts with a dash is the
 * next flag, not a path. The paths paired in order: each pair is checked as one run's files.
 */
export function resultTargetsOf(
  argv: string[],
  env: Record<string, string | undefined>
): ResultTargets[] {
  const paths: Record<string, string[]> = { '--summary': [], '--dotenv': [] }
  const end = argv.indexOf('--')
  argv.slice(0, end === -1 ? undefined : end).forEach((arg, index) => {
    const [name, ...inline] = arg.split('=')
    if (!(name in paths)) return
    const value = inline.length > 0 ? inline.join('=') : argv[index + 1]
    if (value !== undefined && value.trim() !== '' && !value.startsWith('-'))
      paths[name].push(value)
  })
  const [summaries, dotenvs] = [paths['--summary'], paths['--dotenv']]
  const count = Math.max(1, summaries.length, dotenvs.length)
  return Array.from({ length: count }, (_, index) => ({
    summary: summaryTarget(summaries[index], index === 0 ? env : {}),
    dotenvFile: dotenvs[index]
  }))
}

/** `--summary FILE`; inside GitHub Actions, the step's summary by default. */
export function summaryTarget(
  flag: string | undefined,
  env: Record<string, string | undefined>
): ResultTargets['summary'] {
  if (flag !== undefined) return { path: flag, append: false }
  const stepSummary = env.GITHUB_ACTIONS === 'true' ? env.GITHUB_STEP_SUMMARY : undefined
  return stepSummary ? { path: stepSummary, append: true } : undefined
}
