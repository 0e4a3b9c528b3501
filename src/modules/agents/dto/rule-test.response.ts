import { ApiProperty } from '@nestjs/swagger';
import { ToolDryRunResponse } from './tool-dry-run.response';

export class RuleTraceEntryResponse {
  @ApiProperty({ format: 'uuid' }) rule_uuid!: string;
  @ApiProperty({ enum: ['guard', 'routing'] }) kind!: string;
  @ApiProperty({
    example: true,
    description: 'active, complete for its mode and (guards) covering the channel',
  })
  eligible!: boolean;
  @ApiProperty({ example: 'keyword matched' }) reason!: string;
  @ApiProperty({ example: true }) matched!: boolean;
  @ApiProperty({ example: 1, nullable: true, description: 'classifier score 0 to 1; 1 for a literal match' })
  score!: number | null;
}

export class RuleDestinationResponse {
  @ApiProperty({ type: String, example: 'extension', nullable: true }) type!: string | null;
  @ApiProperty({ type: String, example: '201', nullable: true }) value!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) agent_uuid!: string | null;
}

export class RuleTestResponse {
  @ApiProperty({ enum: ['guard', 'routing', 'none'] }) decision!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'the rule that fired',
  })
  rule!: object | null;
  @ApiProperty({
    example: 'transfer_call',
    nullable: true,
    description: 'forward / end_conversation / transfer type',
  })
  action!: string | null;
  @ApiProperty({ type: String, example: 'Let me transfer you to billing.', nullable: true }) say!:
    string | null;
  @ApiProperty({ type: RuleDestinationResponse, nullable: true })
  destination!: RuleDestinationResponse | null;
  @ApiProperty({ type: [RuleTraceEntryResponse] }) trace!: RuleTraceEntryResponse[];
  @ApiProperty({ enum: ['llm', 'local'], nullable: true, description: 'how intents were classified' })
  classifier!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'why the local classifier replaced the model, when it did',
  })
  classifier_note!: string | null;
  @ApiProperty({
    type: ToolDryRunResponse,
    description: 'which intents (tools) the model or the local classifier would call, without running them',
  })
  tools!: ToolDryRunResponse;
}
