import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsUuidValue } from '@/common/validation/validators';

export class ListEvaluationsQuery extends PageQuery {
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() agent_uuid?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUuidValue() session_uuid?: string;
  @ApiPropertyOptional({ example: 'success_evaluation_prompt' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  feature?: string;
  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z', description: 'created at or after (inclusive)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;
  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'created before (exclusive)' })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;
}
