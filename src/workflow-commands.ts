/*
 * The action's side of the runner protocol: inputs from INPUT_<NAME>, workflow commands on standard
 * output, outputs and the job summary in the files the runner names. These are the few calls of
 * @actions/core the action needs, in the same format (a test compares them byte for byte); the
 * package itself loads undici through @actions/http-client and cost 50 ms of start-up on every run.
 */
import { randomUUID } from 'node:crypto'
import { appendFileSync, existsSync } from 'node:fs'
import { access, appendFile, constants } from 'node:fs/promises'
import { EOL } from 'node:os'

/** An input as the runner passes it (`INPUT_<NAME>`), trimmed; '' when not set. */
export function getInput(name: string): string {
  return (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim()
}

// The runner reads a command up to the end of the line, its properties up to ',' and '::'.
const escapeData = (text: string): string =>
  text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
const escapeProperty = (text: string): string =>
  escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')

function issueCommand(
  command: string,
  message: string,
  properties: Record<string, string | undefined> = {}
): void {
  const listed = Object.entries(properties)
    .filter((entry): entry is [string, string] => Boolean(entry[1]))
    .map(([key, value]) => `${key}=${escapeProperty(value)}`)
    .join(',')
  process.stdout.write(`::${command}${listed ? ` ${listed}` : ''}::${escapeData(message)}${EOL}`)
}

/** Asks the runner to mask `secret` in every later line of the log. */
export function setSecret(secret: string): void {
  issueCommand('add-mask', secret)
}

export function info(message: string): void {
  process.stdout.write(message + EOL)
}

export function debug(message: string): void {
  issueCommand('debug', message)
}

export function warning(message: string): void {
  issueCommand('warning', message)
}

/** An error annotation; `title` is its heading in the checks list. */
export function error(message: string, properties: { title?: string } = {}): void {
  issueCommand('error', message, { title: properties.title })
}

/** An error annotation, and the step fails when the process exits. */
export function setFailed(message: string): void {
  process.exitCode = 1
  error(message)
}

/**
 * Appends `name` to the GITHUB_OUTPUT file, as a heredoc with a random delimiter that the value
 * cannot end early. Without GITHUB_OUTPUT (an old runner) it falls back to `::set-output`.
 */
export function setOutput(name: string, value: string): void {
  const file = process.env.GITHUB_OUTPUT
  if (!file) {
    process.stdout.write(EOL)
    issueCommand('set-output', value, { name })
    return
  }
  if (!existsSync(file)) throw new Error(`Missing file at path: ${file}`)
  const delimiter = `ghadelimiter_${randomUUID()}`
  if (name.includes(delimiter) || value.includes(delimiter)) {
    throw new Error(`Unexpected input: output ${name} contains the delimiter "${delimiter}"`)
  }
  appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`, 'utf8')
}

/** Appends to the job summary file the runner names in GITHUB_STEP_SUMMARY. */
export async function appendSummary(text: string): Promise<void> {
  const file = process.env.GITHUB_STEP_SUMMARY
  if (!file) throw new Error('GITHUB_STEP_SUMMARY is not set')
  try {
    await access(file, constants.R_OK | constants.W_OK)
  } catch {
    throw new Error(`Unable to access summary file: '${file}'`)
  }
  await appendFile(file, text, 'utf8')
}
