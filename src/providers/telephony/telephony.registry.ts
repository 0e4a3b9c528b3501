import { Inject, Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { ProviderNotConfigured } from '@/common/errors/domain-errors';
import { TELEPHONY_ADAPTERS, TelephonyAdapter } from './telephony.port';

/** The adapter for a number's `provider`. */
@Injectable()
export class TelephonyRegistry {
  constructor(@Inject(TELEPHONY_ADAPTERS) private readonly adapters: TelephonyAdapter[]) {}

  has(provider: string): boolean {
    return this.adapters.some((a) => a.provider === provider);
  }

  for(provider: string): TelephonyAdapter {
    const adapter = this.adapters.find((a) => a.provider === provider);
    if (!adapter) throw new ProviderNotConfigured(provider);
    return adapter;
  }

  /** The adapter for placing a call: 409 naming what is missing when it cannot place one now. */
  forCalls(provider: string): TelephonyAdapter {
    const adapter = this.for(provider);
    const reason = adapter.unavailableReason?.() ?? null;
    if (reason) throw AppException.conflict(reason);
    return adapter;
  }
}
