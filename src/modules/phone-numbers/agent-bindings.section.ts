import { Injectable } from '@nestjs/common';
import type { AgentBindings } from './dto/agent-bindings.response';
import { DEFAULT_CAPABILITIES } from './phone-number.entity';
import { AgentBindingRow, PhoneNumberBindingsRepository } from './phone-numbers.repository';

/**
 * The agent's numbers and channels in the whole-agent read: this module's tables, its SQL, its mapping. The agents
 * read model places `subSelect` (correlated with its `agents a` row) in its statement and maps the JSON it answers.
 */
@Injectable()
export class AgentBindingsView {
  readonly subSelect = PhoneNumberBindingsRepository.AGENT_VIEW_SUB_SELECT;

  toResponse(json: unknown): AgentBindings {
    const rows = json as AgentBindingRow[];
    const out: AgentBindings = { phone_numbers: [], channels: [] };
    for (const r of rows) {
      const boundAt = new Date(r.bound_at).toISOString();
      if (r.channel === 'messenger') {
        out.channels.push({
          channel: 'messenger',
          phone_number_uuid: null,
          number: null,
          page_id: r.page_id,
          page_name: r.page_name,
          bound_at: boundAt,
        });
        continue;
      }
      let number = out.phone_numbers.find((p) => p.phone_number_uuid === r.phone_number_id);
      if (!number) {
        number = {
          phone_number_uuid: r.phone_number_id,
          number: r.number,
          provider: r.provider,
          status: r.status,
          country_code: r.country_code,
          type: r.type,
          capabilities: { ...DEFAULT_CAPABILITIES, ...r.capabilities },
          channels: [],
        };
        out.phone_numbers.push(number);
      }
      number.channels.push(r.channel);
      out.channels.push({
        channel: r.channel,
        phone_number_uuid: r.phone_number_id,
        number: r.number,
        page_id: null,
        page_name: null,
        bound_at: boundAt,
      });
    }
    return out;
  }
}
