import { DTMF_KEYS } from '@/common/telephony/dtmf';

/** Keys pressed within this long of the previous one are one turn, `(pressed 1 2)`. */
export const DTMF_GAP_MS = 1_500;
/** Keys held at most: one more makes a turn of those at once. */
const DTMF_MAX_KEYS = 32;

/** The keys a caller presses on a media session, gathered into turns: keys pressed close together are one. */
export class SessionKeypad {
  /** Keys pressed and not yet a turn, and the timer that makes them one once no key follows. */
  private keys = '';
  private timer: NodeJS.Timeout | null = null;

  /** `turn`: the keys of one turn, pressed in that order. */
  constructor(private readonly turn: (keys: string) => void) {}

  /** A key pressed (anything but 0-9, * and # is ignored). */
  press(digit: string): void {
    if (digit.length !== 1 || !DTMF_KEYS.test(digit)) return;
    this.keys += digit;
    this.stopTimer();
    if (this.keys.length >= DTMF_MAX_KEYS) this.flush();
    else this.timer = setTimeout(() => this.flush(), DTMF_GAP_MS);
  }

  /** The keys held become a turn now (words follow them, or too many were pressed). */
  flush(): void {
    this.stopTimer();
    const keys = this.keys;
    this.keys = '';
    if (keys) this.turn(keys);
  }

  /** Drops the keys held. */
  close(): void {
    this.stopTimer();
    this.keys = '';
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
