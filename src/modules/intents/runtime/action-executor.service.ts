import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { answerBody, sendSignedWebhook } from '@/common/net/signed-webhook';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AgentsService } from '@/modules/agents/agents.service';
import { ContactsService } from '@/modules/contacts/contacts.service';
import type { ActionOutcome } from '@/modules/runtime/tools/intent-actions.port';
import type { IntentTool } from '@/modules/runtime/tools/tool-definitions';
import type { TurnToolsContext } from '@/modules/runtime/tools/turn-tools';
import { TableSearch } from '@/modules/knowledge/table-search.service';
import { FLOW_STARTER, FlowStarter } from '../flow-starter.port';
import { failed, outcome } from './action-outcome';
import { BuiltinToolRunner } from './builtin-tool-runner.service';

/** A live turn waits this long for an action's webhook, and never retries it. */
export const ACTION_TIMEOUT_MS = 10_000;
const WEBHOOK_MAX_BYTES = 256 * 1024;

/**
 * Runs an intent's deployed action, or else its own webhook, or a built-in tool; never throws (a failure is an
 * outcome).
 */
@Injectable()
export class ActionExecutor {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly agents: AgentsService,
    private readonly contacts: ContactsService,
    private readonly tables: TableSearch,
    private readonly builtins: BuiltinToolRunner,
    @Inject(FLOW_STARTER) private readonly flows: FlowStarter,
  ) {}

  async run(
    tool: IntentTool,
    parameters: Record<string, unknown>,
    ctx: TurnToolsContext,
  ): Promise<ActionOutcome> {
    if (tool.builtin) return this.builtins.run(tool, parameters, ctx);
    const a = tool.action;
    try {
      if (a?.type === 'agent') return await this.handOver(a.config.agent_uuid!, ctx);
      if (a?.type === 'scenario') return await this.scenario(tool, a.config.flow_uuid!, parameters, ctx);
      if (a?.type === 'app') return await this.aiQuery(a.config, parameters, ctx);
      const hook = a?.type === 'webhook' ? a.config : tool.intent.webhook;
      if (!hook?.url)
        return outcome(
          'succeeded',
          { acknowledged: true, note: 'no action is configured for this intent' },
          {},
        );
      return await this.webhook(tool, hook.url, hook.auth_token ?? null, parameters, ctx);
    } catch (err) {
      return failed(err instanceof Error ? err.message : 'the action failed', {});
    }
  }

  private async body(tool: IntentTool, parameters: Record<string, unknown>, ctx: TurnToolsContext) {
    const c = ctx.conversation;
    const contact = c.contactId ? await this.contacts.find(ctx.workspaceId, c.contactId) : null;
    return {
      intent: { uuid: tool.intent.intent_uuid, key: tool.intent.key, name: tool.intent.name },
      parameters,
      conversation: { uuid: c.id, channel: c.channel },
      contact: contact
        ? {
            uuid: contact.id,
            name: [contact.name, contact.surname].filter(Boolean).join(' ') || null,
            phone_number: contact.phoneNumber,
          }
        : null,
      agent: { uuid: ctx.agent.agent_uuid, name: ctx.agent.name },
    };
  }

  private async webhook(
    tool: IntentTool,
    url: string,
    token: string | null,
    parameters: Record<string, unknown>,
    ctx: TurnToolsContext,
  ): Promise<ActionOutcome> {
    const request = { url, parameters };
    const sent = await sendSignedWebhook(
      {
        url,
        body: JSON.stringify(await this.body(tool, parameters, ctx)),
        id: `msg_${randomUUID()}`,
        // The intent's token is both the bearer and the signing secret.
        secrets: token ? [token] : [],
        userAgent: 'agent-platform-intents/1.0',
        headers: token ? { authorization: `Bearer ${token}` } : {},
        timeoutMs: ACTION_TIMEOUT_MS,
        maxBytes: WEBHOOK_MAX_BYTES,
      },
      { allowPrivate: this.config.network.allowPrivateTargets },
    );
    if (!sent.response)
      return sent.error === 'timeout'
        ? {
            ...failed(`the webhook did not answer within ${ACTION_TIMEOUT_MS / 1000} s`, request),
            status: 'timeout',
          }
        : failed(`the webhook could not be reached (${sent.error})`, request);
    const res = sent.response;
    if (res.status < 200 || res.status >= 300)
      return failed(`the webhook answered HTTP ${res.status}`, request);
    const answer = answerBody(res);
    const response =
      typeof answer === 'object' &&
      answer !== null &&
      typeof (answer as { response?: unknown }).response === 'string'
        ? (answer as { response: string }).response
        : null;
    return { ...outcome('succeeded', answer, request), response: response?.trim() ? response : null };
  }

  private async handOver(agentId: string, ctx: TurnToolsContext): Promise<ActionOutcome> {
    const target = await this.agents.view(ctx.workspaceId, agentId);
    await ctx.handOver(target.agent_uuid);
    const to = { uuid: target.agent_uuid, name: target.name };
    return { ...outcome('succeeded', { handed_over_to: to }, { agent_uuid: agentId }), handedTo: to };
  }

  private async scenario(
    tool: IntentTool,
    flowId: string,
    parameters: Record<string, unknown>,
    ctx: TurnToolsContext,
  ): Promise<ActionOutcome> {
    const request = { flow_uuid: flowId, parameters };
    const { intent, conversation, contact } = await this.body(tool, parameters, ctx);
    const started = await this.flows.start(ctx.workspaceId, flowId, {
      intent,
      parameters,
      conversation,
      contact,
    });
    return outcome('succeeded', { flow_uuid: flowId, execution_uuid: started.execution_uuid }, request);
  }

  private async aiQuery(
    config: { table_uuid?: string; max_results?: number },
    parameters: Record<string, unknown>,
    ctx: TurnToolsContext,
  ): Promise<ActionOutcome> {
    const query = typeof parameters.query === 'string' ? parameters.query : '';
    const hits = await this.tables.search(
      ctx.workspaceId,
      config.table_uuid!,
      query,
      config.max_results ?? 5,
    );
    const rows = hits.map((h) => ({ record_uuid: String(h.record_id), score: h.score, values: h.values }));
    return outcome('succeeded', { rows }, { table_uuid: config.table_uuid, query });
  }
}
