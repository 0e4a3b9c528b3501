import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsEmail,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { IsUuidValue } from '@/common/validation/validators';
import { REQUEST_STATUSES, RequestStatus } from '../appointment-request.entity';
import { AppointmentResponse, ContactRef, ScheduleRef } from './appointment.dto';
import { IsDateTime, IsDay } from './date-time';

export class CreateAppointmentRequestDto {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e81' })
  @IsDefined()
  @IsNotEmpty()
  @IsUuidValue()
  schedule_uuid!: string;

  @ApiProperty({ example: 'Intro call' })
  @IsDefined()
  @IsNotEmpty()
  @IsString()
  @MaxLength(300)
  title!: string;

  @ApiProperty({ example: '2026-12-01T09:00:00.000Z', description: 'in the future' })
  @IsDefined()
  @IsNotEmpty()
  @IsDateTime()
  start_time!: string;

  @ApiPropertyOptional({
    example: '2026-12-01T09:30:00.000Z',
    description: 'after start_time; defaults to start_time plus the schedule availability-type duration',
  })
  @IsOptional()
  @IsDateTime()
  end_time?: string;

  @ApiPropertyOptional({
    example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e71',
    description: 'or contact_name and contact_email',
  })
  @IsOptional()
  @IsUuidValue()
  contact_uuid?: string;

  @ApiPropertyOptional({ example: 'Grace Hopper', description: 'with contact_email, when no contact_uuid' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  contact_name?: string;

  @ApiPropertyOptional({
    example: 'grace@example.com',
    description: 'the contact with this email, created when there is none',
  })
  @IsOptional()
  @IsEmail({}, { message: '$property must be an email address' })
  @MaxLength(320)
  contact_email?: string;

  @ApiPropertyOptional({ example: 'Wants a quote' })
  @IsOptional()
  @IsString()
  @MaxLength(10000)
  description?: string;

  @ApiPropertyOptional({ example: 'Called twice' })
  @IsOptional()
  @IsString()
  @MaxLength(10000)
  notes?: string;

  @ApiPropertyOptional({ example: { topic: 'pricing' } })
  @IsOptional()
  @IsObject({ message: '$property must be an object' })
  custom_answers?: Record<string, unknown>;
}

export class ApproveRequestDto {
  @ApiPropertyOptional({ example: 'Confirmed by phone' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  approval_note?: string;
}

export class RejectRequestDto {
  @ApiPropertyOptional({ example: 'No availability that week' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  rejection_reason?: string;
}

export class ListAppointmentRequestsQuery {
  @ApiPropertyOptional({ enum: REQUEST_STATUSES })
  @IsOptional()
  @IsIn(REQUEST_STATUSES, { message: `$property must be one of: ${REQUEST_STATUSES.join(', ')}` })
  status?: RequestStatus;

  @ApiPropertyOptional() @IsOptional() @IsUuidValue() schedule_uuid?: string;

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

export class AppointmentRequestResponse {
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e83' }) uuid!: string;
  @ApiProperty({ example: 'Intro call' }) title!: string;
  @ApiProperty({ type: String, example: 'Wants a quote', nullable: true }) description!: string | null;
  @ApiProperty({ type: String, example: 'Called twice', nullable: true }) notes!: string | null;
  @ApiProperty({ example: '2026-12-01T09:00:00.000Z' }) start_time!: string;
  @ApiProperty({ example: '2026-12-01T09:30:00.000Z' }) end_time!: string;
  @ApiProperty({ enum: REQUEST_STATUSES, example: 'pending' }) status!: RequestStatus;
  @ApiProperty({ type: String, example: null, nullable: true }) approval_note!: string | null;
  @ApiProperty({ type: String, example: null, nullable: true }) rejection_reason!: string | null;
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e81' }) schedule_uuid!: string;
  @ApiProperty({ type: ScheduleRef }) schedule!: ScheduleRef;
  @ApiProperty({ example: '01935f4e-5b7a-7c3d-9e2f-1a2b3c4d5e71', nullable: true }) contact_uuid!:
    string | null;
  @ApiProperty({ type: ContactRef, nullable: true }) contact!: ContactRef | null;
  @ApiProperty({ example: {} }) custom_answers!: Record<string, unknown>;
  @ApiProperty({
    type: AppointmentResponse,
    nullable: true,
    description: 'set once the request is converted',
  })
  appointment!: AppointmentResponse | null;
  @ApiProperty({ type: String, example: null, nullable: true }) decided_at!: string | null;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T04:17:55.123Z' }) updated_at!: string;
}
