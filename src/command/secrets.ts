/*
 * The command's secrets: the API key from NEON_API_KEY or a file, the database URL from its flag or
 * a file (`-`: standard input). Read with a size cap, so that a wrong path (a device, a log) cannot
 * make the command read without end; a message about a file never quotes what it holds.
 */
import { open } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { UsageError } from './flags.js'

/** A key or a connection string is far shorter; anything longer is the wrong file. */
const MAX_SECRET_BYTES = 64 * 1024

/** Reads at most MAX_SECRET_BYTES + 1 bytes, to tell "too long" from "long enough". */
async function readCapped(chunks: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const parts: Buffer[] = []
  let bytes = 0
  for await (const chunk of chunks) {
    const part = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    parts.push(part)
    bytes += part.length
    if (bytes > MAX_SECRET_BYTES) break
  }
  return Buffer.concat(parts)
}

async function readFileCapped(path: string): Promise<Buffer> {
  const file = await open(path, 'r')
  try {
    return await readCapped(file.createReadStream({ end: MAX_SECRET_BYTES, autoClose: false }))
  } finally {
    await file.close()
  }
}

/** The secret in the file that `flag` names (`-`: standard input), without its final new line. */
export async function readSecretFile(flag: string, path: string, stdin: Readable): Promise<string> {
  const where = path === '-' ? 'standard input' : path
  let content: Buffer
  try {
    content = path === '-' ? await readCapped(stdin) : await readFileCapped(path)
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException
    throw new UsageError(`${flag}: cannot read ${where}${code ? ` (${code})` : ''}`)
  }
  if (content.length > MAX_SECRET_BYTES) {
    throw new UsageError(`${flag}: ${where} holds more than 64 KiB; it should hold only the secret`)
  }
  const secret = content.toString('utf8').replace(/\r?\n$/, '')
  if (secret.trim() === '') throw new UsageError(`${flag}: ${where} is empty`)
  return secret
}

/** The API key: from `--api-key-file`, else NEON_API_KEY. */
export async function readApiKey(
  file: string | undefined,
  env: Record<string, string | undefined>,
  stdin: Readable
): Promise<string> {
  if (file !== undefined) return readSecretFile('--api-key-file', file, stdin)
  const key = env.NEON_API_KEY ?? ''
  if (key.trim() === '') {
    throw new UsageError(
      'NEON_API_KEY is not set: export the API key as NEON_API_KEY, or give --api-key-file PATH (- reads standard input)'
    )
  }
  return key
}
