import { Body, Controller, Delete, Param, Patch, Post, Put, Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { UuidParamPipe } from '@/common/http/validation';
import { AgentsService } from '../agents.service';
import { AgentResponse } from '../dto/agent.response';
import { AgentCollectionsService } from './agent-collections.service';
import type { CollectionName, CollectionRoute } from './collection-handler';
import { COLLECTION_ROUTES } from './handlers';

const BODY_ERRORS = ['VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID'] as const;

/**
 * The collections an agent holds. Every write answers the whole updated agent. One method per verb; the routes
 * of each collection (its path, body class and documentation) are declared from its handler's route below.
 */
@ApiTags('Agent knowledge and rules')
@Controller('api/v1/agents/:uuid')
export class AgentCollectionsController {
  constructor(
    private readonly collections: AgentCollectionsService,
    private readonly agents: AgentsService,
  ) {}

  async add(ws: WorkspaceId, id: string, name: CollectionName, dto: object): Promise<AgentResponse> {
    await this.collections.add(ws, id, name, dto);
    return this.agents.view(ws, id);
  }

  async replace(ws: WorkspaceId, id: string, name: CollectionName, items: object[]): Promise<AgentResponse> {
    await this.collections.replace(ws, id, name, items);
    return this.agents.view(ws, id);
  }

  async patch(
    ws: WorkspaceId,
    id: string,
    name: CollectionName,
    itemId: string,
    dto: object,
  ): Promise<AgentResponse> {
    await this.collections.patch(ws, id, name, itemId, dto);
    return this.agents.view(ws, id);
  }

  async remove(ws: WorkspaceId, id: string, name: CollectionName, itemId: string): Promise<AgentResponse> {
    await this.collections.remove(ws, id, name, itemId);
    return this.agents.view(ws, id);
  }
}

type Self = AgentCollectionsController;

/** Adds one named route method to the controller with the decorators a hand-written one would carry. */
function route(
  method: string,
  handler: (this: Self, ...args: never[]) => Promise<AgentResponse>,
  params: [ParameterDecorator, Type<unknown>][],
  decorators: MethodDecorator[],
): void {
  const proto = AgentCollectionsController.prototype as unknown as Record<string, unknown>;
  // Swagger finds a route's parameters and operation id by the function's own name.
  Object.defineProperty(handler, 'name', { value: method });
  Object.defineProperty(proto, method, { value: handler, writable: true, configurable: true });
  // Nest's validation and Swagger read the body class from the parameter types TypeScript would have emitted.
  Reflect.defineMetadata(
    'design:paramtypes',
    params.map(([, t]) => t),
    proto,
    method,
  );
  Reflect.defineMetadata('design:returntype', Promise, proto, method);
  // Last parameter first, as TypeScript applies them; the document lists them in that recorded order.
  for (let i = params.length - 1; i >= 0; i--) params[i][0](proto, method, i);
  const descriptor = Object.getOwnPropertyDescriptor(proto, method)!;
  Object.defineProperty(proto, method, Reflect.decorate(decorators, proto, method, descriptor) ?? descriptor);
}

function collectionRoutes(c: CollectionRoute): void {
  const ws: [ParameterDecorator, Type<unknown>] = [WorkspaceId(), String];
  const agent: [ParameterDecorator, Type<unknown>] = [Param('uuid', UuidParamPipe), String];
  const item: [ParameterDecorator, Type<unknown>] = [Param(c.itemParam, UuidParamPipe), String];
  const rule = c.rule ? ` ${c.rule}` : '';
  const errors = [...BODY_ERRORS, ...c.errors];
  route(
    `add${c.method}`,
    function (this: Self, w: WorkspaceId, id: string, dto: object) {
      return this.add(w, id, c.name, dto);
    },
    [ws, agent, [Body(), c.body.create]],
    [
      Post(c.path),
      ApiOperation({ summary: `Add ${c.one}`, description: `Answers the whole agent.${rule}` }),
      ApiEnvelope(AgentResponse, { status: 201, errors }),
    ],
  );
  route(
    `replace${c.method}`,
    function (this: Self, w: WorkspaceId, id: string, dto: Record<string, object[]>) {
      return this.replace(w, id, c.name, dto[c.name]);
    },
    [ws, agent, [Body(), c.body.replace]],
    [
      Put(c.path),
      ApiOperation({
        summary: `Replace ${c.all}`,
        description: `Old items are deleted first, then the new ones inserted, in one transaction.${rule}`,
      }),
      ApiEnvelope(AgentResponse, { errors }),
    ],
  );
  route(
    `patch${c.method}`,
    function (this: Self, w: WorkspaceId, id: string, itemId: string, dto: object) {
      return this.patch(w, id, c.name, itemId, dto);
    },
    [ws, agent, item, [Body(), c.body.update]],
    [
      Patch(`${c.path}/:${c.itemParam}`),
      ApiOperation({
        summary: `Change ${c.item} (only the keys sent)`,
        description: 'The other items are kept.',
      }),
      ApiEnvelope(AgentResponse, { errors }),
    ],
  );
  route(
    `remove${c.method}`,
    function (this: Self, w: WorkspaceId, id: string, itemId: string) {
      return this.remove(w, id, c.name, itemId);
    },
    [ws, agent, item],
    [
      Delete(`${c.path}/:${c.itemParam}`),
      ApiOperation({
        summary: `Remove ${c.item}`,
        description: 'The other items are kept. Answers the whole agent.',
      }),
      ApiEnvelope(AgentResponse, { errors: ['INVALID_UUID'] }),
    ],
  );
}

COLLECTION_ROUTES.forEach(collectionRoutes);
