import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A task's failure is a stable code (`failure_reason`) and the data it is about (`failure_data`), no longer the
 * English of the refusal that failed it. Tasks failed by a refusal of their call before this release held its
 * message: the known ones become their code and data; any other text is left as it was.
 */
export class TaskFailureData1764192000000 implements MigrationInterface {
  name = 'TaskFailureData1764192000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbound_tasks ADD COLUMN failure_data jsonb`);
    await codeFailureTexts(q);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE outbound_tasks DROP COLUMN failure_data`);
  }
}

/** Failed tasks holding a refusal's English as their `failure_reason`: the known texts become code and data. */
export async function codeFailureTexts(q: Pick<QueryRunner, 'query'>): Promise<void> {
  // (pattern, code, data built from the pattern's groups m and the task's row t)
  const known: [string, string, string][] = [
    [
      '^Agent is (paused|completed)$',
      'agent_unavailable',
      `jsonb_build_object('agent_uuid', t.agent_id, 'agent_status', m[1])`,
    ],
    ['^Agent not found$', 'agent_not_found', `jsonb_build_object('agent_uuid', t.agent_id)`],
    [
      '^phone_number_uuid is required: the agent has no number bound to its call channel$',
      'no_number_bound',
      `jsonb_build_object('agent_uuid', t.agent_id)`,
    ],
    [
      '^phone_number_uuid names no phone number of this workspace$',
      'number_unavailable',
      `jsonb_build_object('phone_number', NULL)`,
    ],
    [
      '^The number (\\+[0-9]+) is not an active call-capable number$',
      'number_unavailable',
      `jsonb_build_object('phone_number', m[1])`,
    ],
    [
      '^Outbound calls from (\\+[0-9]+) are disabled \\(channel_settings\\.voice\\.enabled\\)$',
      'voice_disabled',
      `jsonb_build_object('phone_number', m[1])`,
    ],
    [
      "^Calls from (\\+[0-9]+) to (.+) are not allowed: .+ is not in the number's whitelisted_destinations \\((.*)\\)$",
      'destination_not_allowed',
      `jsonb_build_object('phone_number', m[1],
                            'country', NULLIF(m[2], 'an unknown country'),
                            'whitelisted_destinations', to_jsonb(string_to_array(m[3], ', ')))`,
    ],
    [
      '^Calls through the provider (\\S+) are not configured$',
      'provider_not_configured',
      `jsonb_build_object('provider', m[1])`,
    ],
  ];
  for (const [pattern, code, data] of known)
    await q.query(
      `UPDATE outbound_tasks AS t SET failure_reason = $2, failure_data = ${data}
         FROM (SELECT id, regexp_match(failure_reason, $1) AS m FROM outbound_tasks
                WHERE status = 'failed' AND failure_reason ~ $1) AS x
        WHERE t.id = x.id`,
      [pattern, code],
    );
}
