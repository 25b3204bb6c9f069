/*
 * The runner's files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) are written by @actions/core, which opens
 * them with a plain blocking open: on a FIFO that nobody reads it waits forever, past `timeout`.
 * This looks at the path first without blocking (O_NONBLOCK, which @actions/core has no way to
 * ask for) and lets core write only to a regular file or a device such as /dev/null, whose writes
 * do not wait for a reader.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs'

/** Why the file at `path` cannot take a write, or undefined when it can without waiting. */
export function runnerFileProblem(path: string): string | undefined {
  let descriptor: number
  try {
    descriptor = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK)
  } catch (error) {
    // What a FIFO with no reader answers to a non-blocking open.
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') {
      return `${path} is not a regular file (a pipe that nobody reads)`
    }
    return (error as Error).message
  }
  try {
    const stats = fstatSync(descriptor)
    return stats.isFile() || stats.isCharacterDevice()
      ? undefined
      : `${path} is not a regular file (a pipe or a socket could block the step)`
  } finally {
    closeSync(descriptor)
  }
}
