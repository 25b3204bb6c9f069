/** The logging the engine needs; main.ts backs it with workflow commands. */
export interface Logger {
  info(message: string): void
  warning(message: string): void
  debug(message: string): void
}
