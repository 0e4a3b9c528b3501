import { AppException } from '@/common/errors/app.exception';
import type { WorkspaceId } from '@/common/auth/workspace-id';

export interface ActionContext {
  workspaceId: WorkspaceId;
  executionId: string;
  stepNumber: number;
  /** 1 for the first attempt of this step. */
  attempt: number;
}

export type ActionHandler = (input: Record<string, unknown>, ctx: ActionContext) => Promise<unknown>;

/** A step failed for good: the execution fails with this code. */
export class StepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A step to try again after `delayMs` (a Bull delayed job resumes the execution at this step). */
export class RetryStep extends Error {
  constructor(
    readonly delayMs: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The error of a failed step, as stored: the API's code when the failure came from a service. */
export function stepError(err: unknown): { code: string; message: string } {
  if (err instanceof AppException || err instanceof StepFailure || err instanceof RetryStep)
    return { code: err.code, message: err.message };
  return { code: 'INTERNAL_SERVER_ERROR', message: (err as Error)?.message ?? 'step failed' };
}

/**
 * The messaging and outbound services a step calls, behind the API route's own validation (flow-ports.ts); the flows
 * module provides both, required.
 */
export const FLOW_MESSAGING = Symbol('FLOW_MESSAGING');
export const FLOW_TASKS = Symbol('FLOW_TASKS');

export interface FlowMessagingPort {
  sendSms(workspaceId: WorkspaceId, body: Record<string, unknown>): Promise<unknown>;
  sendWhatsappTemplate(workspaceId: WorkspaceId, body: Record<string, unknown>): Promise<unknown>;
}

export interface FlowTasksPort {
  createTask(workspaceId: WorkspaceId, body: Record<string, unknown>): Promise<unknown>;
}
