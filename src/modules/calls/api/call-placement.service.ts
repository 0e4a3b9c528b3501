import { InjectQueue } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppException } from '@/common/errors/app.exception';
import { AgentUnavailable, NoNumberBound, NumberUnavailable, SlotsFull } from '@/common/errors/domain-errors';
import { newId } from '@/common/persistence/base.entity';
import { JobPayloads, QUEUES } from '@/common/queue/queues';
import { assertPhoneNumber, isE164, isUuid } from '@/common/validation/validators';
import { UnitOfWork } from '@/common/persistence/unit-of-work';
import { BlacklistService } from '@/modules/blacklist/blacklist.service';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { AgentContextReader, agentInBody } from '@/modules/conversations/agent-context';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import { OutboxService } from '@/modules/events/outbox.service';
import type { PhoneNumber } from '@/modules/phone-numbers/phone-number.entity';
import { PhoneNumbersService } from '@/modules/phone-numbers/phone-numbers.service';
import { ConversationResponse } from '@/modules/conversations/dto/responses';
import { TelephonyRegistry } from '@/providers/telephony/telephony.registry';
import {
  checkMetadata,
  checkPrompt,
  checkVariables,
  fill,
  recordsCall,
  voiceSetting,
  voiceText,
} from '../runtime/call-context';
import type { NewCall, TaskCall } from './call-placement.types';
import { agentVoicemail, checkVoicemail } from '@/modules/agents/voicemail-policy';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { callVoicemail } from '../runtime/voicemail';

export type { TaskCall } from './call-placement.types';
import { CallInstance } from '../runtime/call-instance';
import { CallLifecycle } from '../runtime/call-lifecycle.service';
import { CallLive } from '../runtime/call-live';
import { CallSlots } from '../runtime/call-slots';
import { CallsRepository } from '../calls.repository';
import type { CreateCallDto } from '../dto/requests';
import { CallResponse } from '../dto/responses';

export const DEFAULT_RING_TIMEOUT = 30;
export const DEFAULT_MAX_DURATION = 1800;
const DEFAULT_SILENCE_TIMEOUT = 30;

/** Placing calls: `POST /call` and the sandbox's inbound simulation (checks, a slot, the call, the dial job). */
@Injectable()
export class CallPlacement {
  constructor(
    private readonly calls: CallsRepository,
    private readonly conversations: ConversationsService,
    private readonly agents: AgentContextReader,
    private readonly contacts: ContactsService,
    private readonly numbers: PhoneNumbersService,
    private readonly blacklist: BlacklistService,
    private readonly telephony: TelephonyRegistry,
    private readonly lifecycle: CallLifecycle,
    private readonly slots: CallSlots,
    private readonly live: CallLive,
    private readonly instance: CallInstance,
    private readonly outbox: OutboxService,
    private readonly unitOfWork: UnitOfWork,
    @InjectQueue(QUEUES.calls) private readonly queue: Queue<JobPayloads['calls']['dial']>,
  ) {}
  /** `POST /call`: checks, a concurrency slot, then the call at `queued`; dialling runs in a job. */
  async place(workspaceId: WorkspaceId, dto: CreateCallDto): Promise<CallResponse> {
    const agentId = dto.agent_uuid ?? dto.agentId;
    if (!agentId)
      throw AppException.invalid('agent_uuid', 'agent_uuid should not be empty', 'VALIDATION_ERROR');
    const to = dto.to ?? dto.participant?.number;
    if (!to) throw AppException.invalid('to', 'to should not be empty', 'VALIDATION_ERROR');
    assertPhoneNumber('to', to);
    const prompt = checkPrompt(dto.prompt);
    const variables = checkVariables(dto.variables);
    const metadata = checkMetadata(dto.metadata);
    const voicemailOverride = checkVoicemail(dto.voicemail, 'voicemail');
    const channel = dto.channel ?? 'phone';

    const agent = await agentInBody(this.agents, workspaceId, agentId);
    if (agent.status === 'paused' || agent.status === 'completed')
      throw new AgentUnavailable(agent.agent_uuid, agent.status);
    const voicemail = callVoicemail([voicemailOverride, agentVoicemail(agent)], variables);
    const number = await this.callerNumber(
      workspaceId,
      agent.agent_uuid,
      dto.phone_number_uuid ?? dto.from ?? dto.phoneNumber,
    );
    this.telephony.forCalls(number.provider);
    this.numbers.assertCanCall(number, to);
    if (channel === 'whatsapp_call' && number.provider !== 'sandbox')
      throw AppException.conflict(
        'Outbound WhatsApp calls need the user’s prior permission, which is not requested',
      );
    if (dto.contact_uuid && !(await this.contacts.find(workspaceId, dto.contact_uuid)))
      throw AppException.invalid(
        'contact_uuid',
        'contact_uuid names no contact of this workspace',
        'VALIDATION_ERROR',
      );
    await this.blacklist.assertAllowed(workspaceId, { phone: to });

    const first = dto.first_message ?? dto.message?.start ?? voiceText(agent, 'first_message');
    const call = await this.create(workspaceId, {
      direction: 'Outbound',
      channel,
      status: 'queued',
      agent,
      number,
      contactId: dto.contact_uuid ?? null,
      customer: to,
      from: number.number,
      to,
      firstMessage: first ? fill(first, variables) : null,
      prompt,
      about: dto.about ?? dto.participant?.about ?? null,
      variables,
      metadata,
      record: recordsCall(agent, number.provider, dto.record),
      maxDurationSeconds:
        dto.max_duration_seconds ??
        voiceSetting(agent, 'max_duration_seconds', 30, 7200, DEFAULT_MAX_DURATION),
      ringTimeoutSeconds: dto.ring_timeout_seconds ?? DEFAULT_RING_TIMEOUT,
      voicemail,
    });
    await this.queue.add('dial', { workspaceId, callId: call.uuid }, { jobId: `dial:${call.uuid}` });
    return call;
  }

