/** Conversation channels; voice channels are evaluated with the `voice` block, the others with `text`. */
export const CHANNELS = [
  'phone',
  'sms',
  'whatsapp',
  'whatsapp_call',
  'messenger',
  'instagram',
  'chat',
  'web',
] as const;
export type Channel = (typeof CHANNELS)[number];

export const VOICE_CHANNELS: ReadonlySet<Channel> = new Set(['phone', 'whatsapp_call', 'web']);

export const CHANNEL_LABELS: Record<Channel, string> = {
  phone: 'Phone call',
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  whatsapp_call: 'WhatsApp call',
  messenger: 'Messenger',
  instagram: 'Instagram',
  chat: 'Web chat',
  web: 'Web call',
};

export const isVoiceChannel = (channel: Channel): boolean => VOICE_CHANNELS.has(channel);

/** WhatsApp's customer-service window: free-form messages until 24 hours after the customer's last one. */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;
