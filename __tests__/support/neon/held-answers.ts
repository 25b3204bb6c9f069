/*
 * The answers held until a number of requests have come (the handler's `holdUntil`), then given
 * all at once: runs started together then go on together, whatever each one's start-up took.
 */
export class HeldAnswers {
  private held?: { left: number; release: () => void; released: Promise<void> }

  hold(count: number): void {
    let release = (): void => undefined
    const released = new Promise<void>((resolve) => (release = resolve))
    this.held = { left: count, release, released }
  }

  /** A request came: while answers are held, when its own is released. */
  arrive(): Promise<void> | undefined {
    const held = this.held
    if (!held) return undefined
    if (--held.left === 0) {
      this.held = undefined
      held.release()
    }
    return held.released
  }
}
