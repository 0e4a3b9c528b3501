import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsDefined, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ListOf } from '@/common/validation/validators';
import { TEXT } from './collection-fields';

// Guidelines and notes.
export class NoteDto {
  @ApiProperty({ example: 'Always greet the customer by name.', maxLength: TEXT })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(TEXT)
  content!: string;

  @ApiPropertyOptional({ example: 1, description: 'default: after the last one' })
  @IsOptional()
  @IsInt({ message: 'order must be an integer' })
  @Min(0)
  @Max(1_000_000)
  order?: number;
}
export class UpdateNoteDto extends PartialType(NoteDto) {}
export class ReplaceGuidelinesDto {
  @ApiProperty({ type: [NoteDto] })
  @IsDefined()
  @ListOf(NoteDto, 500)
  guidelines!: NoteDto[];
}
export class ReplaceNotesDto {
  @ApiProperty({ type: [NoteDto] })
  @IsDefined()
  @ListOf(NoteDto, 500)
  notes!: NoteDto[];
}

export class TrainingDto {
  @ApiProperty({ example: 'How much is the premium plan?', maxLength: TEXT })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(TEXT)
  content!: string;

  @ApiPropertyOptional({ example: 'pricing', maxLength: 200, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  intent?: string | null;

  @ApiPropertyOptional({ example: 'The premium plan is 49 EUR a month.', maxLength: TEXT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  response?: string | null;
}
export class UpdateTrainingDto extends PartialType(TrainingDto) {}
export class ReplaceTrainingDto {
  @ApiProperty({ type: [TrainingDto] })
  @IsDefined()
  @ListOf(TrainingDto, 1000)
  training!: TrainingDto[];
}