  /**
   * A task's call: like `place`, except that a full workspace or number answers null instead of 429, so the task
   * waits for a slot. Other refusals (agent unavailable, no number) throw.
   */
  async placeForTask(workspaceId: WorkspaceId, t: TaskCall): Promise<CallResponse | null> {
    const agent = await this.agents.agent(workspaceId, t.agentId);
    if (agent.status === 'paused' || agent.status === 'completed')
      throw new AgentUnavailable(agent.agent_uuid, agent.status);
    const number = await this.callerNumber(workspaceId, agent.agent_uuid, t.phoneNumberId ?? undefined);
    // The number's own rules hold for every call from it: voice switched on, destination whitelisted (409: the
    // task fails with that reason).
    this.numbers.assertCanCall(number, t.to);
    const first = voiceText(agent, 'first_message');
    try {
      const call = await this.create(workspaceId, {
        direction: 'Outbound',
        channel: 'phone',
        status: 'queued',
        agent,
        number,
        contactId: t.contactId,
        customer: t.to,
        from: number.number,
        to: t.to,
        firstMessage: first ? fill(first, t.variables) : null,
        prompt: null,
        about: null,
        variables: t.variables,
        metadata: t.metadata,
        record: recordsCall(agent, number.provider),
        maxDurationSeconds: voiceSetting(agent, 'max_duration_seconds', 30, 7200, DEFAULT_MAX_DURATION),
        ringTimeoutSeconds: DEFAULT_RING_TIMEOUT,
        campaignId: t.campaignId,
        taskId: t.taskId,
        link: t.link,
        // The campaign's (or task's) keys, then the agent's; no one is there to refuse a policy that cannot hold.
        voicemail: callVoicemail([t.voicemail, agentVoicemail(agent)], t.variables, { strict: false }),
      });
      await this.queue.add('dial', { workspaceId, callId: call.uuid }, { jobId: `dial:${call.uuid}` });
      return call;
    } catch (err) {
      if (err instanceof SlotsFull) return null;
      throw err;
    }
  }

