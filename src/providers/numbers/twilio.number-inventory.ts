import { Inject, Injectable, Logger } from '@nestjs/common';
import twilio from 'twilio';
import { within } from '@/common/concurrency/within';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { TwilioUrls } from '@/providers/telephony/twilio-twiml';
import {
  AvailableNumber,
  InventoryProviderError,
  InventorySearch,
  InventoryType,
  NumberInventory,
  NumberRequirements,
  PurchasedNumber,
  PurchaseRequest,
} from './number-inventory.port';

type TwilioClient = ReturnType<typeof twilio>;
type Capabilities = Record<string, boolean | undefined>;
interface OfferedNumber {
  phoneNumber: string;
  isoCountry: string;
  locality: string;
  region: string;
  capabilities: unknown;
  addressRequirements: string;
}

const ADDRESS_REQUIREMENTS = ['none', 'any', 'local', 'foreign'] as const;
/** Twilio's pricing names of our number types. */
const PRICING_TYPES: Record<InventoryType, string> = {
  local: 'local',
  mobile: 'mobile',
  toll_free: 'toll free',
};
const PRICES_KEPT_MS = 3600_000;
/** A failed read of prices is asked again after this long (not on every search while the Pricing API is down). */
const PRICES_FAILED_KEPT_MS = 60_000;
/** How long a search or purchase waits for prices before answering without them. */
const PRICES_WAIT_MS = 3_000;
type Fee = AvailableNumber['monthly_fee'];

/**
 * Twilio's number inventory over its REST API (`TWILIO_API_URL`, the `twilio` package): `GET
 * .../AvailablePhoneNumbers/{country}/{Local,Mobile,TollFree}.json`, `POST .../IncomingPhoneNumbers.json` with
 * `VoiceUrl` and `SmsUrl` on our inbound hooks (an `address` given is first created as a Twilio Address and passed
 * as `AddressSid`; `requirements.address_sid` and `requirements.bundle_sid` pass as they are), and `DELETE
 * .../IncomingPhoneNumbers/{sid}.json`. Twilio's lists carry no price: `monthly_fee` is the country's current price
 * for the number type from Twilio's Pricing API (`GET {TWILIO_PRICING_URL}/v1/PhoneNumbers/Countries/{country}`,
 * read beside the list or the purchase and kept per process for an hour), or null when Twilio has no price for it
 * or the Pricing API does not answer within 3 s (a price never stops or holds up a search or a purchase; a failed
 * read is asked again a minute later). Twilio's lists carry no document requirements either (a bundle Twilio
 * wants comes back as its refusal).
 */
