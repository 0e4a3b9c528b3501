import { Injectable } from '@nestjs/common';
import { ReplaceTrainingDto, TrainingDto, UpdateTrainingDto } from '../../dto/collections.dto';
import { AgentTrainingRepository } from '../agent-collections.repository';
import type { AgentTraining } from '../agent-training.entity';
import type { CollectionHandler, CollectionRoute } from '../collection-handler';

export const TRAINING_ROUTE: CollectionRoute = {
  name: 'training',
  path: 'training',
  itemParam: 'itemUuid',
  method: 'Training',
  one: 'a training example',
  all: 'all training examples',
  item: 'one training example',
  errors: [],
  body: { create: TrainingDto, replace: ReplaceTrainingDto, update: UpdateTrainingDto },
};

@Injectable()
export class TrainingHandler implements CollectionHandler<AgentTraining> {
  readonly label = 'Training example';
  readonly route = TRAINING_ROUTE;
  readonly scope = {};
  readonly required = ['content'];
  readonly fields = { content: 'content', intent: 'intent', response: 'response' } as const;
  readonly defaults = { intent: null, response: null };

  constructor(readonly repo: AgentTrainingRepository) {}
}
