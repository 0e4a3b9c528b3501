import { Global, Module } from '@nestjs/common';
import { FLOW_STARTER } from '@/modules/intents/flow-starter.port';
import { FlowStarter } from './flow-starter.service';
import { FlowsModule } from './flows.module';

/**
 * Hands the flow starter to intents (their `scenario` action) as FLOW_STARTER. Global because the flows module
 * already depends, through conversations, on the intents module: a plain import would close a module cycle.
 */
@Global()
@Module({
  imports: [FlowsModule],
  providers: [{ provide: FLOW_STARTER, useExisting: FlowStarter }],
  exports: [FLOW_STARTER],
})
export class FlowStarterModule {}
