import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsDefined,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { IsHexColor } from '@/common/validation/validators';

export class CreateTagDto {
  @ApiProperty({ example: 'VIP', description: 'unique in the workspace (case-insensitive)' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(100)
  name!: string;

  @ApiPropertyOptional({ example: 'Customers with a yearly plan', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ example: '#FF8800', description: '#RRGGBB', nullable: true })
  @IsOptional()
  @IsHexColor()
  color?: string | null;

  @ApiPropertyOptional({ example: true, default: true })
  @IsOptional()
  @IsBoolean()
  is_active?: boolean;
}

/** Only the keys sent change; the tag keeps its contacts. */
export class UpdateTagDto {
  @ApiPropertyOptional({ example: 'VIP' })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsString()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ example: 'Customers with a yearly plan', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ example: '#00AA55', nullable: true })
  @IsOptional()
  @IsHexColor()
  color?: string | null;

  @ApiPropertyOptional({ example: false })
  @ValidateIf((_, v) => v !== undefined)
  @IsBoolean()
  is_active?: boolean;
}

export class TagResponse {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e6f' }) uuid!: string;
  @ApiProperty({ example: 'VIP' }) name!: string;
  @ApiProperty({ type: String, example: 'Customers with a yearly plan', nullable: true }) description!:
    string | null;
  @ApiProperty({ type: String, example: '#FF8800', nullable: true }) color!: string | null;
  @ApiProperty({ example: true }) is_active!: boolean;
  @ApiProperty({ example: 12, description: 'contacts carrying the tag' }) contacts_count!: number;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}
