import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsObject } from 'class-validator';
import { OptionalNotNull } from '@/common/validation/validators';

export const MAX_BATCH = 1000;

export class AddRecordsDto {
  @ApiPropertyOptional({ example: { product: 'Basic plan', price: 19 }, description: 'one record' })
  @OptionalNotNull()
  @IsObject()
  record?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    example: [{ product: 'Pro plan', price: 49 }],
    description: `up to ${MAX_BATCH}, all or nothing`,
  })
  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(MAX_BATCH)
  records?: unknown[];
}

export class UpdateRecordDto {
  @ApiPropertyOptional({ example: { price: 21 }, description: 'the values to change' })
  @IsObject()
  record!: Record<string, unknown>;
}
