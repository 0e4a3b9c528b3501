import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppException } from '@/common/errors/app.exception';
import { AgentUnavailable, CallEnded } from '@/common/errors/domain-errors';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import type { Call } from '@/modules/calls/call.entity';
import {
  checkMetadata,
  checkVariables,
  fill,
  recordsCall,
  voiceSetting,
  voiceText,
} from '@/modules/calls/runtime/call-context';
import { CallPlacement, DEFAULT_MAX_DURATION } from '@/modules/calls/api/call-placement.service';
import { isEnded } from '@/modules/calls/runtime/call-states';
import { CallsService } from '@/modules/calls/api/calls.service';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { AgentContextReader, agentInBody } from '@/modules/conversations/agent-context';
import { WorkspacesService } from '@/modules/workspaces/workspaces.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { CreateWebCallDto } from './dto/requests';
import type { WebCallResponse, WebCallSettingsResponse, WebCallTokenStateResponse } from './dto/responses';
import { checkOrigins, originAllowed } from './origins';
import { WebCallLimits } from './web-call-limits';
import {
  hashWebCallToken,
  isWebCallTokenShape,
  newWebCallToken,
  TokenRefusal,
  WEB_TOKEN_TTL_SECONDS,
} from './web-call-token';
import { WebCallTokensRepository } from './web-call-tokens.repository';

export const WEB_PROVIDER = 'web';
const REFUSALS: Record<TokenRefusal, string> = {
  invalid: 'The web call token is not valid for this call',
  expired: 'The web call token has expired',
  used: 'The web call token has already been used',
};

/** Who opens a web call's socket or checks its token: the call's id, the token and where the request came from. */
export interface WebCallClient {
  callId: string;
  token: string | null;
  ip: string;
  origin?: string;
  host?: string;
}

/**
 * Calls from a browser: started through the API like any call (the same placement, a `web` provider, the
 * workspace's concurrency limit), opened by the page with a single-use client token.
 */
