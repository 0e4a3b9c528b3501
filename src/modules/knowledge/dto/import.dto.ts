import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsOutboundUrl, IsUuidValue } from '@/common/validation/validators';

/** The largest file an import accepts. */
export const MAX_UPLOAD_BYTES = 128 * 1024 * 1024;

export const MAX_CRAWL_DEPTH = 3;
export const MAX_PASTE_CHARS = 900_000;

export class CopyPasteImportDto {
  @ApiProperty({ example: 'Opening hours' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiProperty({ example: 'We are open Monday to Friday, 9:00 to 17:00.' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_PASTE_CHARS)
  data!: string;

  @ApiPropertyOptional({ example: 'Pasted from the website footer' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;
}

export class WebsiteImportDto {
  @ApiProperty({ example: 'Help centre' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiProperty({ example: 'https://help.example.com/' })
  @IsDefined()
  @IsNotEmpty()
  @IsOutboundUrl({ allowHttp: true })
  url!: string;

  @ApiPropertyOptional({ example: 'Public help pages' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: MAX_CRAWL_DEPTH, default: 1, example: 1 })
  @IsOptional()
  @IsInt({ message: 'depth must be an integer' })
  @Min(0)
  @Max(MAX_CRAWL_DEPTH)
  @Type(() => Number)
  depth?: number;
}

/** The text fields of the multipart file import (the file itself is checked apart). */
export class FileImportDto {
  @ApiProperty({ example: 'Product catalogue' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ example: 'Exported from the shop' })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string;
}

export class FileImportSchema extends FileImportDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    maxLength: MAX_UPLOAD_BYTES,
    description: 'CSV, Excel, JSON, XML, PDF, text or audio; up to 128 MB',
  })
  file!: unknown;
}

export class AssignDto {
  @ApiProperty({ example: '01936f0e-7a8b-7c3d-9e2f-1a2b3c4d5e6f' })
  @IsDefined()
  @IsNotEmpty()
  @IsUuidValue()
  agent_uuid!: string;
}

export class SearchQuery {
  @ApiProperty({ example: 'opening hours' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(500)
  q!: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 50, default: 5, example: 5 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1)
  @Max(50)
  limit: number = 5;
}
