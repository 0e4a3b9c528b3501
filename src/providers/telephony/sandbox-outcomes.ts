import type { CallStatus, ProviderError } from './telephony.port';

export interface SandboxOutcome {
  /** The call's status after the answer delay; null: it rings until simulated or until the ring timeout. */
  call: CallStatus | null;
  error: ProviderError | null;
  /** Whether a forward to this number connects. */
  forwardConnects: boolean;
  /** What answering-machine detection reports once the call is answered (Twilio's `AnsweredBy`), when it runs. */
  answeredBy: 'human' | 'machine_end_beep' | 'fax' | null;
}

/** The sandbox's outcomes, chosen by the last four digits of the destination. */
export function sandboxOutcome(to: string): SandboxOutcome {
  switch (to.replace(/\D/g, '').slice(-4)) {
    case '0002':
      return { call: 'busy', error: null, forwardConnects: false, answeredBy: null };
    case '0003':
      return { call: 'no-answer', error: null, forwardConnects: false, answeredBy: null };
    case '0004':
      return {
        call: 'failed',
        error: { code: 'SANDBOX_UNREACHABLE', message: 'The sandbox destination is unreachable' },
        forwardConnects: false,
        answeredBy: null,
      };
    // An answering machine (its greeting ends with a beep) and a fax: answered, and told apart by detection only.
    case '0005':
      return { call: 'in-progress', error: null, forwardConnects: true, answeredBy: 'machine_end_beep' };
    case '0006':
      return { call: 'in-progress', error: null, forwardConnects: true, answeredBy: 'fax' };
    case '0009':
      return { call: null, error: null, forwardConnects: false, answeredBy: null };
    default:
      return { call: 'in-progress', error: null, forwardConnects: true, answeredBy: 'human' };
  }
}
