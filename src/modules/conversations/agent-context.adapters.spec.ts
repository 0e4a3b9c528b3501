import type { AgentsService } from '@/modules/agents/agents.service';
import type { MemorizeSettingsService } from '@/modules/agents/settings/memorize-settings.service';
import type { EvaluationSettingsService } from '@/modules/agents/settings/evaluation-settings.service';
import { workspaceIdOf } from '@/common/auth/workspace-id';
import { AgentsContextReader } from './agent-context.adapters';

const WS = workspaceIdOf('ws');
const OTHER = workspaceIdOf('other');

/** The agents service as far as `forTurn` uses it: each read answers the current version and counts itself. */
function agentsAt(version: { current: string | null }) {
  const reads: string[] = [];
  const service = {
    viewWith: async (_ws: string, agentId: string) => {
      reads.push(agentId);
      return {
        view: { agent_uuid: agentId, name: `read ${reads.length}` },
        extras: {
          evaluation_rows: [
            {
              agent_id: null,
              is_override: false,
              settings: { sessionization: { timeout_minutes: 7 } },
              version: '3',
              updated_at: '2026-11-26T00:00:00.000Z',
            },
          ],
          memorize_rows: [
            { agent_id: agentId, settings: { is_active: false }, updated_at: '2026-11-26T00:00:00.000Z' },
          ],
        },
        configVersion: version.current,
      };
    },
  };
  return { service: service as unknown as AgentsService, reads };
}

const reader = (agents: AgentsService) =>
  new AgentsContextReader(
    agents,
    {} as unknown as EvaluationSettingsService,
    {} as unknown as MemorizeSettingsService,
  );

describe('AgentsContextReader.forTurn', () => {
  it('answers from the kept context while the version holds, and reads again when it moves', async () => {
    const version = { current: '10' as string | null };
    const { service, reads } = agentsAt(version);
    const r = reader(service);
    const first = await r.forTurn(WS, 'a1', '10');
    expect(first.evaluation.settings.sessionization.timeout_minutes).toBe(7);
    expect(first.evaluation.version).toBe(3);
    expect(first.memorize.is_active).toBe(false);
    expect(await r.forTurn(WS, 'a1', '10')).toBe(first);
    expect(reads).toHaveLength(1);
    version.current = '11';
    const second = await r.forTurn(WS, 'a1', '11');
    expect(second.agent.name).toBe('read 2');
    expect(await r.forTurn(WS, 'a1', '11')).toBe(second);
    // Another workspace's agent of the same id is another context.
    await r.forTurn(OTHER, 'a1', '11');
    expect(reads).toHaveLength(3);
  });

  it('always reads when the caller has no version; a read that found no version is not kept', async () => {
    const version = { current: null as string | null };
    const { service, reads } = agentsAt(version);
    const r = reader(service);
    await r.forTurn(WS, 'a1');
    await r.forTurn(WS, 'a1', null);
    expect(reads).toHaveLength(2);
    version.current = '5';
    await r.forTurn(WS, 'a1'); // a text turn: reads, and keeps what it read at version 5
    await r.forTurn(WS, 'a1', '5');
    expect(reads).toHaveLength(3);
  });

  it('keeps at most 500 agents, dropping the oldest read first', async () => {
    const { service, reads } = agentsAt({ current: '1' });
    const r = reader(service);
    for (let i = 0; i <= 500; i += 1) await r.forTurn(WS, `a${i}`, '1');
    await r.forTurn(WS, 'a500', '1');
    expect(reads).toHaveLength(501);
    await r.forTurn(WS, 'a0', '1');
    expect(reads).toHaveLength(502);
  });
});
