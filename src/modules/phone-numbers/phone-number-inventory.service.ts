import { Inject, Injectable, Logger } from '@nestjs/common';
import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { AppException } from '@/common/errors/app.exception';
import { newId } from '@/common/persistence/base.entity';
import { isPgError, PG_UNIQUE_VIOLATION } from '@/common/persistence/pg-errors';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { NumberInventoryRegistry } from '@/providers/numbers/number-inventory.module';
import {
  AvailableNumber,
  InventoryProviderError,
  NumberInventory,
  NumberRequirements,
} from '@/providers/numbers/number-inventory.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { PurchaseNumberDto, RequirementsQuery, SearchNumbersQuery } from './dto/inventory.dto';
import type { PhoneNumberResponse, SearchRequirementsResponse } from './dto/phone-numbers.response';
import { PhoneNumbersRepository } from './phone-numbers.repository';
import { PhoneNumbersService } from './phone-numbers.service';

const DEFAULT_LIMIT = 20;
/** Offers asked of the provider beyond the limit, so numbers other workspaces hold can be left out. */
const OVERFETCH = 25;

/** A provider's refusal as the API answers it: 502 PROVIDER_ERROR with its code and message in `details`. */
function providerError(err: unknown, action: string): unknown {
  if (!(err instanceof InventoryProviderError)) return err;
  return new AppException('PROVIDER_ERROR', `The provider refused the ${action}: ${err.message}`, {
    details: JSON.stringify({ code: err.code, message: err.message }),
  });
}

/**
 * Number search, purchase and release through the number inventory (Twilio when configured, else the sandbox).
 * Purchases of a workspace are serialised by a transaction-scoped advisory lock, so the count against
 * PHONE_NUMBER_PURCHASE_LIMIT and the insert cannot interleave; a bought number has one owner across workspaces
 * (a partial unique index).
 */
@Injectable()
export class PhoneNumberInventoryService {
  private readonly logger = new Logger(PhoneNumberInventoryService.name);

