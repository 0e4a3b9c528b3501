import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { AppException } from '@/common/errors/app.exception';
import { SecretBox } from '@/common/crypto/secret-box';
import type { ScopedWhere } from '@/common/persistence/workspace-scoped.repository';
import { AgentsRepository } from '../agents.repository';
import type {
  GuardRuleDto,
  IntentDto,
  NoteDto,
  ProcedureDto,
  RoutingRuleDto,
  TrainingDto,
  WebhookDto,
} from '../dto/collections.dto';
import { AgentChildEntity } from './agent-child.entity';
import {
  AgentChildRepository,
  AgentIntentsRepository,
  AgentNotesRepository,
  AgentProceduresRepository,
  AgentTrainingRepository,
  AgentWebhooksRepository,
  GuardRulesRepository,
  RoutingRulesRepository,
} from './agent-collections.repository';
import { AgentIntent } from './agent-intent.entity';
import { AgentNote } from './agent-note.entity';
import { AgentProcedure } from './agent-procedure.entity';
import { GuardRule, RoutingRule } from './agent-rules.entity';
import { AgentTraining } from './agent-training.entity';
import { AgentWebhook, MAX_WEBHOOKS_PER_AGENT, WebhookEvent } from './agent-webhook.entity';

export type CollectionName =
  | 'guidelines'
  | 'notes'
  | 'training'
  | 'procedures'
  | 'intents'
  | 'webhooks'
  | 'routing_rules'
  | 'guard_rules';

export interface DeliverableWebhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  /** The signing secret in clear, or null when none is set. Never log it. */
  secret: string | null;
}

/** An agent webhook as the sender needs it: its live secrets in clear (current first). Never log them. */
export interface SendableWebhook {
  id: string;
  agentId: string;
  url: string;
  events: WebhookEvent[];
  isActive: boolean;
  secrets: string[];
}

/** What one write sees: the tenant, the agent, the transaction, and the prefix of error fields (`routing_rules.2.`). */
interface Ctx {
  workspaceId: string;
  agentId: string;
  m: EntityManager;
  prefix: string;
  /** The rows already in the set being written (earlier items of a PUT, or the stored rows). */
  siblings: AgentChildEntity[];
}

interface Handler<E extends AgentChildEntity> {
  label: string;
  repo: AgentChildRepository<E>;
  scope: ScopedWhere<E>;
  /** Fields that a PATCH may not set to null. */
  required: string[];
  /** Copies the keys present in the body onto the row (defaults filled when `creating`). */
  apply(ctx: Ctx, row: E, dto: Record<string, unknown>, creating: boolean): Promise<void>;
  /** Checks across the whole set after the write. */
  check?(ctx: Ctx, rows: E[]): Promise<void>;
  /** Runs after rows were removed (e.g. detach procedure steps from removed intents). */
  removed?(ctx: Ctx, ids: string[]): Promise<void>;
}

const isUniqueViolation = (err: unknown) =>
  err instanceof QueryFailedError && (err.driverError as { code?: string })?.code === '23505';

/** A key made of the name: lowercase ASCII words joined by underscores. */
export function keyFromName(name: string): string {
  const key = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 90);
  return key || 'intent';
}

/**
 * POST one, PUT all, PATCH one, DELETE one for every collection an agent holds. Each write runs in one
 * transaction holding the agent's row lock, so defaults (max + 1), limits and uniqueness hold under concurrency.
 */
