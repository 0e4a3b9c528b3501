import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsNotEmpty, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';

export class CreateAvailabilityTypeDto {
  @ApiProperty({ example: '30-minute call' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name!: string;

  @ApiProperty({ example: 30, minimum: 1, maximum: 1440 })
  @IsDefined()
  @IsInt()
  @Min(1)
  @Max(1440)
  duration_minutes!: number;
}

export class UpdateAvailabilityTypeDto {
  @ApiPropertyOptional({ example: '45-minute call' })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ example: 45, minimum: 1, maximum: 1440 })
  @ValidateIf((_, v) => v !== undefined)
  @IsInt()
  @Min(1)
  @Max(1440)
  duration_minutes?: number;
}

export class AvailabilityTypeResponse {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e80' }) uuid!: string;
  @ApiProperty({ example: '30-minute call' }) name!: string;
  @ApiProperty({ example: 30 }) duration_minutes!: number;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}
