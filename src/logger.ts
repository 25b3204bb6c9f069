/** The logging the engine needs; main.ts backs it with @actions/core. */
export interface Logger {
  info(message: string): void
  warning(message: string): void
  debug(message: string): void
}
