/** The logging the engine needs; main.ts backs it with workflow commands. */
export interface Logger {
  info(message: string): void
  warning(message: string): void
  /** Worth knowing, neither a warning nor an error: `nothing to delete`. */
  notice(message: string): void
  debug(message: string): void
}
