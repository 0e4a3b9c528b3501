import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { PageQuery } from '@/common/http/pagination';
import { IsUuidValue } from '@/common/validation/validators';
import { APPOINTMENT_STATUSES, AppointmentStatus } from '../appointment.entity';
import { IsDateTime, IsDay } from './date-time';

const STATUS_MESSAGE = `$property must be one of: ${APPOINTMENT_STATUSES.join(', ')}`;

class AppointmentFields {
  @ApiPropertyOptional({ example: 'Walk through the pro plan', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(10000)
  description?: string | null;

  @ApiPropertyOptional({ example: 'Prefers video', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(10000)
  notes?: string | null;

  @ApiPropertyOptional({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e71', nullable: true })
  @IsOptional()
  @IsUuidValue()
  contact_uuid?: string | null;

  @ApiPropertyOptional({
    example: { topic: 'pricing' },
    description: 'answers keyed by the schedule question names',
  })
  @IsOptional()
  @IsObject({ message: '$property must be an object' })
  custom_answers?: Record<string, unknown>;
}

export class CreateAppointmentDto extends AppointmentFields {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e81' })
  @IsDefined()
  @IsNotEmpty()
  @IsUuidValue()
  schedule_uuid!: string;

  @ApiProperty({ example: 'Product demo' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(300)
  title!: string;

  @ApiPropertyOptional({ example: '2026-12-01T09:00:00.000Z' })
  @IsOptional()
  @IsDateTime()
  start_time?: string;

  @ApiPropertyOptional({
    example: '2026-12-01T09:30:00.000Z',
    description: 'after start_time; defaults to start_time plus the schedule availability-type duration',
  })
  @IsOptional()
  @IsDateTime()
  end_time?: string;

  @ApiPropertyOptional({ enum: APPOINTMENT_STATUSES, default: 'pending' })
  @IsOptional()
  @IsIn(APPOINTMENT_STATUSES, { message: STATUS_MESSAGE })
  status?: AppointmentStatus;
}

export class UpdateAppointmentDto extends AppointmentFields {
  @ApiPropertyOptional({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e81' })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsUuidValue()
  schedule_uuid?: string;

  @ApiPropertyOptional({ example: 'Product demo (rescheduled)' })
  @ValidateIf((_, v) => v !== undefined)
  @IsNotEmpty()
  @IsString()
  @MaxLength(300)
  title?: string;

  @ApiPropertyOptional({ example: '2026-12-02T09:00:00.000Z' })
  @ValidateIf((_, v) => v !== undefined)
  @IsDateTime()
  start_time?: string;

  @ApiPropertyOptional({ example: '2026-12-02T09:30:00.000Z' })
  @ValidateIf((_, v) => v !== undefined)
  @IsDateTime()
  end_time?: string;

  @ApiPropertyOptional({ enum: APPOINTMENT_STATUSES })
  @ValidateIf((_, v) => v !== undefined)
  @IsIn(APPOINTMENT_STATUSES, { message: STATUS_MESSAGE })
  status?: AppointmentStatus;
}

export class AppointmentStatusDto {
  @ApiProperty({ enum: APPOINTMENT_STATUSES, example: 'approved' })
  @IsDefined()
  @IsNotEmpty()
  @IsIn(APPOINTMENT_STATUSES, { message: STATUS_MESSAGE })
  status!: AppointmentStatus;
}

export class ListAppointmentsQuery extends PageQuery {
  @ApiPropertyOptional() @IsOptional() @IsUuidValue() schedule_uuid?: string;
  @ApiPropertyOptional() @IsOptional() @IsUuidValue() contact_uuid?: string;

  @ApiPropertyOptional({ enum: APPOINTMENT_STATUSES })
  @IsOptional()
  @IsIn(APPOINTMENT_STATUSES, { message: STATUS_MESSAGE })
  status?: AppointmentStatus;

  @ApiPropertyOptional({ example: '2026-12-01', description: 'start_time on or after this day (UTC)' })
  @IsOptional()
  @IsDay()
  start_date?: string;

  @ApiPropertyOptional({
    example: '2026-12-31',
    description: 'start_time on or before this day (UTC, inclusive)',
  })
  @IsOptional()
  @IsDay()
  end_date?: string;
}

export class ScheduleRef {
  @ApiProperty({ example: 7 }) id!: number;
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e81' }) uuid!: string;
  @ApiProperty({ example: 'Sales demos' }) name!: string;
}

export class ContactRef {
  @ApiProperty({ example: 42 }) id!: number;
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e71' }) uuid!: string;
  @ApiProperty({ type: String, example: 'Ada', nullable: true }) name!: string | null;
  @ApiProperty({ type: String, example: 'Lovelace', nullable: true }) surname!: string | null;
  @ApiProperty({ type: String, example: 'ada@example.com', nullable: true }) email!: string | null;
  @ApiProperty({ type: String, example: '+447911123456', nullable: true }) phone_number!: string | null;
}

export class AppointmentResponse {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e82' }) uuid!: string;
  @ApiProperty({ example: 'Product demo' }) title!: string;
  @ApiProperty({ type: String, example: 'Walk through the pro plan', nullable: true }) description!:
    string | null;
  @ApiProperty({ type: String, example: 'Prefers video', nullable: true }) notes!: string | null;
  @ApiProperty({ type: String, example: '2026-12-01T09:00:00.000Z', nullable: true }) start_time!:
    string | null;
  @ApiProperty({ type: String, example: '2026-12-01T09:30:00.000Z', nullable: true }) end_time!:
    string | null;
  @ApiProperty({ enum: APPOINTMENT_STATUSES, example: 'approved' }) status!: AppointmentStatus;
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e81' }) schedule_uuid!: string;
  @ApiProperty({ type: ScheduleRef }) schedule!: ScheduleRef;
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e71', nullable: true }) contact_uuid!:
    string | null;
  @ApiProperty({ type: ContactRef, nullable: true }) contact!: ContactRef | null;
  @ApiProperty({ example: { topic: 'pricing' } }) custom_answers!: Record<string, unknown>;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}
