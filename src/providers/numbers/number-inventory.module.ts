import { Inject, Injectable, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { NUMBER_INVENTORIES, NumberInventory } from './number-inventory.port';
import { SandboxNumberInventory } from './sandbox.number-inventory';
import { TwilioNumberInventory } from './twilio.number-inventory';

/** The inventory numbers are bought from, and the one a bought number is released through. */
@Injectable()
export class NumberInventoryRegistry {
  constructor(@Inject(NUMBER_INVENTORIES) private readonly inventories: NumberInventory[]) {}

  /** Twilio when TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are set, else the sandbox. */
  current(): NumberInventory {
    return this.inventories[this.inventories.length - 1];
  }

  /** The inventory of a bought number's provider, or null when it is no longer configured. */
  for(provider: string): NumberInventory | null {
    return this.inventories.find((i) => i.provider === provider) ?? null;
  }
}

@Module({
  providers: [
    SandboxNumberInventory,
    TwilioNumberInventory,
    {
      provide: NUMBER_INVENTORIES,
      inject: [SandboxNumberInventory, TwilioNumberInventory, APP_CONFIG],
      useFactory: (s: SandboxNumberInventory, t: TwilioNumberInventory, config: AppConfig) =>
        config.twilio.accountSid && config.twilio.authToken ? [s, t] : [s],
    },
    NumberInventoryRegistry,
  ],
  exports: [NumberInventoryRegistry],
})
export class NumberInventoryModule {}
