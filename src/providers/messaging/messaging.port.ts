import type { WorkspaceId } from '@/common/auth/workspace-id';
/** Delivery statuses of a provider message; `received` is every inbound message's. */
export const DELIVERY_STATUSES = [
  'queued',
  'sent',
  'delivered',
  'read',
  'failed',
  'undelivered',
  'received',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type MessagingChannel = 'sms' | 'whatsapp' | 'messenger' | 'instagram';

export interface ProviderFailure {
  code: string;
  message: string;
}

/** The `messaging` jobs that carry a provider's delivery status, declared into the queue table. */
declare module '@/common/queue/queues' {
  interface MessagingJobs {
    /** A sandbox message's next delivery status. */
    'sandbox-status': { workspaceId: WorkspaceId; messageId: string; status: DeliveryStatus };
    /** A provider's status callback, found by our message id (Twilio) or the provider's (Meta's wamid). */
    'provider-status': {
      provider: string;
      messageId?: string;
      providerMessageId?: string;
      status: DeliveryStatus;
      error: ProviderFailure | null;
    };
  }
}

/** A refusal by the provider: the message ends `failed` with this code (Meta's numeric code as a string). */
export class MessagingProviderError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /**
     * The provider could not be reached or failed on its side (network, timeout, 5xx, 429): worth another try, as
     * opposed to a refusal of this message (4xx), which ends it `failed` at once.
     */
    readonly transient = false,
  ) {
    super(message);
  }
}

/** HTTP statuses that say "try again later" rather than "this message is refused". */
export const isTransientStatus = (status: number | undefined): boolean =>
  status === undefined || status === 408 || status === 429 || status >= 500;

export interface TemplatePayload {
  name: string;
  language: string;
  /** Body placeholder values, in order. */
  parameters: string[];
  header?: { type: 'image' | 'video' | 'document'; url: string } | null;
}

export interface OutboundMessage {
  workspaceId: WorkspaceId;
  messageId: string;
  channel: MessagingChannel;
  /** Our side: the E.164 sender (SMS), Meta's phone_number_id (WhatsApp) or the page id (Messenger, Instagram). */
  from: string;
  /** The customer's address: E.164, or the page-scoped id on Messenger and Instagram. */
  to: string;
  text?: string;
  template?: TemplatePayload;
}

/** A message provider; progress after `send` arrives as statuses (callbacks, or the sandbox's delayed jobs). */
export interface MessagingAdapter {
  readonly provider: string;
  readonly simulated: boolean;
  /** False while the deployment lacks the provider's credentials: nothing can be sent through it. */
  readonly configured: boolean;
  /** Hands the message to the provider; answers its id. Throws MessagingProviderError on a refusal. */
  send(message: OutboundMessage): Promise<{ providerMessageId: string }>;
}

/** A template as Meta holds it (also the sandbox's answer). */
export interface ProviderTemplate {
  id: string | null;
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
  rejectedReason: string | null;
}

/** WhatsApp template management at the provider (Meta's WABA endpoints). */
export interface TemplateProvider {
  create(
    wabaId: string,
    template: { name: string; language: string; category: string; components: unknown[] },
  ): Promise<{ id: string | null; status: string }>;
  list(wabaId: string): Promise<ProviderTemplate[]>;
  remove(wabaId: string, name: string): Promise<void>;
}

export const MESSAGING_ADAPTERS = Symbol('MESSAGING_ADAPTERS');
