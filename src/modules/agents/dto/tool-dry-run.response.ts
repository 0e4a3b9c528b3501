import { ApiProperty } from '@nestjs/swagger';

export class ToolDryRunCallResponse {
  @ApiProperty({ format: 'uuid' }) intent_uuid!: string;
  @ApiProperty({ example: 'check_order_status' }) key!: string;
  @ApiProperty({ example: 'Check order status' }) name!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { order_number: 'A-1001' },
    description: 'as the model sent them with defaults filled; the defaults alone for the local classifier',
  })
  parameters!: Record<string, unknown>;
  @ApiProperty({ example: true, description: 'whether the parameters pass the intent parameter rules' })
  valid!: boolean;
  @ApiProperty({ type: [String], example: [] }) errors!: string[];
  @ApiProperty({ type: Number, example: null, nullable: true, description: 'local classifier score 0 to 1' })
  score!: number | null;
}

export class ToolDryRunResponse {
  @ApiProperty({ enum: ['llm', 'local'], example: 'llm' }) method!: string;
  @ApiProperty({ type: [ToolDryRunCallResponse], description: 'the intents that would be called, none run' })
  calls!: ToolDryRunCallResponse[];
  @ApiProperty({
    type: String,
    example: null,
    nullable: true,
    description: 'why the local classifier answered',
  })
  note!: string | null;
}
