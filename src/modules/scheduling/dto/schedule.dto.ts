import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { IsUuidList } from '@/common/validation/uuid-list';
import { IsHexColor, IsIanaTimezone, IsUuidValue, ListOf } from '@/common/validation/validators';
import { QUESTION_TYPES, QuestionType, WeeklyHours } from '../schedule.entity';

const WEEKLY_HOURS_EXAMPLE = {
  mon: [
    ['09:00', '12:00'],
    ['13:00', '17:00'],
  ],
  tue: [['09:00', '17:00']],
};

export class CustomQuestionDto {
  @ApiProperty({ example: 'topic', description: 'unique in the schedule; answers are keyed by it' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(100)
  name!: string;

  @ApiProperty({ enum: QUESTION_TYPES, example: 'text' })
  @IsDefined()
  @IsIn(QUESTION_TYPES, { message: `$property must be one of: ${QUESTION_TYPES.join(', ')}` })
  type!: QuestionType;

  @ApiPropertyOptional({ example: true, default: false })
  @IsOptional()
  @IsBoolean()
  required?: boolean;

  @ApiPropertyOptional({ example: 'What would you like to discuss?', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string | null;
}

class ScheduleFields {
  @ApiPropertyOptional({ example: 'one_on_one', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  type?: string | null;

  @ApiPropertyOptional({ example: '#3366FF', nullable: true })
  @IsOptional()
  @IsHexColor()
  color?: string | null;

  @ApiPropertyOptional({
    example: WEEKLY_HOURS_EXAMPLE,
    description: 'weekday (mon to sun) to ["HH:MM", "HH:MM"] intervals, in the schedule time zone',
  })
  @IsOptional()
  @IsObject({ message: '$property must be an object keyed by weekday (mon to sun)' })
  weekly_hours?: WeeklyHours;

  @ApiPropertyOptional({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e80', nullable: true })
  @IsOptional()
  @IsUuidValue()
  availability_type_uuid?: string | null;

  @ApiPropertyOptional({
    type: [String],
    example: ['01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e90'],
    description: 'agent uuids',
  })
  @ValidateIf((_, v) => v !== undefined)
  @IsArray()
  @ArrayMaxSize(100)
  @IsUuidList()
  ai_agents?: string[];

  @ApiPropertyOptional({ type: [CustomQuestionDto] })
  @ValidateIf((_, v) => v !== undefined)
  @ListOf(CustomQuestionDto, 50)
  custom_questions?: CustomQuestionDto[];
}

export class CreateScheduleDto extends ScheduleFields {
  @ApiProperty({ example: 'Sales demos' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ example: 'Europe/Paris', default: 'UTC' })
  @IsOptional()
  @IsIanaTimezone()
  timezone?: string;
}

export class UpdateScheduleDto extends ScheduleFields {
  @ApiPropertyOptional({ example: 'Sales demos' })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ example: 'Europe/Paris' })
  @ValidateIf((_, v) => v !== undefined)
  @IsIanaTimezone()
  timezone?: string;
}

export class CustomQuestionResponse {
  @ApiProperty({ example: 'topic' }) name!: string;
  @ApiProperty({ enum: QUESTION_TYPES, example: 'text' }) type!: QuestionType;
  @ApiProperty({ example: true }) required!: boolean;
  @ApiProperty({ type: String, example: 'What would you like to discuss?', nullable: true }) description!:
    string | null;
}

export class ScheduleResponse {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e81' }) uuid!: string;
  @ApiProperty({ example: 7, description: 'small integer identity, as embedded in appointments' })
  id!: number;
  @ApiProperty({ example: 'Sales demos' }) name!: string;
  @ApiProperty({ type: String, example: 'one_on_one', nullable: true }) type!: string | null;
  @ApiProperty({ type: String, example: '#3366FF', nullable: true }) color!: string | null;
  @ApiProperty({ example: 'Europe/Paris' }) timezone!: string;
  @ApiProperty({ example: WEEKLY_HOURS_EXAMPLE }) weekly_hours!: WeeklyHours;
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e80', nullable: true })
  availability_type_uuid!: string | null;
  @ApiProperty({ type: [String], example: ['01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e90'] }) ai_agents!: string[];
  @ApiProperty({ type: [CustomQuestionResponse] }) custom_questions!: CustomQuestionResponse[];
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}
