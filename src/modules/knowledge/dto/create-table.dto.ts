import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { IsObjectEach } from '@/common/validation/validators';
import { COLUMN_TYPES, ColumnType } from '../column-types';

export const MAX_COLUMNS = 100;

export class ColumnDto {
  @ApiProperty({ example: 'price', description: '1 to 63 characters, unique in the table' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(63)
  // eslint-disable-next-line no-control-regex -- names with control characters are refused
  @Matches(/^(?!__proto__$)[^\u0000-\u001f]+$/, { message: 'name must be a printable column name' })
  name!: string;

  @ApiProperty({ enum: COLUMN_TYPES, example: 'number' })
  @IsDefined()
  @IsIn(COLUMN_TYPES as unknown as string[], { message: `type must be one of ${COLUMN_TYPES.join(', ')}` })
  type!: ColumnType;
}

export class CreateTableDto {
  @ApiProperty({ example: 'Price list' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ example: 'Prices of every product, refreshed monthly' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiProperty({
    type: [ColumnDto],
    example: [
      { name: 'product', type: 'text' },
      { name: 'price', type: 'number' },
    ],
  })
  @IsDefined()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_COLUMNS)
  @ValidateNested({ each: true })
  @IsObjectEach()
  @Type(() => ColumnDto)
  columns!: ColumnDto[];
}
