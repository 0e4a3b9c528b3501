import { Injectable } from '@nestjs/common';

/** The time cron triggers read. Operators never move it; tests shift it to reach a cron time without waiting. */
@Injectable()
export class FlowClock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Makes `now()` answer `at` from this instant on (tests). */
  set(at: Date): void {
    this.offsetMs = at.getTime() - Date.now();
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
