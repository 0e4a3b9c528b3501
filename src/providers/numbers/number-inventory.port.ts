/** The number types the inventory sells (Twilio's Local, Mobile and TollFree lists). */
export const INVENTORY_TYPES = ['local', 'mobile', 'toll_free'] as const;
export type InventoryType = (typeof INVENTORY_TYPES)[number];

/** What a country asks of a buyer: an address (Twilio's `address_requirements`) and documents. */
export interface NumberRequirements {
  /** `none`; `any` address; a `local` one (in the number's country); a `foreign` one (outside it). */
  address: 'none' | 'any' | 'local' | 'foreign';
  /** Documents the buyer must name in `requirements` (keys of that object), such as `bundle_sid`. */
  documents: string[];
}

export interface AvailableNumber {
  number: string;
  country_code: string;
  type: InventoryType;
  locality: string | null;
  region: string | null;
  capabilities: { call: boolean; sms: boolean; whatsapp: boolean; whatsapp_call: boolean };
  monthly_fee: { amount: string; currency: string } | null;
  requirements: NumberRequirements;
}

export interface InventorySearch {
  countryCode: string;
  type: InventoryType;
  /** Digits the number must contain (Twilio's `Contains`). */
  contains?: string;
  limit: number;
}

export interface PurchaseAddress {
  customer_name?: string;
  street: string;
  city: string;
  region?: string;
  postal_code: string;
  country_code: string;
}

export interface PurchaseRequest {
  number: string;
  countryCode: string;
  type: InventoryType;
  address?: PurchaseAddress;
  requirements?: Record<string, string>;
  /** Our id of the number, for the hook URLs. */
  phoneNumberId: string;
}

export interface PurchasedNumber {
  providerSid: string;
  capabilities: AvailableNumber['capabilities'];
  monthlyFee: AvailableNumber['monthly_fee'];
}

/** A provider refusing a request: its own code and message (answered as 502 PROVIDER_ERROR). */
export class InventoryProviderError extends Error {
  constructor(
    readonly code: string | number | null,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Port "number inventory": search the provider's available numbers, buy one, release one. */
export interface NumberInventory {
  readonly provider: string;
  /**
   * Whether the inventory's offers and requirements are known here (the sandbox): the purchase is then checked
   * before it is made (not offered: 409; a requirement missing: 422). Otherwise the provider checks and refuses.
   */
  readonly localRequirements: boolean;
  /** Whether the number is offered in that country and type (inventories with local requirements). */
  offers?(number: string, countryCode: string, type: InventoryType): boolean;
  search(query: InventorySearch): Promise<AvailableNumber[]>;
  requirements(countryCode: string, type: InventoryType): Promise<NumberRequirements>;
  /** Buys the number; throws InventoryProviderError when the provider refuses. */
  purchase(request: PurchaseRequest): Promise<PurchasedNumber>;
  /** Gives the number back to the provider; a number the provider no longer has counts as released. */
  release(providerSid: string): Promise<void>;
}

export const NUMBER_INVENTORIES = Symbol('NUMBER_INVENTORIES');