  /**
   * Writes the conversation and the call in one transaction once a slot is held (ended-at-birth calls need none),
   * after the call's `link` work when it has one. The slot goes back if anything fails before the commit.
   */
  async create(
    workspaceId: WorkspaceId,
    c: NewCall,
    endReason?: 'agent_unavailable' | 'concurrency_limit' | 'provider_error',
    error: { code: string; message: string } | null = null,
  ): Promise<CallResponse> {
    const id = newId();
    const live = !endReason;
    // A web call has no number: its provider is named, and only the workspace's limit counts it.
    const numberId = c.number?.id ?? null;
    const provider = c.number?.provider ?? c.provider!;
    if (live) {
      const refusal = await this.slots.acquire(
        workspaceId,
        id,
        numberId,
        c.number ? this.numbers.callLimit(c.number, c.direction) : undefined,
      );
      if (refusal) throw new SlotsFull(refusal.scope, refusal.count, refusal.limit, c.number?.number ?? null);
    }
    try {
      // An inbound caller's contact follows the contact settings (it may stay without one).
      const contactId =
        c.contactId ??
        (c.customer === null
          ? null
          : c.direction === 'Inbound'
            ? await this.contacts.inboundContactFor(workspaceId, c.customer)
            : await this.contactFor(workspaceId, c.customer));
      const row = await this.unitOfWork.run(async (m) => {
        if (c.link) await c.link(m, id);
        const conversation = await this.conversations.insert(m, workspaceId, {
          id,
          agentId: c.agent.agent_uuid,
          channel: c.channel,
          contactId: contactId ?? undefined,
          phone: c.customer ?? undefined,
        });
        const call = this.calls.build(workspaceId, {
          id,
          agentId: c.agent.agent_uuid,
          contactId,
          phoneNumberId: numberId,
          direction: c.direction,
          channel: c.channel,
          status: c.status,
          endReason: endReason ?? null,
          error,
          handledBy: 'AI',
          fromNumber: c.from,
          toNumber: c.to,
          provider,
          providerCallId: null,
          isSimulation: this.telephony.for(provider).simulated,
          muted: false,
          forwardedTo: null,
          variables: c.variables,
          metadata: c.metadata,
          firstMessage: c.firstMessage,
          prompt: c.prompt,
          about: c.about,
          record: c.record,
          maxDurationSeconds: c.maxDurationSeconds,
          ringTimeoutSeconds: c.ringTimeoutSeconds,
          silenceTimeoutSeconds: 0,
          campaignId: c.campaignId ?? null,
          taskId: c.taskId ?? null,
          listingId: null,
          recording: null,
          answeredBy: null,
          voicemail: c.direction === 'Outbound' ? (c.voicemail ?? null) : null,
          machineDetection: null,
          providerLog: [],
          ownerId: this.instance.id,
          lastActivityAt: null,
          answeredAt: null,
          endedAt: live ? null : new Date(),
        });
        call.silenceTimeoutSeconds = voiceSetting(
          c.agent,
          'silence_timeout_seconds',
          1,
          600,
          DEFAULT_SILENCE_TIMEOUT,
        );
        await this.calls.save(workspaceId, call, m);
        if (!live) await this.conversations.closeLocked(m, workspaceId, id, 'call_ended');
        const view = (await this.calls.view(workspaceId, id, m))!;
        await this.outbox.record(m, workspaceId, [
          {
            type: 'conversation_status',
            agentId: c.agent.agent_uuid,
            data: {
              change: 'call_status',
              status: c.status,
              previous_status: null,
              conversation: ConversationResponse.of(conversation),
              call: CallResponse.of(view),
            },
          },
        ]);
        return view;
      });
      const response = CallResponse.of(row);
      await this.live.publish(id, live ? 'status' : 'end', response);
      return response;
    } catch (err) {
      if (live) await this.slots.release(workspaceId, id, numberId).catch(() => undefined);
      throw err;
    }
  }

  /** The caller ID: the number named (by UUID or E.164), else the one bound to the agent's call channel. */
  private async callerNumber(
    workspaceId: WorkspaceId,
    agentId: string,
    named?: string,
  ): Promise<PhoneNumber> {
    let number: PhoneNumber | null;
    if (named !== undefined) {
      number = isUuid(named)
        ? await this.numbers.find(workspaceId, named)
        : isE164(named)
          ? await this.numbers.findByNumber(workspaceId, named)
          : null;
      if (!number) throw new NumberUnavailable(null);
    } else {
      number = await this.numbers.boundNumber(workspaceId, agentId, 'call');
      if (!number) throw new NoNumberBound(agentId);
    }
    if (number.status !== 'active' || number.capabilities?.call === false)
      throw new NumberUnavailable(number.number);
    return number;
  }

  /** The contact with the customer's number, else a new one named after the number. */
  private async contactFor(workspaceId: WorkspaceId, phone: string): Promise<string> {
    const found = await this.contacts.findByPhone(workspaceId, phone);
    if (found) return found.id;
    try {
      return (await this.contacts.create(workspaceId, { name: phone, phone_number: phone })).id;
    } catch (err) {
      // Another call created it meanwhile (the number is unique per workspace).
      const again = await this.contacts.findByPhone(workspaceId, phone);
      if (again) return again.id;
      throw err;
    }
  }
}