@Injectable()
export class AgentCollectionsService {
  private readonly handlers: Record<CollectionName, Handler<AgentChildEntity>>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly agents: AgentsRepository,
    notes: AgentNotesRepository,
    training: AgentTrainingRepository,
    procedures: AgentProceduresRepository,
    intents: AgentIntentsRepository,
    private readonly webhooks: AgentWebhooksRepository,
    routing: RoutingRulesRepository,
    guards: GuardRulesRepository,
    private readonly secrets: SecretBox,
  ) {
    const noteHandler = (kind: 'guideline' | 'note', label: string): Handler<AgentNote> => ({
      label,
      repo: notes,
      scope: { kind },
      required: ['content', 'order'],
      apply: async (ctx, row, dto, creating) => {
        const d = dto as Partial<NoteDto>;
        if (creating) row.kind = kind;
        if (d.content !== undefined) row.content = d.content;
        // On create a null `order` means the same as none: after the last item.
        if (d.order !== undefined && d.order !== null) row.order = d.order;
        else if (creating) row.order = await this.nextNumber(ctx, notes, 'order', { kind });
      },
    });
    this.handlers = {
      guidelines: noteHandler('guideline', 'Guideline'),
      notes: noteHandler('note', 'Note'),
      training: {
        label: 'Training example',
        repo: training,
        scope: {},
        required: ['content'],
        apply: async (_ctx, row: AgentTraining, dto) => {
          const d = dto as Partial<TrainingDto>;
          if (d.content !== undefined) row.content = d.content;
          if (d.intent !== undefined) row.intent = d.intent;
          if (d.response !== undefined) row.response = d.response;
          row.intent ??= null;
          row.response ??= null;
        },
      },
      procedures: {
        label: 'Procedure',
        repo: procedures,
        scope: {},
        required: ['name', 'steps'],
        apply: async (ctx, row: AgentProcedure, dto) => {
          const d = dto as Partial<ProcedureDto>;
          if (d.name !== undefined) row.name = d.name;
          if (d.description !== undefined) row.description = d.description;
          row.description ??= null;
          if (d.steps !== undefined) {
            const ids = [...new Set(d.steps.map((s) => s.intent_uuid).filter((x): x is string => !!x))];
            const known = new Set(
              (
                await intents.find(
                  ctx.workspaceId,
                  { where: ids.map((id) => ({ id, agentId: ctx.agentId })) },
                  ctx.m,
                )
              ).map((i) => i.id),
            );
            d.steps.forEach((s, i) => {
              if (s.intent_uuid && !known.has(s.intent_uuid.toLowerCase()))
                throw AppException.invalid(
                  `${ctx.prefix}steps.${i}.intent_uuid`,
                  `${ctx.prefix}steps.${i}.intent_uuid does not name an intent of this agent`,
                );
            });
            row.steps = d.steps
              .map((s) => ({
                order: s.order,
                description: s.description ?? null,
                intent_uuid: s.intent_uuid?.toLowerCase() ?? null,
              }))
              .sort((a, b) => a.order - b.order);
          }
          row.steps ??= [];
        },
      },
      intents: {
        label: 'Intent',
        repo: intents,
        scope: {},
        required: [
          'name',
          'key',
          'confidence_threshold',
          'is_system',
          'intent_llm_handle_by_response',
          'parameters',
        ],
        apply: async (ctx, row: AgentIntent, dto, creating) => {
          const d = dto as Partial<IntentDto>;
          if (d.name !== undefined) row.name = d.name;
          if (d.description !== undefined) row.description = d.description;
          if (d.recommendation_actions !== undefined) row.recommendationActions = d.recommendation_actions;
          if (d.confidence_threshold !== undefined) row.confidenceThreshold = d.confidence_threshold;
          if (d.is_system !== undefined) row.isSystem = d.is_system;
          if (d.intent_llm_handle_by_response !== undefined)
            row.intentLlmHandleByResponse = d.intent_llm_handle_by_response;
          if (d.webhook !== undefined)
            row.webhook = d.webhook ? { url: d.webhook.url, auth_token: d.webhook.auth_token ?? null } : null;
          if (d.parameters !== undefined)
            row.parameters = d.parameters.map((p) => ({
              key: p.key,
              default: p.default ?? null,
              type: p.type ?? 'string',
              required: p.required ?? false,
            }));
          if (creating) {
            row.description ??= null;
            row.recommendationActions ??= null;
            row.confidenceThreshold ??= 0.5;
            row.isSystem ??= false;
            row.intentLlmHandleByResponse ??= false;
            row.webhook ??= null;
            row.parameters ??= [];
          }
          const others = new Set(
            (ctx.siblings as AgentIntent[]).filter((s) => s.id !== row.id).map((s) => s.key),
          );
          if (d.key !== undefined) {
            if (others.has(d.key))
              throw AppException.conflict(`Another intent of this agent already has the key ${d.key}`);
            row.key = d.key;
          } else if (creating) {
            const base = keyFromName(row.name);
            let key = base;
            for (let n = 2; others.has(key); n++) key = `${base}_${n}`;
            row.key = key;
          }
        },
        removed: (ctx, ids) => procedures.detachIntents(ctx.workspaceId, ctx.agentId, ids, ctx.m),
      },
      webhooks: {
        label: 'Webhook',
        repo: webhooks,
        scope: {},
        required: ['url', 'events', 'is_active'],
        apply: async (_ctx, row: AgentWebhook, dto, creating) => {
          const d = dto as Partial<WebhookDto>;
          if (d.url !== undefined) row.url = d.url;
          if (d.events !== undefined) row.events = d.events;
          if (d.is_active !== undefined) row.isActive = d.is_active;
          else if (creating) row.isActive = true;
          if (d.secret_key !== undefined) {
            row.secretCiphertext = d.secret_key ? this.secrets.encrypt(d.secret_key) : null;
            // Setting the secret directly replaces it at once; only a rotation keeps the old one signing.
            row.previousSecretCiphertext = null;
            row.previousSecretExpiresAt = null;
          }
          row.secretCiphertext ??= null;
          row.previousSecretCiphertext ??= null;
          row.previousSecretExpiresAt ??= null;
        },
        check: async (_ctx, rows) => {
          if (rows.length > MAX_WEBHOOKS_PER_AGENT)
            throw new AppException(
              'WEBHOOK_LIMIT_REACHED',
              `An agent has at most ${MAX_WEBHOOKS_PER_AGENT} webhooks`,
            );
        },
      },
      routing_rules: {
        label: 'Routing rule',
        repo: routing,
        scope: {},
        required: ['detection_mode', 'phrases', 'transfer_config', 'priority', 'is_active'],
        apply: async (ctx, row: RoutingRule, dto, creating) => {
          const d = dto as Partial<RoutingRuleDto>;
          if (d.department_name !== undefined) row.departmentName = d.department_name;
          if (d.trigger_keyword !== undefined) row.triggerKeyword = d.trigger_keyword;
          if (d.detection_mode !== undefined) row.detectionMode = d.detection_mode;
          if (d.phrases !== undefined) row.phrases = d.phrases;
          if (d.ai_prompt !== undefined) row.aiPrompt = d.ai_prompt;
          if (d.voice_response !== undefined) row.voiceResponse = d.voice_response;
          if (d.voice_on_error !== undefined) row.voiceOnError = d.voice_on_error;
          if (d.voice_on_success !== undefined) row.voiceOnSuccess = d.voice_on_success;
          if (d.destination_type !== undefined) row.destinationType = d.destination_type;
          if (d.destination !== undefined) row.destination = d.destination;
          if (d.destination_agent_uuid !== undefined)
            row.destinationAgentId = await this.destinationAgent(ctx, d.destination_agent_uuid);
          if (d.transfer_type !== undefined) row.transferType = d.transfer_type;
          if (d.transfer_config !== undefined) row.transferConfig = d.transfer_config;
          if (d.is_active !== undefined) row.isActive = d.is_active;
          if (d.priority !== undefined && d.priority !== null) row.priority = d.priority;
          if (creating) {
            row.detectionMode ??= 'intent';
            row.phrases ??= [];
            row.transferConfig ??= {};
            row.isActive ??= true;
            for (const k of [
              'departmentName',
              'triggerKeyword',
              'aiPrompt',
              'voiceResponse',
              'voiceOnError',
              'voiceOnSuccess',
              'destinationType',
              'destination',
              'destinationAgentId',
              'transferType',
            ] as const)
              row[k] ??= null;
            if (row.priority === undefined || row.priority === null)
              row.priority = await this.nextNumber(ctx, routing, 'priority', {});
          }
        },
      },
      guard_rules: {
        label: 'Guard rule',
        repo: guards,
        scope: {},
        required: ['then_action', 'example_phrases', 'selected_channels', 'is_active', 'is_default'],
        apply: async (ctx, row: GuardRule, dto, creating) => {
          const d = dto as Partial<GuardRuleDto>;
          if (d.name !== undefined) row.name = d.name;
          if (d.when_condition !== undefined) row.whenCondition = d.when_condition;
          if (d.example_phrases !== undefined) row.examplePhrases = d.example_phrases;
          if (d.then_action !== undefined) row.thenAction = d.then_action;
          if (d.selected_channels !== undefined) row.selectedChannels = d.selected_channels;
          if (d.say_before_forwarding !== undefined) row.sayBeforeForwarding = d.say_before_forwarding;
          if (d.say_before_end !== undefined) row.sayBeforeEnd = d.say_before_end;
          if (d.destination_type !== undefined) row.destinationType = d.destination_type;
          if (d.destination !== undefined) row.destination = d.destination;
          if (d.destination_agent_uuid !== undefined)
            row.destinationAgentId = await this.destinationAgent(ctx, d.destination_agent_uuid);
          if (d.is_active !== undefined) row.isActive = d.is_active;
          if (d.is_default !== undefined) row.isDefault = d.is_default;
          if (creating) {
            row.thenAction ??= 'forward';
            row.examplePhrases ??= [];
            row.selectedChannels ??= [];
            row.isActive ??= true;
            row.isDefault ??= false;
            for (const k of [
              'name',
              'whenCondition',
              'sayBeforeForwarding',
              'sayBeforeEnd',
              'destinationType',
              'destination',
              'destinationAgentId',
            ] as const)
              row[k] ??= null;
          }
        },
      },
    };
  }

  /** max + 1 over the stored rows and the items already placed in this write (1 for the first). */
  private async nextNumber<E extends AgentChildEntity>(
    ctx: Ctx,
    repo: AgentChildRepository<E>,
    column: 'order' | 'priority',
    scope: ScopedWhere<E>,
  ): Promise<number> {
    const stored = await repo.maxOf(ctx.workspaceId, ctx.agentId, column, scope, ctx.m);
    const placed = ctx.siblings.map((s) => (s as unknown as Record<string, number | undefined>)[column]);
    const all = [stored, ...placed].filter((x): x is number => typeof x === 'number');
    return all.length ? Math.max(...all) + 1 : 1;
  }

  private async destinationAgent(ctx: Ctx, id: string | null | undefined): Promise<string | null> {
    if (!id) return null;
    const field = `${ctx.prefix}destination_agent_uuid`;
    if (!(await this.agents.findOne(ctx.workspaceId, { id: id.toLowerCase() }, {}, ctx.m)))
      throw AppException.invalid(field, `${field} does not name an agent of this workspace`);
    return id.toLowerCase();
  }

  /** On create, `null` for a key that cannot be null means the same as leaving it out: its default applies. */
  private withoutNulls(handler: Handler<AgentChildEntity>, dto: object): Record<string, unknown> {
    const out = { ...(dto as Record<string, unknown>) };
    for (const key of handler.required) if (out[key] === null) delete out[key];
    return out;
  }

  private rejectNulls(
    handler: Handler<AgentChildEntity>,
    dto: Record<string, unknown>,
    prefix: string,
  ): void {
    for (const key of handler.required)
      if (dto[key] === null)
        throw AppException.invalid(`${prefix}${key}`, `${prefix}${key} must not be null`, 'VALIDATION_ERROR');
  }

  /** Runs one write of one agent's collection in a transaction holding the agent's lock; 404 for an unknown agent. */
  private async write<T>(
    workspaceId: string,
    agentId: string,
    fn: (m: EntityManager) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.dataSource.transaction(async (m) => {
        if (!(await this.agents.lock(workspaceId, agentId, m))) throw AppException.notFound('Agent');
        const out = await fn(m);
        await this.agents.touch(workspaceId, agentId, m);
        return out;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw AppException.conflict('A concurrent change conflicts with this one');
      throw err;
    }
  }

  async add(workspaceId: string, agentId: string, name: CollectionName, dto: object): Promise<void> {
    const h = this.handlers[name];
    await this.write(workspaceId, agentId, async (m) => {
      const stored = await h.repo.listFor(workspaceId, agentId, h.scope, m);
      const ctx: Ctx = { workspaceId, agentId, m, prefix: '', siblings: stored };
      const row = h.repo.build(workspaceId, { agentId });
      await h.apply(ctx, row, this.withoutNulls(h, dto), true);
      await h.check?.(ctx, [...stored, row]);
      await h.repo.save(workspaceId, row, m);
    });
  }

  /** Replaces the whole set: the old rows are deleted first, then the new ones inserted, in one transaction. */
  async replace(workspaceId: string, agentId: string, name: CollectionName, items: object[]): Promise<void> {
    const h = this.handlers[name];
    await this.write(workspaceId, agentId, async (m) => {
      const old = await h.repo.listFor(workspaceId, agentId, h.scope, m);
      await h.repo.delete(workspaceId, { agentId, ...h.scope }, m);
      const rows: AgentChildEntity[] = [];
      for (const [i, item] of items.entries()) {
        const ctx: Ctx = { workspaceId, agentId, m, prefix: `${name}.${i}.`, siblings: rows };
        const row = h.repo.build(workspaceId, { agentId });
        await h.apply(ctx, row, this.withoutNulls(h, item), true);
        rows.push(row);
      }
      await h.check?.({ workspaceId, agentId, m, prefix: `${name}.`, siblings: rows }, rows);
      // One by one so that the insertion sequence follows the order of the body.
      for (const row of rows) await h.repo.save(workspaceId, row, m);
      await h.removed?.(
        { workspaceId, agentId, m, prefix: '', siblings: rows },
        old.map((o) => o.id),
      );
    });
  }

  /** Changes only the keys sent; the other items are untouched. */
  async patch(
    workspaceId: string,
    agentId: string,
    name: CollectionName,
    itemId: string,
    dto: object,
  ): Promise<void> {
    const h = this.handlers[name];
    this.rejectNulls(h, dto as Record<string, unknown>, '');
    await this.write(workspaceId, agentId, async (m) => {
      const stored = await h.repo.listFor(workspaceId, agentId, h.scope, m);
      const row = stored.find((r) => r.id === itemId);
      if (!row) throw AppException.notFound(h.label);
      const ctx: Ctx = { workspaceId, agentId, m, prefix: '', siblings: stored };
      await h.apply(ctx, row, dto as Record<string, unknown>, false);
      row.updatedAt = new Date();
      await h.check?.(ctx, stored);
      await h.repo.save(workspaceId, row, m);
    });
  }

  /**
   * The agent's active webhooks subscribed to an event, with their secrets opened, for delivery. The only
   * place a webhook secret leaves its sealed form.
   */
  async activeWebhooks(
    workspaceId: string,
    agentId: string,
    event: WebhookEvent,
  ): Promise<DeliverableWebhook[]> {
    const rows = await this.webhooks.listFor(workspaceId, agentId, {});
    return rows
      .filter((w) => w.isActive && w.events.includes(event))
      .map((w) => ({
        id: w.id,
        url: w.url,
        events: w.events,
        secret: w.secretCiphertext ? this.secrets.decrypt(w.secretCiphertext) : null,
      }));
  }

  /** One agent webhook by its id, with its live secrets opened (current first), for sending; null when gone. */
  async deliverableWebhook(workspaceId: string, webhookId: string): Promise<SendableWebhook | null> {
    const w = await this.webhooks.findOne(workspaceId, { id: webhookId });
    if (!w) return null;
    const secrets: string[] = [];
    if (w.secretCiphertext) secrets.push(this.secrets.decrypt(w.secretCiphertext));
    if (w.previousSecretCiphertext && w.previousSecretExpiresAt && w.previousSecretExpiresAt > new Date())
      secrets.push(this.secrets.decrypt(w.previousSecretCiphertext));
    return { id: w.id, agentId: w.agentId, url: w.url, events: w.events, isActive: w.isActive, secrets };
  }

  /** Turns a webhook off (its receiver answered 410 Gone). */
  async disableWebhook(workspaceId: string, webhookId: string): Promise<void> {
    await this.webhooks.disable(workspaceId, webhookId);
  }

  /**
   * Replaces the signing secret; the old one keeps signing beside it until `keepOldMs` has passed. Answers the
   * new secret (generated when none is given) and when the old one stops.
   */
  async rotateWebhookSecret(
    workspaceId: string,
    agentId: string,
    webhookId: string,
    newSecret: string,
    keepOldMs: number,
  ): Promise<{ previousExpiresAt: Date | null }> {
    let previousExpiresAt: Date | null = null;
    await this.write(workspaceId, agentId, async (m) => {
      const stored = await this.webhooks.listFor(workspaceId, agentId, {}, m);
      const row = stored.find((r) => r.id === webhookId);
      if (!row) throw AppException.notFound('Webhook');
      previousExpiresAt = row.secretCiphertext ? new Date(Date.now() + keepOldMs) : null;
      row.previousSecretCiphertext = row.secretCiphertext;
      row.previousSecretExpiresAt = previousExpiresAt;
      row.secretCiphertext = this.secrets.encrypt(newSecret);
      row.updatedAt = new Date();
      await this.webhooks.save(workspaceId, row, m);
    });
    return { previousExpiresAt };
  }

  async remove(workspaceId: string, agentId: string, name: CollectionName, itemId: string): Promise<void> {
    const h = this.handlers[name];
    await this.write(workspaceId, agentId, async (m) => {
      const n = await h.repo.delete(workspaceId, { id: itemId, agentId, ...h.scope }, m);
      if (!n) throw AppException.notFound(h.label);
      await h.removed?.({ workspaceId, agentId, m, prefix: '', siblings: [] }, [itemId]);
    });
  }
}
