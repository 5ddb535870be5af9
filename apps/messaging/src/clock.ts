/**
 * The messaging service's clock: when a message is logged and what retention counts from. Production reads the
 * system time; a test moves it forward (`advance`) to make messages old without waiting (retention).
 */
export class Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
