import { Module } from '@nestjs/common';
import { SandboxTelephony } from './sandbox.telephony';
import { TELEPHONY_ADAPTERS } from './telephony.port';
import { TelephonyRegistry } from './telephony.registry';

/** Telephony adapters by provider; the sandbox is always there, real providers join when configured. */
@Module({
  providers: [
    SandboxTelephony,
    { provide: TELEPHONY_ADAPTERS, inject: [SandboxTelephony], useFactory: (s: SandboxTelephony) => [s] },
    TelephonyRegistry,
  ],
  exports: [TelephonyRegistry],
})
export class TelephonyModule {}
