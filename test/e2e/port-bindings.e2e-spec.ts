import { NestFactory } from '@nestjs/core';
import { AppModule } from '@/app.module';
import { createHttpApp } from '@/bootstrap';
import { loadConfig } from '@/config/app.config';
import { CALL_END_LISTENERS, CallEndListeners } from '@/modules/calls/call-end.port';
import { CALL_MEDIA } from '@/modules/calls/call-media.port';
import { PORT_BINDINGS, PortBindingsModule } from '@/modules/port-bindings.module';
import { declaredPorts } from '@/modules/ports';

/** Runs `fn` with `token`'s binding taken out of the table the application binds. */
async function without<T>(token: symbol, fn: () => Promise<T>): Promise<T> {
  const at = PORT_BINDINGS.findIndex((b) => 'provide' in b && b.provide === token);
  expect(at).toBeGreaterThanOrEqual(0);
  const [removed] = PORT_BINDINGS.splice(at, 1);
  try {
    return await fn();
  } finally {
    PORT_BINDINGS.splice(at, 0, removed);
  }
}

describe('ports between modules: declared by the lower module, bound in PortBindingsModule, required at boot', () => {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });

  it('binds every port the modules declare, and the whole module graph resolves with them', async () => {
    expect(declaredPorts().map((p) => `${p.declaredBy}: ${p.name}`)).toEqual(
      expect.arrayContaining([
        'events: AGENT_WEBHOOK_TARGETS',
        'events: OUTBOX_CONSUMERS',
        'agents: TOOL_DRY_RUN',
        'runtime: INTENT_ACTIONS',
        'intents: FLOW_STARTER',
        'intents: CALL_KEYPAD',
        'calls: CALL_MEDIA',
        'calls: CALL_END_LISTENERS',
        'outbound: OUTBOUND_TEMPLATE_SENDER',
      ]),
    );
    expect(() => PortBindingsModule.forRoot()).not.toThrow();
    // Every provider's dependencies, the ports' included, resolved as for a worker process (nothing is started).
    const app = await NestFactory.create(AppModule.register({ config, workers: true }), {
      preview: true,
      logger: false,
      abortOnError: false,
    });
    await app.close();
  });

  it('refuses to start without a binding, naming the port and the module that declares it', async () => {
    await without(CALL_MEDIA, async () => {
      await expect(createHttpApp(config, false)).rejects.toThrow(
        'port CALL_MEDIA, declared by the calls module, is not bound: bind it in PortBindingsModule ' +
          '(src/modules/port-bindings.module.ts)',
      );
    });
    await without(CALL_END_LISTENERS, async () => {
      expect(() => AppModule.register({ config, workers: false })).toThrow(
        /^port CALL_END_LISTENERS, declared by the calls module, is not bound/,
      );
    });
  });

  it('the call-end listeners, read by the lifecycle outside its constructor, stop the start when nothing bound them', () => {
    const listeners = new CallEndListeners();
    expect(() => listeners.onModuleInit()).toThrow(
      'port CALL_END_LISTENERS, declared by the calls module, is not bound: bind it in PortBindingsModule ' +
        '(src/modules/port-bindings.module.ts)',
    );
    listeners.bind([]);
    expect(() => listeners.onModuleInit()).not.toThrow();
    expect(() => listeners.bind([])).toThrow('CALL_END_LISTENERS is bound twice');
  });
});