@Injectable()
export class WebCallsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly placement: CallPlacement,
    private readonly calls: CallsService,
    private readonly agents: AgentContextReader,
    private readonly contacts: ContactsService,
    private readonly workspaces: WorkspacesService,
    private readonly tokens: WebCallTokensRepository,
    private readonly limits: WebCallLimits,
    private readonly unitOfWork: UnitOfWork,
    @InjectQueue(QUEUES.calls) private readonly queue: Queue<JobPayloads['calls']['dial']>,
  ) {}

  /** The origin of the call page (PUBLIC_BASE_URL's), always allowed to open web calls. */
  get ownOrigin(): string {
    return new URL(this.config.publicBaseUrl).origin;
  }

  /** `POST /web-calls`: the call at `queued` (it rings while the token waits for the page), and its client token. */
  async start(workspaceId: WorkspaceId, dto: CreateWebCallDto, ip: string): Promise<WebCallResponse> {
    await this.limits.mint(ip);
    const variables = checkVariables(dto.variables);
    const metadata = checkMetadata(dto.metadata);
    const agent = await agentInBody(this.agents, workspaceId, dto.agent_uuid);
    if (agent.status === 'paused' || agent.status === 'completed')
      throw new AgentUnavailable(agent.agent_uuid, agent.status);
    if (dto.contact_uuid && !(await this.contacts.find(workspaceId, dto.contact_uuid)))
      throw AppException.invalid(
        'contact_uuid',
        'contact_uuid names no contact of this workspace',
        'VALIDATION_ERROR',
      );
    const token = newWebCallToken();
    const expiresAt = new Date(Date.now() + WEB_TOKEN_TTL_SECONDS * 1000);
    const first = dto.first_message ?? voiceText(agent, 'first_message');
    const call = await this.placement.create(workspaceId, {
      direction: 'Inbound',
      channel: 'web',
      status: 'queued',
      agent,
      number: null,
      provider: WEB_PROVIDER,
      contactId: dto.contact_uuid ?? null,
      customer: null,
      from: 'web',
      to: 'web',
      firstMessage: first ? fill(first, variables) : null,
      prompt: null,
      about: null,
      variables,
      metadata,
      record: recordsCall(agent, WEB_PROVIDER, dto.record),
      maxDurationSeconds:
        dto.max_duration_seconds ??
        voiceSetting(agent, 'max_duration_seconds', 30, 7200, DEFAULT_MAX_DURATION),
      ringTimeoutSeconds: WEB_TOKEN_TTL_SECONDS,
      link: (m, callId) => this.tokens.insert(m, workspaceId, callId, hashWebCallToken(token), expiresAt),
    });
    // As every call: its provider takes it from `queued` in a job (a web call rings until the page opens it).
    await this.queue.add('dial', { workspaceId, callId: call.uuid }, { jobId: `dial:${call.uuid}` });
    return {
      call,
      client_token: token,
      expires_at: expiresAt.toISOString(),
      page_url: this.pageUrl(call.uuid, token),
      websocket_url: this.socketUrl(call.uuid, token),
    };
  }

  pageUrl(callId: string, token: string): string {
    return `${this.config.publicBaseUrl}/hooks/v1/web/calls/${callId}/page#token=${token}`;
  }

  socketUrl(callId: string, token: string): string {
    return `${this.config.publicBaseUrl.replace(/^http/, 'ws')}/hooks/v1/web/calls/${callId}?token=${token}`;
  }

  async settings(workspaceId: WorkspaceId): Promise<WebCallSettingsResponse> {
    return { allowed_origins: await this.workspaces.webCallOrigins(workspaceId), own_origin: this.ownOrigin };
  }

  async setSettings(workspaceId: WorkspaceId, origins: string[]): Promise<WebCallSettingsResponse> {
    const allowed = await this.workspaces.setWebCallOrigins(workspaceId, checkOrigins(origins));
    return { allowed_origins: allowed, own_origin: this.ownOrigin };
  }

  /** The page origins a call's page may be framed by: its own and its workspace's allowed ones. */
  async frameAncestors(callId: string): Promise<string[]> {
    const workspaceId = await this.calls.workspaceOf(callId);
    return workspaceId ? this.workspaces.webCallOrigins(workspaceId) : [];
  }

  /** What the page's token would do now (the page asks before it opens the socket); refusals as at the handshake. */
  async tokenState(client: WebCallClient): Promise<WebCallTokenStateResponse> {
    const { call, state } = await this.admit(client);
    if (state.refusal) throw this.refused(state.refusal);
    return { call_uuid: call.id, status: call.status, expires_at: state.expiresAt!.toISOString() };
  }

  /**
   * The socket handshake: the token opens its own call only, once, from an allowed origin and an address under its
   * limit. Answers the call; refusals are HTTP errors (401 token, 403 origin, 404 call, 409 ended, 429 limit).
   * The token is used under the call's row lock, as the call's moves are: a call ending meanwhile ends before the
   * handshake (409, the token left unused) or after it, never between the check and the socket's opening.
   */
  async open(client: WebCallClient): Promise<Call> {
    const { call, tokenHash } = await this.admit(client);
    const refusal = await this.unitOfWork.run(async (tx) => {
      const now = await this.calls.lock(call.workspaceId, call.id, tx);
      if (!now || isEnded(now.status)) throw new CallEnded(call.id);
      return this.tokens.consume(call.workspaceId, call.id, tokenHash, tx);
    });
    if (refusal) throw this.refused(refusal);
    return call;
  }

  private async admit(client: WebCallClient): Promise<{
    call: Call;
    tokenHash: string;
    state: { refusal: TokenRefusal | null; expiresAt: Date | null };
  }> {
    if (!client.token) throw new AppException('MISSING_AUTH_TOKEN', 'The web call token is missing');
    await this.limits.connect(client.ip);
    if (!isWebCallTokenShape(client.token)) throw this.refused('invalid');
    const workspaceId = await this.calls.workspaceOf(client.callId);
    const call = workspaceId ? await this.calls.find(workspaceId, client.callId) : null;
    if (!call || call.provider !== WEB_PROVIDER) throw AppException.notFound('Call');
    const tokenHash = hashWebCallToken(client.token);
    // Nothing about the call (its state, its workspace's origins) is told to a client without its token.
    const state = await this.tokens.check(call.workspaceId, call.id, tokenHash);
    if (state.refusal === 'invalid') throw this.refused(state.refusal);
    const allowed = await this.workspaces.webCallOrigins(call.workspaceId);
    if (!originAllowed(client.origin, client.host, this.ownOrigin, allowed))
      throw new AppException(
        'FORBIDDEN',
        `Pages of ${client.origin} may not open this workspace's web calls`,
      );
    if (isEnded(call.status)) throw new CallEnded(call.id);
    return { call, tokenHash, state };
  }

  private refused(refusal: TokenRefusal): AppException {
    return new AppException('INVALID_AUTH_TOKEN', REFUSALS[refusal]);
  }
}
