import { Injectable } from '@nestjs/common';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { ConversationTurnsService, TurnOptions } from './conversation-turns.service';
import type { LiveTurn } from './turn-gate';
import { TurnEvent, turnStream } from './turn-events';

/** A customer's turn: whose conversation, their words, and how the caller shapes it (TurnOptions). */
export interface TurnInput extends Omit<TurnOptions, 'live' | 'observe'> {
  workspaceId: WorkspaceId;
  conversationId: string;
  /** The customer's words (key presses: `(pressed 1 2)` with `messageType: 'dtmf'`). */
  content: string;
}

/** How a turn is taken live (a call); without any of these the turn is committed at once and reports no text. */
export interface TakeTurnOptions {
  /**
   * Cancels the turn. Before its commit nothing is stored, the model's request is aborted and the events end with
   * TurnCancelled; after it (or without a commit) only the `text` events stop: the turn ends as usual, its reply
   * stored.
   */
  signal?: AbortSignal;
  /**
   * Makes the turn speculative: the reads, the rules and the model start at once, but nothing is stored and no event
   * is reported until this resolves (a rejection cancels the turn).
   */
  commit?: Promise<void>;
  /** Reports the reply as the model writes it (`text` events; the model is asked in streaming mode). */
  deltas?: boolean;
}

/**
 * The turn pipeline shared by every channel: text conversations, SMS and WhatsApp, phone and web calls. `takeTurn`
 * starts the turn at once and answers its events (TurnEvent): `text` as the model writes (with `deltas`), `message`
 * for each message stored, `tool-call` and `action` as they happen, then `end` with the outcome. A failure (a closed
 * conversation; TurnCancelled, the turn cancelled before its commit) is thrown to the reader after the events before
 * it.
 */
@Injectable()
export class TurnRuntime {
  constructor(private readonly turns: ConversationTurnsService) {}

  takeTurn(input: TurnInput, options: TakeTurnOptions = {}): AsyncIterableIterator<TurnEvent> {
    const { workspaceId, conversationId, content, ...shape } = input;
    const { signal, commit, deltas } = options;
    return turnStream((emit) => {
      const live: LiveTurn | undefined =
        signal || commit || deltas
          ? { signal, commit, onDelta: deltas ? (delta) => emit({ type: 'text', delta }) : undefined }
          : undefined;
      return this.turns.takeTurn(workspaceId, conversationId, content, { ...shape, live, observe: emit });
    });
  }
}
