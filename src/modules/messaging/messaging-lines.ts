import { Injectable } from '@nestjs/common';
import { ContactsService } from '@/modules/contacts/contacts.service';
import { ConversationsService } from '@/modules/conversations/conversations.service';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import type { MessagingThread } from './messaging.entities';
import { FoundLine, MessagingThreadsRepository, ThreadKey } from './messaging.repositories';

/**
 * A messaging conversation's line: the latest active conversation of (agent, customer, channel, number or page),
 * else a new one with its thread row, in one statement.
 */
@Injectable()
export class MessagingLines {
  constructor(
    private readonly threads: MessagingThreadsRepository,
    private readonly conversations: ConversationsService,
    private readonly contacts: ContactsService,
  ) {}

  /**
   * The line's active conversation, else a new one with the contact `contactFor` answers (asked only then); with
   * whether the customer's number is on the do-not-contact list when the same read told (null for a new line).
   * `known` is what the caller's own read found already (null: no active conversation); absent, it is read here.
   * With `session`, a new line's conversation opens with its active session in the same statement (the turn that
   * follows then writes straight into it). `opened` tells a new line, with its contact.
   */
  async open(
    workspaceId: WorkspaceId,
    key: ThreadKey,
    contactFor: () => Promise<string | null>,
    known?: FoundLine | null,
    session?: { at: Date; timeoutMs: number },
  ): Promise<{
    thread: MessagingThread;
    blacklisted: boolean | null;
    opened?: { contactId: string | null };
  }> {
    const found =
      known === undefined
        ? await this.threads.latestActive(workspaceId, key)
        : known && this.threads.found(workspaceId, key, known);
    if (found) return found;
    const contactId = await contactFor();
    const now = new Date();
    const thread = this.threads.build(workspaceId, {
      channel: key.channel,
      phoneNumberId: key.phoneNumberId,
      pageId: key.pageId,
      customerAddress: key.customerAddress,
      handledBy: 'AI',
      createdAt: now,
      updatedAt: now,
    });
    // The thread's id is its conversation's.
    await this.conversations.start(
      workspaceId,
      {
        id: thread.id,
        agentId: key.agentId,
        channel: key.channel,
        contactId: contactId ?? undefined,
        phone: key.customerAddress,
      },
      { session, alongside: [this.threads.newRows(workspaceId, [thread])] },
    );
    return { thread, blacklisted: null, opened: { contactId } };
  }

  handOff(workspaceId: WorkspaceId, threadId: string): Promise<void> {
    return this.threads.setHandledBy(workspaceId, threadId, 'Human');
  }

  /** The contact of an inbound message from this number, as the contact settings say (or none). */
  inboundContactFor(workspaceId: WorkspaceId, phone: string): Promise<string | null> {
    return this.contacts.inboundContactFor(workspaceId, phone);
  }

  /** The contact with this phone number, else a new one named after it (the number is unique per workspace). */
  async contactFor(workspaceId: WorkspaceId, phone: string): Promise<string> {
    const existing = await this.contacts.findByPhone(workspaceId, phone);
    if (existing) return existing.id;
    try {
      return (await this.contacts.create(workspaceId, { name: phone, phone_number: phone })).id;
    } catch (err) {
      const raced = await this.contacts.findByPhone(workspaceId, phone);
      if (raced) return raced.id;
      throw err;
    }
  }
}
