/** A source of the current time, injectable so tests never sleep. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(public ms = Date.UTC(2026, 10, 22)) {}
  now(): number {
    return this.ms;
  }
  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.ms += ms;
  }
}
