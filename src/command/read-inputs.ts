/** The command's inputs: its flags' values and its secrets, read within its timeout, then checked. */
import type { Readable } from 'node:stream'
import type { Redactor } from '../domain/untrusted-text.js'
import { addSecretInput, type GateRun } from '../gate/gate-run.js'
import { type Inputs, parseInputs, parseTimeout } from '../gate/inputs.js'
import type { CommandRequest } from './flags.js'
import { readApiKey, readSecretFile } from './secrets.js'

/**
 * The timeout checked, then the secrets read within what is left of it (each added to the
 * redactor at once; a signal ends the reading with its CancelledError), then every input checked,
 * with every secret already redacted.
 */
export async function readInputs(
  request: CommandRequest,
  { env, stdin }: { env: Record<string, string | undefined>; stdin: Readable },
  { clock, startedAt, signal }: GateRun,
  redactor: Redactor
): Promise<Inputs> {
  // A bad --timeout is said at once, not after a pipe that nobody writes to has had five days;
  // unless the key is known to the redactor already (NEON_API_KEY), it does not repeat the value.
  const keyKnown = request.apiKeyFile === undefined && (env.NEON_API_KEY ?? '').trim() !== ''
  const timeoutMs = parseTimeout(request.values.timeout ?? '', request.naming, keyKnown)
  const reading = () => ({
    stdin,
    limitMs: Math.max(0, startedAt + timeoutMs - clock.now()),
    signal
  })
  const apiKey = await readApiKey(request.apiKeyFile, env, reading())
  addSecretInput(redactor, 'api_key', apiKey)
  const databaseUrl =
    request.databaseUrlFile !== undefined
      ? await readSecretFile('--database-url-file', request.databaseUrlFile, reading())
      : request.values.database_url?.trim()
  addSecretInput(redactor, 'database_url', databaseUrl)
  const values: Record<string, string | undefined> = {
    ...request.values,
    api_key: apiKey,
    database_url: databaseUrl
  }
  return parseInputs((name) => values[name], request.naming)
}
