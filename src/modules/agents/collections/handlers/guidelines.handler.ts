import { Injectable } from '@nestjs/common';
import { ReplaceGuidelinesDto } from '../../dto/collections.dto';
import { AgentNotesRepository } from '../agent-collections.repository';
import type { CollectionRoute } from '../collection-handler';
import { NoteKindHandler, noteBodies, ORDER_RULE } from './note-kind.handler';

export const GUIDELINES_ROUTE: CollectionRoute = {
  name: 'guidelines',
  path: 'guidelines',
  itemParam: 'itemUuid',
  method: 'Guideline',
  one: 'a guideline',
  all: 'all guidelines',
  item: 'one guideline',
  rule: ORDER_RULE,
  errors: [],
  body: noteBodies(ReplaceGuidelinesDto),
};

@Injectable()
export class GuidelinesHandler extends NoteKindHandler {
  readonly label = 'Guideline';
  readonly route = GUIDELINES_ROUTE;

  constructor(repo: AgentNotesRepository) {
    super(repo, 'guideline');
  }
}
