import { Injectable } from '@nestjs/common';
import { getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { CountryCode, NumberType } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/examples.mobile.json';
import type {
  AvailableNumber,
  InventorySearch,
  InventoryType,
  NumberInventory,
  NumberRequirements,
  PurchasedNumber,
  PurchaseRequest,
} from './number-inventory.port';

/** libphonenumber's types each inventory type accepts. */
const ACCEPTED: Record<InventoryType, NumberType[]> = {
  mobile: ['MOBILE', 'FIXED_LINE_OR_MOBILE'],
  local: ['FIXED_LINE', 'FIXED_LINE_OR_MOBILE'],
  toll_free: ['TOLL_FREE'],
};
const FEES: Record<InventoryType, string> = { local: '1.15', mobile: '2.00', toll_free: '2.15' };
/** Numbers per country and type (a search answers at most 50 of them). */
const POOL_SIZE = 200;
/** The last three digits are walked in this stride (coprime with 1000), so a pool spreads over the range. */
const STRIDE = 337;

const EXAMPLES = examples as Record<string, string>;

/**
 * A deterministic inventory per country and type, built from libphonenumber's example mobile numbers
 * (`libphonenumber-js/examples.mobile.json`). The base of a type is the country's example when libphonenumber
 * gives it that type; otherwise the first candidate, in a fixed order, that it does: the example with its first
 * one, two, then three digits replaced by 0, 1, 2, ... (at the example's length, then one shorter, one longer, two
 * shorter). The pool is the base with its last three digits walked from the base's own in steps of 337 (mod 1000),
 * keeping the valid numbers of that type, up to 200. No base found: the type is not sold in that country (an empty
 * list). Capabilities: calls always; SMS on mobile numbers and on every number of the +1 plan. Requirements: none in
 * the +1 plan; elsewhere a local address for local numbers, any address for mobile numbers, and any address with a
 * `bundle_sid` for toll-free numbers. Purchases always succeed; the sandbox has no owner of its own, so only the
 * numbers table says which are taken.
 */
@Injectable()
export class SandboxNumberInventory implements NumberInventory {
  readonly localRequirements = true;
  readonly provider = 'sandbox';
  private readonly pools = new Map<string, string[]>();

  search(query: InventorySearch): Promise<AvailableNumber[]> {
    const digits = query.contains?.replace(/\D/g, '') ?? '';
    const pool = this.pool(query.countryCode, query.type).filter((n) => !digits || n.includes(digits));
    return Promise.resolve(
      pool.slice(0, query.limit).map((number) => this.available(number, query.countryCode, query.type)),
    );
  }

  requirements(countryCode: string, type: InventoryType): Promise<NumberRequirements> {
    return Promise.resolve(SandboxNumberInventory.requirementsOf(countryCode, type));
  }

  purchase(request: PurchaseRequest): Promise<PurchasedNumber> {
    const offer = this.available(request.number, request.countryCode, request.type);
    return Promise.resolve({
      providerSid: `PNSB${request.phoneNumberId.replace(/-/g, '')}`,
      capabilities: offer.capabilities,
      monthlyFee: offer.monthly_fee,
    });
  }

  release(): Promise<void> {
    return Promise.resolve();
  }

  /** Whether the number is in the sandbox's inventory of that country and type. */
  offers(number: string, countryCode: string, type: InventoryType): boolean {
    return this.pool(countryCode, type).includes(number);
  }

  static requirementsOf(countryCode: string, type: InventoryType): NumberRequirements {
    if (callingCode(countryCode) === '1') return { address: 'none', documents: [] };
    if (type === 'local') return { address: 'local', documents: [] };
    if (type === 'mobile') return { address: 'any', documents: [] };
    return { address: 'any', documents: ['bundle_sid'] };
  }

  private available(number: string, countryCode: string, type: InventoryType): AvailableNumber {
    const nanp = callingCode(countryCode) === '1';
    return {
      number,
      country_code: countryCode,
      type,
      locality: null,
      region: null,
      capabilities: { call: true, sms: type === 'mobile' || nanp, whatsapp: false, whatsapp_call: false },
      monthly_fee: { amount: FEES[type], currency: 'USD' },
      requirements: SandboxNumberInventory.requirementsOf(countryCode, type),
    };
  }

  private pool(countryCode: string, type: InventoryType): string[] {
    const key = `${countryCode}:${type}`;
    let pool = this.pools.get(key);
    if (!pool) {
      pool = buildPool(countryCode, type);
      this.pools.set(key, pool);
    }
    return pool;
  }
}

function callingCode(countryCode: string): string | null {
  try {
    return getCountryCallingCode(countryCode as CountryCode);
  } catch {
    return null;
  }
}

/** The E.164 form of a national number when libphonenumber gives it the type in that country, else null. */
function ofType(countryCode: string, cc: string, nsn: string, type: InventoryType): string | null {
  const parsed = parsePhoneNumberFromString(`+${cc}${nsn}`);
  if (!parsed || parsed.country !== countryCode || !parsed.isValid()) return null;
  const kind = parsed.getType();
  return kind && ACCEPTED[type].includes(kind) ? parsed.number : null;
}

function baseOf(countryCode: string, cc: string, type: InventoryType): string | null {
  const example = EXAMPLES[countryCode];
  if (!example) return null;
  if (ofType(countryCode, cc, example, type)) return example;
  for (const length of [example.length, example.length - 1, example.length + 1, example.length - 2]) {
    if (length < 4) continue;
    const shape = example.padEnd(length, '0').slice(0, length);
    for (const k of [1, 2, 3])
      for (let p = 0; p < 10 ** k; p += 1) {
        const candidate = String(p).padStart(k, '0') + shape.slice(k);
        const found = ofType(countryCode, cc, candidate, type);
        if (found) return found.slice(cc.length + 1);
      }
  }
  return null;
}

function buildPool(countryCode: string, type: InventoryType): string[] {
  const cc = callingCode(countryCode);
  if (!cc) return [];
  const base = baseOf(countryCode, cc, type);
  if (!base) return [];
  const head = base.slice(0, -3);
  const start = Number(base.slice(-3));
  const pool: string[] = [];
  const seen = new Set<string>();
  for (let k = 0; k < 1000 && pool.length < POOL_SIZE; k += 1) {
    const tail = String((start + k * STRIDE) % 1000).padStart(3, '0');
    const found = ofType(countryCode, cc, head + tail, type);
    if (found && !seen.has(found)) {
      seen.add(found);
      pool.push(found);
    }
  }
  return pool;
}
