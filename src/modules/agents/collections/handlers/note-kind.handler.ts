import { NoteDto, UpdateNoteDto } from '../../dto/collections.dto';
import { AgentNotesRepository } from '../agent-collections.repository';
import type { AgentNote } from '../agent-note.entity';
import {
  CollectionHandler,
  CollectionRoute,
  DefaultSpec,
  FieldSpec,
  nextNumber,
  WriteContext,
} from '../collection-handler';

export const ORDER_RULE = 'Without order it goes last (max + 1).';
export const noteBodies = (replace: CollectionRoute['body']['replace']) => ({
  create: NoteDto,
  replace,
  update: UpdateNoteDto,
});

/** Guidelines and notes share one table, told apart by their kind. */
export abstract class NoteKindHandler implements CollectionHandler<AgentNote> {
  abstract readonly route: CollectionRoute;
  abstract readonly label: string;
  readonly scope: { kind: 'guideline' | 'note' };
  readonly required = ['content', 'order'];
  readonly fields: Record<string, FieldSpec<AgentNote>> = { content: 'content', order: 'order' };
  readonly defaults: Partial<Record<keyof AgentNote, DefaultSpec>>;

  constructor(
    readonly repo: AgentNotesRepository,
    kind: 'guideline' | 'note',
  ) {
    this.scope = { kind };
    this.defaults = { kind, order: (ctx: WriteContext) => nextNumber(ctx, repo, 'order', this.scope) };
  }
}
