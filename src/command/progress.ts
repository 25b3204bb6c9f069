/*
 * The command's standard error: what the gate is doing, its warnings and its error. On a terminal,
 * progress is one line rewritten in place and warnings stand above it; anywhere else (a CI log, a
 * pipe, a file) every change is a plain line with no control code. Colour only on a terminal, and
 * never with NO_COLOR. Every line is cleaned by the caller's `clean` (secrets out, API text made
 * harmless) before it is written.
 */
import type { Logger } from '../domain/logger.js'

/** Where progress goes: process.stderr, or anything that takes text the same way. */
export interface ProgressStream {
  write(text: string): unknown
  isTTY?: boolean
  columns?: number
}

export interface ProgressOptions {
  quiet: boolean
  /** Colour on a terminal: false when NO_COLOR is set. */
  color: boolean
  clean: (text: string) => string
}

const CLEAR_LINE = '\r\x1b[2K'

/**
 * Characters a terminal shows two columns wide: East Asian wide and full-width forms, and emoji
 * (Unicode's East_Asian_Width W and F, by block).
 */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u

/** `line` cut to at most `columns` columns of a terminal, with `…` where it was cut. */
function fitted(line: string, columns: number): string {
  let used = 0
  let kept = ''
  for (const character of line) {
    used += WIDE.test(character) ? 2 : 1
    if (used > columns - 1) return `${kept}…`
    kept += character
  }
  return line
}

export class Progress implements Logger {
  /** Whether a progress line stands on the terminal, waiting to be rewritten. */
  private lineOpen = false
  private lastLine = ''

  constructor(
    private readonly stream: ProgressStream,
    private readonly options: ProgressOptions
  ) {}

  info(message: string): void {
    if (this.options.quiet) return
    const line = this.options.clean(message)
    if (!this.stream.isTTY) {
      // One line per change: the same line twice in a row says nothing new.
      if (line !== this.lastLine) this.stream.write(`${line}\n`)
      this.lastLine = line
      return
    }
    // Cut to the terminal's width: a line that wraps cannot be rewritten in place.
    const width = Math.max(20, (this.stream.columns || 80) - 1)
    this.stream.write(`${CLEAR_LINE}${fitted(line, width)}`)
    this.lineOpen = true
  }

  warning(message: string): void {
    this.standing('warning', message, '\x1b[33m')
  }

  notice(message: string): void {
    this.standing('notice', message, '\x1b[36m')
  }

  error(message: string): void {
    this.standing('error', message, '\x1b[31m')
  }

  debug(): void {}

  /** The progress line cleared, so that what follows starts on a clean line. */
  finish(): void {
    if (this.lineOpen) this.stream.write(CLEAR_LINE)
    this.lineOpen = false
  }

  /** A line that stays: above the progress line on a terminal. */
  private standing(label: string, message: string, colour: string): void {
    this.finish()
    const painted =
      this.stream.isTTY && this.options.color ? `${colour}${label}:\x1b[39m` : `${label}:`
    this.stream.write(`${painted} ${this.options.clean(message)}\n`)
    this.lastLine = ''
  }
}
