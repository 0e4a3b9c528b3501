import { type Channel, isVoiceChannel } from '@/modules/conversations/channels';
import { asText } from '../steps/references';
/**
 * Which outbox events fire which triggers, and the triggers' filters. Pure: the dispatcher hands in the event and
 * looks up the one thing the event does not carry (a conversation's channel) through `channelOf`.
 */

export interface TriggerEvent {
  type: string;
  agent_id: string | null;
  data: Record<string, unknown>;
}

export const ENDED_CALL_STATUSES = ['completed', 'busy', 'no-answer', 'failed', 'canceled'];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});

/** The trigger keys an event may fire (filters aside). */
export function triggerKeysFor(e: TriggerEvent): string[] {
  const d = e.data;
  switch (e.type) {
    case 'conversation_status': {
      if (d.change !== 'call_status') return [];
      const call = obj(d.call);
      if (d.status === 'ringing' && call.direction === 'Inbound') return ['inbound_call'];
      return ENDED_CALL_STATUSES.includes(String(d.status)) ? ['call_ended'] : [];
    }
    case 'call_voicemail':
      return ['call_voicemail'];
    case 'conversation_update':
      return obj(d.message).direction === 'inbound' ? ['message_received'] : [];
    case 'conversation_end_report':
      return ['session_evaluated'];
    case 'contact_created':
      return ['contact_created'];
    case 'appointment_created':
      return ['appointment_created'];
    default:
      return [];
  }
}

const set = (v: unknown) => v !== undefined && v !== null && v !== '';
const sameId = (a: unknown, b: unknown) => asText(a).toLowerCase() === asText(b).toLowerCase();

/** Whether the event passes the trigger's filters. */
export async function matches(
  key: string,
  config: Obj,
  e: TriggerEvent,
  channelOf: (conversationId: string) => Promise<string | null>,
): Promise<boolean> {
  const d = e.data;
  const agentOk = !set(config.agent_uuid) || sameId(config.agent_uuid, e.agent_id);
  switch (key) {
    case 'inbound_call':
      return (
        agentOk &&
        (!set(config.phone_number_uuid) || sameId(config.phone_number_uuid, obj(d.call).phone_number_uuid))
      );
    case 'call_ended': {
      const statuses = Array.isArray(config.statuses) ? (config.statuses as string[]) : [];
      return (
        agentOk &&
        (!set(config.direction) || obj(d.call).direction === config.direction) &&
        (!statuses.length || statuses.includes(String(d.status)))
      );
    }
    case 'call_voicemail':
      return (
        agentOk && (!set(config.campaign_uuid) || sameId(config.campaign_uuid, obj(d.call).campaign_uuid))
      );
    case 'message_received': {
      if (!agentOk) return false;
      const message = obj(d.message);
      if (
        set(config.contains) &&
        !asText(message.content).toLowerCase().includes(String(config.contains).toLowerCase())
      )
        return false;
      const channel = await channelOf(String(d.conversation_uuid));
      if (!channel || isVoiceChannel(channel as Channel)) return false;
      const channels = Array.isArray(config.channels) ? (config.channels as string[]) : [];
      return !channels.length || channels.includes(channel);
    }
    case 'session_evaluated': {
      const session = obj(d.session);
      if (!agentOk || (set(config.channel) && session.channel !== config.channel)) return false;
      if (!set(config.feature)) return true;
      const records = Array.isArray(d.evaluation) ? (d.evaluation as Obj[]) : [];
      const record = records.find((r) => r.feature === config.feature);
      if (!record) return false;
      return (
        !set(config.value) ||
        JSON.stringify(record.value) === JSON.stringify(config.value) ||
        String(record.value) === String(config.value)
      );
    }
    case 'contact_created': {
      if (!set(config.tag_uuid)) return true;
      const tags = Array.isArray(obj(d.contact).tags) ? (obj(d.contact).tags as Obj[]) : [];
      return tags.some((t) => sameId(t.uuid, config.tag_uuid));
    }
    case 'appointment_created':
      return !set(config.schedule_uuid) || sameId(config.schedule_uuid, obj(d.appointment).schedule_uuid);
    default:
      return false;
  }
}
