import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { IsHexColor } from '@/common/validation/validators';

export class CreateStageDto {
  @ApiProperty({ example: 'Qualified' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(100)
  name!: string;

  @ApiPropertyOptional({ example: 2, description: 'position; without it the stage goes last (max + 1)' })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(100000)
  order?: number;

  @ApiPropertyOptional({ example: '#3366FF', nullable: true })
  @IsOptional()
  @IsHexColor()
  color?: string | null;
}

export class UpdateStageDto {
  @ApiPropertyOptional({ example: 'Qualified' })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsString()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ example: 3 })
  @ValidateIf((_, v) => v !== undefined)
  @IsInt()
  @Min(0)
  @Max(100000)
  order?: number;

  @ApiPropertyOptional({ example: '#3366FF', nullable: true })
  @IsOptional()
  @IsHexColor()
  color?: string | null;
}

export class StageResponse {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e70' }) uuid!: string;
  @ApiProperty({ example: 'Qualified' }) name!: string;
  @ApiProperty({ example: 2 }) order!: number;
  @ApiProperty({ type: String, example: '#3366FF', nullable: true }) color!: string | null;
  @ApiProperty({ example: 8, description: 'contacts in the stage' }) contacts_count!: number;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}