@Injectable()
export class TwilioNumberInventory implements NumberInventory {
  readonly localRequirements = false;
  readonly provider = 'twilio';
  private readonly logger = new Logger(TwilioNumberInventory.name);
  private client: TwilioClient | null = null;
  private readonly urls: TwilioUrls;
  /** Each country's monthly prices by Twilio number type, with when they were read. */
  private readonly prices = new Map<string, { until: number; fees: Promise<Map<string, Fee> | null> }>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.urls = new TwilioUrls(config.publicBaseUrl);
  }

  get configured(): boolean {
    return !!this.config.twilio.accountSid && !!this.config.twilio.authToken;
  }

  private rest(): TwilioClient {
    if (!this.configured) throw new InventoryProviderError(null, 'Twilio is not configured');
    if (!this.client) {
      const { accountSid, authToken, apiUrl } = this.config.twilio;
      this.client = twilio(accountSid, authToken, { autoRetry: false });
      this.client.api.baseUrl = apiUrl;
      this.client.pricing.baseUrl = this.config.twilio.pricingUrl;
    }
    return this.client;
  }

  async search(query: InventorySearch): Promise<AvailableNumber[]> {
    const fee = this.monthlyFee(query.countryCode, query.type);
    const found = await this.list(query);
    const monthly = found.length ? await fee : null;
    return found.map((n) => ({
      number: n.phoneNumber,
      country_code: n.isoCountry ?? query.countryCode,
      type: query.type,
      locality: n.locality || null,
      region: n.region || null,
      capabilities: capabilitiesOf(n.capabilities as Capabilities),
      monthly_fee: monthly,
      requirements: { address: addressRequirement(n.addressRequirements), documents: [] },
    }));
  }

  private list(query: InventorySearch): Promise<OfferedNumber[]> {
    const country = this.rest().availablePhoneNumbers(query.countryCode);
    const options: { limit: number; pageSize: number; contains?: string } = {
      limit: query.limit,
      pageSize: query.limit,
    };
    if (query.contains) options.contains = query.contains;
    return refusal<OfferedNumber[]>(() =>
      query.type === 'local'
        ? country.local.list(options)
        : query.type === 'mobile'
          ? country.mobile.list(options)
          : country.tollFree.list(options),
    );
  }

  /** What the first number Twilio offers in that country and type asks for (`none` when it offers none). */
  async requirements(countryCode: string, type: InventoryType): Promise<NumberRequirements> {
    const [first] = await this.list({ countryCode, type, limit: 1 });
    return { address: addressRequirement(first?.addressRequirements), documents: [] };
  }

  async purchase(request: PurchaseRequest): Promise<PurchasedNumber> {
    const client = this.rest();
    const fee = this.monthlyFee(request.countryCode, request.type);
    let addressSid = request.requirements?.address_sid;
    if (!addressSid && request.address) {
      const a = request.address;
      const created = await refusal(() =>
        client.addresses.create({
          customerName: a.customer_name ?? a.street,
          street: a.street,
          city: a.city,
          region: a.region ?? a.city,
          postalCode: a.postal_code,
          isoCountry: a.country_code,
        }),
      );
      addressSid = created.sid;
    }
    const bought = await refusal(() =>
      client.incomingPhoneNumbers.create({
        phoneNumber: request.number,
        voiceUrl: this.urls.inbound(),
        voiceMethod: 'POST',
        smsUrl: `${this.config.publicBaseUrl}/hooks/v1/twilio/sms/inbound`,
        smsMethod: 'POST',
        ...(addressSid ? { addressSid } : {}),
        ...(request.requirements?.bundle_sid ? { bundleSid: request.requirements.bundle_sid } : {}),
      }),
    );
    return {
      providerSid: bought.sid,
      capabilities: capabilitiesOf(bought.capabilities as unknown as Capabilities),
      monthlyFee: await fee,
    };
  }

  /**
   * The country's current monthly price for the type, or null when Twilio has none, cannot be asked, or has not
   * answered within PRICES_WAIT_MS (the read goes on, and a later search finds its answer). Never rejects.
   */
  private async monthlyFee(countryCode: string, type: InventoryType): Promise<Fee> {
    const country = countryCode.toUpperCase();
    let kept = this.prices.get(country);
    if (!kept || Date.now() > kept.until) {
      const read: { until: number; fees: Promise<Map<string, Fee> | null> } = {
        until: Date.now() + PRICES_KEPT_MS,
        fees: this.readPrices(country),
      };
      // A failed read is kept a minute only, so the next searches do not all wait on a Pricing API that is down.
      void read.fees.then((fees) => {
        if (!fees) read.until = Date.now() + PRICES_FAILED_KEPT_MS;
      });
      this.prices.set(country, read);
      kept = read;
    }
    const fees = await within(kept.fees, PRICES_WAIT_MS, null);
    return fees?.get(PRICING_TYPES[type]) ?? null;
  }

  /** The country's prices by Twilio number type (none when Twilio prices nothing there); null when not read. */
  private async readPrices(country: string): Promise<Map<string, Fee> | null> {
    const fees = new Map<string, Fee>();
    try {
      const priced = await this.rest().pricing.v1.phoneNumbers.countries(country).fetch();
      for (const p of priced.phoneNumberPrices ?? []) {
        // Twilio sends decimal strings (typed as numbers by the package): only a decimal amount is shown.
        const amount = String(p.currentPrice ?? p.basePrice ?? '');
        if (p.numberType && /^\d+(\.\d+)?$/.test(amount) && priced.priceUnit)
          fees.set(p.numberType.toLowerCase(), { amount, currency: priced.priceUnit.toUpperCase() });
      }
    } catch (err) {
      // No price for this country (404) or the Pricing API unreachable: the numbers are offered without one.
      const e = err as { status?: number; message?: string };
      if (e.status === 404) return fees;
      this.logger.warn({ country, status: e.status, err: e.message }, 'Twilio pricing unavailable');
      return null;
    }
    return fees;
  }

  async release(providerSid: string): Promise<void> {
    try {
      await this.rest().incomingPhoneNumbers(providerSid).remove();
    } catch (err) {
      // Already gone at Twilio: released all the same.
      if ((err as { status?: number }).status === 404) return;
      throw toProviderError(err);
    }
  }
}

function capabilitiesOf(c: Capabilities | undefined): AvailableNumber['capabilities'] {
  return {
    call: !!(c?.voice ?? c?.Voice),
    sms: !!(c?.SMS ?? c?.sms),
    whatsapp: false,
    whatsapp_call: false,
  };
}

function addressRequirement(value: string | undefined): NumberRequirements['address'] {
  return (ADDRESS_REQUIREMENTS as readonly string[]).includes(value ?? '')
    ? (value as NumberRequirements['address'])
    : 'none';
}

function toProviderError(err: unknown): InventoryProviderError {
  if (err instanceof InventoryProviderError) return err;
  const e = err as { code?: number | string; status?: number; message?: string };
  return new InventoryProviderError(e.code ?? null, e.message ?? 'Twilio refused the request', e.status);
}

async function refusal<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toProviderError(err);
  }
}
