import { Injectable } from '@nestjs/common';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { EntityManager } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf, PageQuery, skipTake } from '@/common/http/pagination';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { DEFAULT_CAPABILITIES, PhoneNumber } from './phone-number.entity';
import { PhoneNumbersRepository } from './phone-numbers.repository';

/** Numbers the workspace reaches over its own SIP trunks (`source: external`), registered by the SIP module. */
@Injectable()
export class ExternalNumbersService {
  constructor(private readonly numbers: PhoneNumbersRepository) {}

  /**
   * A number reached over the customer's own SIP trunk (`source: external`, `is_external: true`), call-capable
   * only, in the caller's transaction. Already in the workspace: 409.
   */
  async registerExternal(
    workspaceId: WorkspaceId,
    n: { number: string; provider: string; countryCode?: string | null },
    m: EntityManager,
  ): Promise<PhoneNumber> {
    // Inbound calls are routed by the number, so a real provider's number has one owner across workspaces (as for
    // registration: PhoneNumbersService.register).
    if (n.provider !== 'sandbox') {
      await this.numbers.lockNumber(n.number, m);
      if (await this.numbers.heldByAnotherWorkspace(workspaceId, n.number, m))
        throw AppException.conflict('This number is already in use by another workspace');
    }
    const entity = this.numbers.build(workspaceId, {
      number: n.number,
      provider: n.provider,
      status: 'active',
      countryCode: n.countryCode ?? parsePhoneNumberFromString(n.number)?.country ?? null,
      type: null,
      capabilities: { ...DEFAULT_CAPABILITIES, sms: false },
      isExternal: true,
      source: 'external',
    });
    await this.numbers.insertOwned(workspaceId, entity, m);
    return entity;
  }

  /** The workspace's numbers of one `source`, newest first. */
  async listBySource(workspaceId: WorkspaceId, source: string, query: PageQuery): Promise<Page<PhoneNumber>> {
    const [rows, total] = await this.numbers.findAndCount(workspaceId, {
      where: { source },
      order: { createdAt: 'DESC', id: 'DESC' },
      ...skipTake(query),
    });
    return pageOf(rows, total, query);
  }
}
