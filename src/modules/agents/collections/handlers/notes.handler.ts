import { Injectable } from '@nestjs/common';
import { ReplaceNotesDto } from '../../dto/collections.dto';
import { AgentNotesRepository } from '../agent-collections.repository';
import type { CollectionRoute } from '../collection-handler';
import { NoteKindHandler, noteBodies, ORDER_RULE } from './note-kind.handler';

export const NOTES_ROUTE: CollectionRoute = {
  name: 'notes',
  path: 'notes',
  itemParam: 'itemUuid',
  method: 'Note',
  one: 'a note',
  all: 'all notes',
  item: 'one note',
  rule: ORDER_RULE,
  errors: [],
  body: noteBodies(ReplaceNotesDto),
};

@Injectable()
export class NotesHandler extends NoteKindHandler {
  readonly label = 'Note';
  readonly route = NOTES_ROUTE;

  constructor(repo: AgentNotesRepository) {
    super(repo, 'note');
  }
}
