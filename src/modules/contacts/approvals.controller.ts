import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WorkspaceId } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { Page } from '@/common/http/pagination';
import { UuidParamPipe } from '@/common/http/validation';
import { ApprovalsService } from './approvals.service';
import {
  ApprovalResponse,
  ApproveApprovalDto,
  ListApprovalsQuery,
  RejectApprovalDto,
} from './dto/approval.dto';

/** Values memorize proposed after a session, waiting for a person's decision. */
@ApiTags('Contacts')
@Controller('api/v1/contacts/approvals')
export class ApprovalsController {
  constructor(private readonly approvals: ApprovalsService) {}

  @Get()
  @ApiOperation({
    summary: 'List contact approvals, newest first',
    description:
      'Made by memorize after a session when the field’s analyzer says `manual_approval`, or ' +
      '`ask_approval_if_existing` and another value is stored.',
  })
  @ApiEnvelope(ApprovalResponse, { paginated: true, errors: ['INVALID_FORMAT', 'INVALID_UUID'] })
  list(@WorkspaceId() ws: WorkspaceId, @Query() q: ListApprovalsQuery): Promise<Page<ApprovalResponse>> {
    return this.approvals.list(ws, q);
  }

  @Get(':uuid')
  @ApiOperation({ summary: 'Read a contact approval' })
  @ApiEnvelope(ApprovalResponse, { errors: ['INVALID_UUID'] })
  get(@WorkspaceId() ws: WorkspaceId, @Param('uuid', UuidParamPipe) uuid: string): Promise<ApprovalResponse> {
    return this.approvals.get(ws, uuid);
  }

  @Post(':uuid/approve')
  @ApiOperation({
    summary: 'Approve: write the proposed value, or the edited `value`, to the contact',
    description:
      'The value goes through the checks of `PUT /contacts/{uuid}`; one they refuse is 422 on `value` and nothing ' +
      'changes. Only a `Pending` approval moves; another is 409.',
  })
  @ApiBody({
    type: ApproveApprovalDto,
    examples: {
      proposed: { summary: 'the proposed value', value: {} },
      edited: { summary: 'an edited value', value: { value: 'ada@newmail.example' } },
    },
  })
  @ApiEnvelope(ApprovalResponse, {
    errors: ['BAD_REQUEST', 'VALIDATION_ERROR', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  async approve(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: ApproveApprovalDto,
  ): Promise<Envelope<ApprovalResponse>> {
    return new Envelope(await this.approvals.approve(ws, uuid, dto), 'Approval approved');
  }

  @Post(':uuid/reject')
  @ApiOperation({
    summary: 'Reject: the contact keeps its value',
    description: 'Only a `Pending` approval moves; another is 409.',
  })
  @ApiBody({
    type: RejectApprovalDto,
    examples: { reason: { value: { reason: 'The customer was joking' } }, none: { value: {} } },
  })
  @ApiEnvelope(ApprovalResponse, {
    errors: ['BAD_REQUEST', 'INVALID_FORMAT', 'INVALID_UUID', 'CONFLICT'],
  })
  async reject(
    @WorkspaceId() ws: WorkspaceId,
    @Param('uuid', UuidParamPipe) uuid: string,
    @Body() dto: RejectApprovalDto,
  ): Promise<Envelope<ApprovalResponse>> {
    return new Envelope(await this.approvals.reject(ws, uuid, dto), 'Approval rejected');
  }
}
