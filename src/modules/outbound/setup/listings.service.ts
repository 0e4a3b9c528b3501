import { Injectable } from '@nestjs/common';
import { AppException } from '@/common/errors/app.exception';
import { Page, pageOf } from '@/common/http/pagination';
import { Transaction, UnitOfWork } from '@/common/persistence/unit-of-work';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { AgentContextReader, agentInBody } from '@/modules/conversations/agent-context';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { CampaignTransitions } from '../engine/campaign-transitions';
import { Campaign } from '../outbound.entities';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';
import { CampaignResponse } from './dto/campaign.dto';
import {
  AddedListingContactsResponse,
  AddListingContactsDto,
  CreatedListingResponse,
  CreateListingDto,
  ListingContactDto,
  ListingListQuery,
  ListingResponse,
} from './dto/listing.dto';
import { RemovedMemberResponse } from './dto/pool.dto';
import { ListingContactsRepository } from './listing-contacts.repository';
import { PoolsRepository } from './pools.repository';
import { PoolsService } from './pools.service';
import { RulesRepository } from './rules.repository';
import { fieldsOf } from './rules.service';

/** Listings (§15.6): the source product's bulk helper, a campaign over one FIFO pool made in one transaction. */
@Injectable()
export class ListingsService {
  constructor(
    private readonly campaignsService: CampaignsService,
    private readonly campaigns: CampaignsRepository,
    private readonly transitions: CampaignTransitions,
    private readonly pools: PoolsRepository,
    private readonly poolsService: PoolsService,
    private readonly rules: RulesRepository,
    private readonly contacts: ListingContactsRepository,
    private readonly contactsService: ContactsService,
    private readonly agents: AgentContextReader,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /**
   * Contacts matched or created (each new one announced by `contact_created`), the pool, the rule (when given by
   * fields) and the campaign: all or nothing, events included.
   */
  async create(workspaceId: WorkspaceId, dto: CreateListingDto): Promise<CreatedListingResponse> {
    await agentInBody(this.agents, workspaceId, dto.agent_uuid);
    if (dto.rule?.uuid && !(await this.rules.findById(workspaceId, dto.rule.uuid)))
      throw AppException.invalid(
        'rule.uuid',
        'rule.uuid names no rule of this workspace',
        'VALIDATION_ERROR',
      );
    return this.unitOfWork.run(async (tx) => {
      // Errors of the campaign and rule beneath name the listing's own keys.
      return inListingTerms(() => this.createIn(tx, workspaceId, dto));
    });
  }

  private async createIn(
    tx: Transaction,
    workspaceId: WorkspaceId,
    dto: CreateListingDto,
  ): Promise<CreatedListingResponse> {
    const upserted = await this.upsertContacts(tx, workspaceId, dto.contacts);
    let ruleId: string | null = dto.rule?.uuid ?? null;
    if (dto.rule && !dto.rule.uuid) {
      const rule = this.rules.build(workspaceId, {
        name: dto.rule.name ?? `${dto.name} rule`.slice(0, 255),
        ...fieldsOf(dto.rule, null),
      });
      await this.rules.save(workspaceId, rule, tx);
      ruleId = rule.id;
    }
    const pool = this.pools.build(workspaceId, {
      name: dto.name,
      description: dto.description ?? null,
      type: 'FIFO',
      maxParallelItems: 10,
      maxRetries: 3,
      isActive: true,
    });
    await this.pools.save(workspaceId, pool, tx);
    await this.pools.addMembers(
      workspaceId,
      pool.id,
      upserted.ids.map((contactId) => ({ contactId, priority: 0 })),
      tx,
    );
    const campaign = await this.campaignsService.create(
      workspaceId,
      {
        name: dto.name,
        description: dto.description,
        agent_uuid: dto.agent_uuid,
        channel: dto.campaign_type,
        template_setting_uuid: dto.template_setting_uuid,
        pool_uuids: [pool.id],
        start_at: dto.start_date,
        end_at: dto.end_date,
      },
      tx,
      { ruleId, listing: true },
    );
    const started = dto.auto_start
      ? await this.transitions.apply(workspaceId, campaign.uuid, 'start', tx)
      : campaign;
    return {
      ...view(started, pool.id, upserted.ids.length),
      contacts_created: upserted.created,
      contacts_updated: upserted.updated,
    };
  }

  async list(workspaceId: WorkspaceId, q: ListingListQuery): Promise<Page<ListingResponse>> {
    const page = await this.campaignsService.list(workspaceId, { ...q, search: q.search }, true);
    const counts = await this.pools.memberCounts(
      workspaceId,
      page.items.map((c) => c.pool_uuids[0]).filter(Boolean),
    );
    return pageOf(
      page.items.map((c) => view(c, c.pool_uuids[0] ?? null, counts.get(c.pool_uuids[0]) ?? 0)),
      page.pagination.total,
      q,
    );
  }

  async get(workspaceId: WorkspaceId, id: string): Promise<ListingResponse> {
    const c = await this.find(workspaceId, id);
    const response = await this.campaignsService.view(workspaceId, c);
    const poolId = response.pool_uuids[0] ?? null;
    const counts = await this.pools.memberCounts(workspaceId, poolId ? [poolId] : []);
    return view(response, poolId, poolId ? (counts.get(poolId) ?? 0) : 0);
  }

  /**
   * Adds `contacts` (matched or created as at creation) and `contact_uuids` to the listing's pool, in one transaction
   * under the pool's lock (so two requests sending one new number make one contact).
   */
  async addContacts(
    workspaceId: WorkspaceId,
    id: string,
    dto: AddListingContactsDto,
  ): Promise<AddedListingContactsResponse> {
    if (!dto.contacts && !dto.contact_uuids)
      throw AppException.invalid('contacts', 'contacts or contact_uuids is required', 'VALIDATION_ERROR');
    const poolId = await this.poolOf(workspaceId, id);
    return this.unitOfWork.run(async (tx) => {
      if (!(await this.pools.lock(workspaceId, poolId, tx))) throw AppException.notFound('Listing');
      const upserted = dto.contacts
        ? await this.upsertContacts(tx, workspaceId, dto.contacts)
        : { ids: [], created: 0, updated: 0 };
      const ids = [...upserted.ids, ...(dto.contact_uuids ?? [])];
      const added = await this.poolsService.addContactsIn(tx, workspaceId, poolId, ids, dto.priority);
      return { ...added, contacts_created: upserted.created, contacts_updated: upserted.updated };
    });
  }

  /** Contacts matched by phone then email (found ones updated) or created, each new one announced. */
  private async upsertContacts(tx: Transaction, workspaceId: WorkspaceId, contacts: ListingContactDto[]) {
    const upserted = await this.contacts.upsert(workspaceId, contacts, tx);
    await this.contactsService.announceCreated(tx, workspaceId, upserted.createdIds);
    return upserted;
  }

  async removeContact(
    workspaceId: WorkspaceId,
    id: string,
    contactId: string,
  ): Promise<RemovedMemberResponse> {
    return this.poolsService.removeContact(workspaceId, await this.poolOf(workspaceId, id), contactId);
  }

  private async find(workspaceId: WorkspaceId, id: string): Promise<Campaign> {
    const c = await this.campaigns.findById(workspaceId, id);
    if (!c?.isListing) throw AppException.notFound('Listing');
    return c;
  }

  private async poolOf(workspaceId: WorkspaceId, id: string): Promise<string> {
    await this.find(workspaceId, id);
    const [pool] = await this.campaigns.pools(workspaceId, id);
    if (!pool) throw AppException.conflict('Listing has no pool');
    return pool.id;
  }
}

function view(c: CampaignResponse, poolId: string | null, contacts: number): ListingResponse {
  return {
    uuid: c.uuid,
    name: c.name,
    description: c.description,
    campaign_type: c.channel,
    agent_uuid: c.agent_uuid,
    pool_uuid: poolId,
    rule_uuid: c.rule_uuid,
    status: c.status,
    start_date: c.start_at,
    end_date: c.end_at,
    contacts_count: contacts,
    created_at: c.created_at,
  };
}

/** The campaign's and rule's field names as a listing's body spells them. */
const LISTING_FIELDS: Record<string, string> = {
  start_at: 'start_date',
  end_at: 'end_date',
  channel: 'campaign_type',
  start_time: 'rule.start_time',
  end_time: 'rule.end_time',
  days: 'rule.days',
  retry_on: 'rule.retry_on',
};

async function inListingTerms<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const field = err instanceof AppException ? err.options.field : undefined;
    const renamed = field ? LISTING_FIELDS[field] : undefined;
    if (!renamed || !(err instanceof AppException)) throw err;
    const message = err.message.replace(new RegExp(`\\b${field}\\b`, 'g'), renamed);
    throw new AppException(err.code, message, {
      ...err.options,
      field: renamed,
      details: message,
      fieldErrors: err.options.fieldErrors?.map((e) => ({ ...e, field: LISTING_FIELDS[e.field] ?? e.field })),
    });
  }
}
