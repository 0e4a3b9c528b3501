import type { Provider } from '@nestjs/common';
import { GUARD_RULES_ROUTE, GuardRulesHandler } from './guard-rules.handler';
import { GUIDELINES_ROUTE, GuidelinesHandler } from './guidelines.handler';
import { INTENTS_ROUTE, IntentsHandler } from './intents.handler';
import { NOTES_ROUTE, NotesHandler } from './notes.handler';
import { PROCEDURES_ROUTE, ProceduresHandler } from './procedures.handler';
import { ROUTING_RULES_ROUTE, RoutingRulesHandler } from './routing-rules.handler';
import { TRAINING_ROUTE, TrainingHandler } from './training.handler';
import { AGENT_WEBHOOKS_ROUTE, AgentWebhooksHandler } from './webhooks.handler';

/** The collections in the order their routes are registered and documented. */
export const COLLECTION_ROUTES = [
  GUIDELINES_ROUTE,
  NOTES_ROUTE,
  TRAINING_ROUTE,
  PROCEDURES_ROUTE,
  INTENTS_ROUTE,
  AGENT_WEBHOOKS_ROUTE,
  ROUTING_RULES_ROUTE,
  GUARD_RULES_ROUTE,
];

const HANDLERS = [
  GuidelinesHandler,
  NotesHandler,
  TrainingHandler,
  ProceduresHandler,
  IntentsHandler,
  AgentWebhooksHandler,
  RoutingRulesHandler,
  GuardRulesHandler,
];

export const COLLECTION_HANDLERS = Symbol('COLLECTION_HANDLERS');

/** Every handler, and the list of them the collections service reads. */
export const collectionHandlerProviders: Provider[] = [
  ...HANDLERS,
  { provide: COLLECTION_HANDLERS, useFactory: (...handlers: unknown[]) => handlers, inject: HANDLERS },
];
