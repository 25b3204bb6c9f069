/*
 * The command's secrets: the API key from NEON_API_KEY or a file, the database URL from its flag or
 * a file (`-`: standard input, or a pipe such as `<(pass show neon)`). Read with a size cap and a
 * time limit, so that a wrong path (a device, a log, a pipe nobody writes to) can neither make the
 * command read without end nor hold it. White space around a secret is not part of it. A message
 * about a file never quotes its path (the secret itself is sometimes given where the path belongs)
 * nor what it holds.
 */
import { constants } from 'node:fs'
import { lstat, open } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { formatDuration } from '../domain/duration.js'
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

/**
 * The file's first MAX_SECRET_BYTES + 1 bytes, opened without blocking: a blocking open of a pipe
 * that nobody writes to would hold a thread that not even the process's exit could take back. A
 * pipe whose writer is there but slow (`<(pass show neon)`) is read as its bytes come, and a pipe
 * made with `mkfifo` is waited for until its writer comes (a secret store that writes to it later):
 * before any byte, a pipe without a writer reads as ended. `<(…)` is no such pipe (its path is a
 * link to one whose writer came first), so an end there is the end. Until the time limit or a
 * signal ends the wait (`done`): then the reading stops too.
 */
async function readFileCapped(path: string, done: AbortSignal): Promise<Buffer> {
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const named = (await lstat(path)).isFIFO()
    const parts: Buffer[] = []
    let bytes = 0
    while (bytes <= MAX_SECRET_BYTES && !done.aborted) {
      const buffer = Buffer.alloc(MAX_SECRET_BYTES + 1 - bytes)
      let bytesRead: number
      try {
        ;({ bytesRead } = await file.read(buffer, 0, buffer.length, null))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
        bytesRead = -1
      }
      if (bytesRead === 0 && !(named && bytes === 0)) break
      if (bytesRead <= 0) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        continue
      }
      parts.push(buffer.subarray(0, bytesRead))
      bytes += bytesRead
    }
    return Buffer.concat(parts)
  } finally {
    await file.close()
  }
}

/** Nothing came from `flag` within `limitMs`, what the timeout had left. */
const timeRanOut = (flag: string, limitMs: number): UsageError =>
  new UsageError(
    `${flag}: nothing came from it within ${formatDuration(limitMs)}, what was left of the timeout: a pipe that nobody writes to?`
  )

/**
 * Rejects after `limitMs` with a UsageError for `flag` (nothing came in time), or with the reason of
 * `signal` (SIGINT, SIGTERM) as soon as it aborts.
 */
function timeLimit(
  flag: string,
  limitMs: number,
  signal: AbortSignal | undefined
): { expired: Promise<never>; clear: () => void } {
  let timer: NodeJS.Timeout | undefined
  let onAbort = (): void => undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeRanOut(flag, limitMs)), limitMs)
    onAbort = () => reject(signal?.reason as Error)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
  return {
    expired,
    clear: () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }
}

/** Where a secret is read from, within what time, and what can stop it. */
export interface SecretReading {
  stdin: Readable
  limitMs: number
  /** Aborted by SIGINT or SIGTERM: the reading ends with its reason. */
  signal?: AbortSignal
}

/**
 * The secret in the file that `flag` names (`-`: standard input), without the white space around
 * it, read within `limitMs`.
 */
export async function readSecretFile(
  flag: string,
  path: string,
  { stdin, limitMs, signal }: SecretReading
): Promise<string> {
  const where = path === '-' ? 'standard input' : 'the file'
  signal?.throwIfAborted()
  // No time left: not even a file that would answer at once is read, so the error is always this.
  if (limitMs <= 0) throw timeRanOut(flag, limitMs)
  const limit = timeLimit(flag, limitMs, signal)
  const done = new AbortController()
  let content: Buffer
  try {
    const reading = path === '-' ? readCapped(stdin) : readFileCapped(path, done.signal)
    content = await Promise.race([reading, limit.expired])
  } catch (error) {
    if (error instanceof UsageError || signal?.aborted) throw error
    const { code } = error as NodeJS.ErrnoException
    throw new UsageError(
      `${flag}: cannot read ${where}${code ? ` (${code})` : ''}; give the path of a file that holds the secret, not the secret itself`
    )
  } finally {
    limit.clear()
    done.abort()
  }
  if (content.length > MAX_SECRET_BYTES) {
    throw new UsageError(`${flag}: ${where} holds more than 64 KiB; it should hold only the secret`)
  }
  const secret = content
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trim()
  if (secret === '') throw new UsageError(`${flag}: ${where} is empty`)
  return secret
}

/** The API key: from `--api-key-file`, else NEON_API_KEY; without the white space around it. */
export async function readApiKey(
  file: string | undefined,
  env: Record<string, string | undefined>,
  reading: SecretReading
): Promise<string> {
  if (file !== undefined) return readSecretFile('--api-key-file', file, reading)
  const key = (env.NEON_API_KEY ?? '').trim()
  if (key === '') {
    throw new UsageError(
      'NEON_API_KEY is not set: export the API key as NEON_API_KEY, or give --api-key-file PATH (- reads standard input)'
    )
  }
  return key
}
