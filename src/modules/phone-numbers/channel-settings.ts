import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { AppException } from '@/common/errors/app.exception';
import {
  DestinationNotAllowed,
  InboundCallsDisabled,
  OutboundCallsDisabled,
} from '@/common/errors/domain-errors';
import type { ChannelSettings, PhoneNumber } from './phone-number.entity';

/** A number's channel settings with every default filled in. */
export interface EffectiveChannelSettings {
  voice: { enabled: boolean; channel_limit: number; whitelisted_destinations: string[] };
  sms: { enabled: boolean };
  inbound: { enabled: boolean; channel_limit: number };
}

type NumberSettings = Pick<PhoneNumber, 'number' | 'countryCode' | 'channelSettings'>;

/**
 * The stored (partial) settings with defaults: channels enabled, channel limits the workspace's
 * (MAX_CONCURRENT_CALLS), destinations the number's own country (none known: every country).
 */
export function effectiveSettings(n: NumberSettings, workspaceLimit: number): EffectiveChannelSettings {
  const s: ChannelSettings = n.channelSettings ?? {};
  return {
    voice: {
      enabled: s.voice?.enabled ?? true,
      channel_limit: s.voice?.channel_limit ?? workspaceLimit,
      whitelisted_destinations: s.voice?.whitelisted_destinations ?? (n.countryCode ? [n.countryCode] : []),
    },
    sms: { enabled: s.sms?.enabled ?? true },
    inbound: {
      enabled: s.inbound?.enabled ?? true,
      channel_limit: s.inbound?.channel_limit ?? workspaceLimit,
    },
  };
}

/**
 * Merges a PATCH into the stored settings: a key present replaces the stored one, `null` removes it (back to its
 * default), an absent key leaves it as it is.
 */
export function mergeSettings(stored: ChannelSettings, patch: Record<string, unknown>): ChannelSettings {
  const out: Record<string, Record<string, unknown>> = {};
  for (const block of ['voice', 'sms', 'inbound'] as const) {
    const merged: Record<string, unknown> = { ...(stored[block] ?? {}) };
    const change = patch[block];
    if (change === null) {
      continue;
    } else if (change && typeof change === 'object') {
      for (const [key, value] of Object.entries(change as Record<string, unknown>)) {
        if (value === undefined) continue;
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
    }
    if (Object.keys(merged).length) out[block] = merged;
  }
  return out as ChannelSettings;
}

/** 409 when the number may not place this outbound call: voice disabled, or a destination not whitelisted. */
export function assertOutboundCall(n: NumberSettings, to: string): void {
  const s = effectiveSettings(n, 1);
  if (!s.voice.enabled) throw new OutboundCallsDisabled(n.number);
  const list = s.voice.whitelisted_destinations;
  if (!list.length) return;
  const country = parsePhoneNumberFromString(to)?.country ?? null;
  if (!country || !list.includes(country)) throw new DestinationNotAllowed(n.number, country, list);
}

/** 409 when SMS is switched off on the number. */
export function assertSmsEnabled(n: NumberSettings): void {
  if (n.channelSettings?.sms?.enabled === false)
    throw AppException.conflict(`SMS from ${n.number} is disabled (channel_settings.sms.enabled)`);
}

/** Whether the number takes inbound calls. */
export function inboundEnabled(n: NumberSettings): boolean {
  return n.channelSettings?.inbound?.enabled !== false;
}

/** 409 when the number takes no inbound calls. */
export function assertInboundEnabled(n: NumberSettings): void {
  if (!inboundEnabled(n)) throw new InboundCallsDisabled(n.number);
}

/**
 * The number's concurrency limit for a new call: `voice.channel_limit` for outbound calls, `inbound.channel_limit`
 * for inbound ones; undefined when unset (the workspace limit applies).
 */
export function numberCallLimit(
  n: Pick<PhoneNumber, 'channelSettings'>,
  direction: 'Inbound' | 'Outbound',
): number | undefined {
  const s = n.channelSettings ?? {};
  return (direction === 'Inbound' ? s.inbound?.channel_limit : s.voice?.channel_limit) ?? undefined;
}
