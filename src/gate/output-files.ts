/*
 * The files a run writes its result to: the runner's (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), which
 * @actions/core opens with a plain blocking open, and the command's (--summary, --dotenv). On a
 * FIFO that nobody reads such an open waits forever, past `timeout`. This looks at the path first
 * without blocking (O_NONBLOCK, which @actions/core has no way to ask for) and lets a front end
 * write only to a regular file or a device such as /dev/null, whose writes do not wait for a reader.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs'

/**
 * Why the file at `path` cannot take a write, or undefined when it can without waiting. `create`:
 * a file that is not there yet is made (the command's files), instead of being a problem. The
 * reason never repeats the path (the command's paths come from flags, where a secret is sometimes
 * given by mistake).
 */
export function outputFileProblem(path: string, create = false): string | undefined {
  let descriptor: number
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK
  try {
    descriptor = openSync(path, create ? flags | constants.O_CREAT : flags)
  } catch (error) {
    // What a FIFO with no reader answers to a non-blocking open.
    const { code } = error as NodeJS.ErrnoException
    if (code === 'ENXIO') return 'it is not a regular file (a pipe that nobody reads)'
    return `it cannot be opened for writing (${code ?? 'an error without a code'})`
  }
  try {
    const stats = fstatSync(descriptor)
    return stats.isFile() || stats.isCharacterDevice()
      ? undefined
      : 'it is not a regular file (a pipe or a socket could block the step)'
  } finally {
    closeSync(descriptor)
  }
}