  constructor(
    private readonly inventories: NumberInventoryRegistry,
    private readonly numbers: PhoneNumbersRepository,
    private readonly phoneNumbers: PhoneNumbersService,
    private readonly unitOfWork: UnitOfWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async search(query: SearchNumbersQuery): Promise<AvailableNumber[]> {
    const country = this.country(query.country_code);
    const type = query.type ?? 'local';
    const limit = query.limit ?? DEFAULT_LIMIT;
    const inventory = this.inventories.current();
    const offers = await inventory
      .search({ countryCode: country, type, contains: query.contains, limit: limit + OVERFETCH })
      .catch((err: unknown) => {
        throw providerError(err, 'search');
      });
    const held = await this.numbers.heldAnywhere(offers.map((o) => o.number));
    return offers.filter((o) => !held.has(o.number)).slice(0, limit);
  }

  async requirements(query: RequirementsQuery): Promise<SearchRequirementsResponse> {
    const country = this.country(query.country_code);
    const type = query.type ?? 'local';
    const inventory = this.inventories.current();
    const requirements = await inventory.requirements(country, type).catch((err: unknown) => {
      throw providerError(err, 'requirements lookup');
    });
    return { country_code: country, type, provider: inventory.provider, ...requirements };
  }

  async purchase(workspaceId: WorkspaceId, dto: PurchaseNumberDto): Promise<PhoneNumberResponse> {
    const country = this.country(dto.country_code);
    const parsed = parsePhoneNumberFromString(dto.number);
    if (!parsed || parsed.country !== country)
      throw AppException.invalid('number', `number is not a phone number of ${country}`);
    for (const [key, value] of Object.entries(dto.requirements ?? {}))
      if (!/^[a-z_]{1,40}$/.test(key) || typeof value !== 'string' || value.length > 100)
        throw AppException.invalid(
          `requirements.${key.slice(0, 40)}`,
          'requirements must map keys (lowercase letters and _) to strings of at most 100 characters',
        );
    const inventory = this.inventories.current();
    if (inventory.localRequirements) {
      if (!inventory.offers?.(dto.number, country, dto.type))
        throw AppException.conflict(`The number ${dto.number} is not available (${country}, ${dto.type})`);
      this.checkRequirements(await inventory.requirements(country, dto.type), country, dto);
    }
    const id = newId();
    const limit = this.config.limits.phoneNumberPurchases;
    const saved = await this.unitOfWork.run(async (m) => {
      await this.numbers.lockPurchases(workspaceId, m);
      await this.numbers.lockNumber(dto.number, m);
      const current = await this.numbers.countPurchased(workspaceId, m);
      if (current >= limit)
        throw new AppException(
          'PURCHASE_LIMIT_REACHED',
          `The workspace has bought ${current} of its ${limit} numbers: release one first`,
          { details: JSON.stringify({ limit, current }) },
        );
      if ((await this.numbers.heldAnywhere([dto.number], m)).size)
        throw AppException.conflict(`The number ${dto.number} is already owned`);
      const bought = await inventory
        .purchase({
          number: dto.number,
          countryCode: country,
          type: dto.type,
          address: dto.address,
          requirements: dto.requirements,
          phoneNumberId: id,
        })
        .catch((err: unknown) => {
          throw providerError(err, 'purchase');
        });
      const entity = this.numbers.build(workspaceId, {
        id,
        number: dto.number,
        provider: inventory.provider,
        status: 'active',
        countryCode: country,
        type: dto.type,
        capabilities: bought.capabilities,
        isExternal: false,
        source: 'purchased',
        providerSid: bought.providerSid,
        monthlyFee: bought.monthlyFee,
        channelSettings: {},
      });
      try {
        await this.numbers.save(workspaceId, entity, m);
      } catch (err) {
        // Bought meanwhile by another workspace (the index on bought numbers): give ours back.
        await this.giveBack(inventory, bought.providerSid);
        if (isPgError(err, PG_UNIQUE_VIOLATION))
          throw AppException.conflict(`The number ${dto.number} is already owned`);
        throw err;
      }
      return entity;
    });
    return this.phoneNumbers.read(workspaceId, saved.id);
  }

  /**
   * Gives a bought number back to its provider and deletes it with its bindings (calls and messages keep their
   * numbers as text). Answers the number as it was, `status: released`.
   */
  async release(workspaceId: WorkspaceId, id: string): Promise<PhoneNumberResponse> {
    return this.unitOfWork.run(async (m) => {
      const number = await this.numbers.lockById(workspaceId, id, m);
      if (!number) throw AppException.notFound('Phone number');
      if (number.source !== 'purchased' || !number.providerSid)
        throw AppException.conflict(
          `Only purchased numbers can be released; ${number.number} is ${number.source} (remove it with DELETE /phone-numbers/{uuid})`,
        );
      const inventory = this.inventories.for(number.provider);
      if (!inventory)
        throw AppException.conflict(`The number inventory of ${number.provider} is not configured`);
      const [answer] = await this.phoneNumbers.views(workspaceId, [number]);
      await inventory.release(number.providerSid).catch((err: unknown) => {
        throw providerError(err, 'release');
      });
      await this.numbers.delete(workspaceId, { id }, m);
      return { ...answer, status: 'released', updated_at: new Date().toISOString() };
    });
  }

  private country(code: string): string {
    if (!isSupportedCountry(code))
      throw AppException.invalid('country_code', `country_code ${code} is not a country with phone numbers`);
    return code;
  }

  /** What the sandbox's requirements ask of the purchase body: 422 naming the missing field. */
  private checkRequirements(r: NumberRequirements, country: string, dto: PurchaseNumberDto): void {
    if (r.address !== 'none') {
      if (!dto.address)
        throw AppException.invalid(
          'address',
          `address is required for ${country} ${dto.type} numbers (${r.address})`,
          'VALIDATION_ERROR',
        );
      if (r.address === 'local' && dto.address.country_code !== country)
        throw AppException.invalid('address.country_code', `address.country_code must be ${country}`);
      if (r.address === 'foreign' && dto.address.country_code === country)
        throw AppException.invalid('address.country_code', `address.country_code must not be ${country}`);
    }
    for (const key of r.documents) {
      const value = dto.requirements?.[key];
      if (typeof value !== 'string' || !value.trim())
        throw AppException.invalid(
          `requirements.${key}`,
          `requirements.${key} is required for ${country} ${dto.type} numbers`,
          'VALIDATION_ERROR',
        );
    }
  }

  private async giveBack(inventory: NumberInventory, providerSid: string): Promise<void> {
    await inventory.release(providerSid).catch((err: unknown) => {
      this.logger.error({ providerSid, err: String(err) }, 'a bought number could not be given back');
    });
  }
}
