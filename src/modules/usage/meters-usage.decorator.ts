import { Inject } from '@nestjs/common';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { UsageRecorder } from './usage-recorder';

const RECORDER = 'usageRecorder$';

/**
 * On a service method whose first two arguments are `(workspaceId, conversationId)`: the model, speech and tool
 * usage of everything the method does (and starts) is counted for that conversation. The recorder is injected as a
 * property of the service, so putting the decorator on a method is the whole change; a service built by hand
 * (unit tests) simply records nothing.
 */
export function MetersUsage(): MethodDecorator {
  return (target, _key, descriptor: PropertyDescriptor) => {
    Inject(UsageRecorder)(target, RECORDER);
    const original = descriptor.value as (...args: unknown[]) => unknown;
    descriptor.value = function (this: { [RECORDER]?: UsageRecorder }, ...args: unknown[]) {
      const recorder = this[RECORDER];
      const [workspaceId, conversationId] = args;
      if (!recorder || typeof workspaceId !== 'string' || typeof conversationId !== 'string')
        return original.apply(this, args);
      // The decorated methods take the workspace id first (their own parameter types say so).
      return recorder.within(workspaceId as WorkspaceId, conversationId, () => original.apply(this, args));
    };
  };
}
