import { Body, Controller, Delete, Get, Inject, Param, Post, Put } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '@/config/app.config';
import { AppException } from '@/common/errors/app.exception';
import { ErrorCode } from '@/common/errors/error-codes';
import { InternalOnly } from '@/common/auth/internal-admin.guard';
import { ApiEnvelope, INTERNAL_TAG } from '@/common/http/api-response.decorator';
import { Envelope } from '@/common/http/envelope';
import { SlugParamPipe, UuidParamPipe } from '@/common/http/validation';
import { CreateTokenDto, CreateUserDto, CreateWorkspaceDto, SetPoliciesDto } from './dto/internal.dto';
import { PriceTableResponse, SetPricesDto } from './dto/prices.dto';
import { PricesService } from './prices.service';
import { CreatedTokenResponse, TokenResponse, UserResponse, WorkspaceResponse } from './dto/responses';
import { TokensService } from './tokens.service';
import { WorkspacesService } from './workspaces.service';

/** What the JSON body pipeline answers on every write route. */
const BODY_ERRORS: ErrorCode[] = ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE'];

/** Operators' module: workspaces, users, tokens, policies and price tables, behind ADMIN_API_KEY on any host. */
@ApiTags(INTERNAL_TAG)
@InternalOnly()
@Controller('internal/v1/workspaces')
export class InternalController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly tokens: TokensService,
    private readonly prices: PricesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private workspace(ws: Parameters<typeof WorkspaceResponse.of>[0]): WorkspaceResponse {
    return WorkspaceResponse.of(ws, this.config.serviceDomain, this.config.port);
  }

  @Post()
  @ApiOperation({ summary: 'Create a workspace (tenant) with default policies' })
  @ApiEnvelope(WorkspaceResponse, {
    status: 201,
    tenant: false,
    errors: [...BODY_ERRORS, 'VALIDATION_ERROR', 'INVALID_FORMAT', 'CONFLICT'],
  })
  async createWorkspace(@Body() dto: CreateWorkspaceDto): Promise<WorkspaceResponse> {
    return this.workspace(await this.workspaces.createWorkspace(dto.slug, dto.name));
  }

  @Get(':slug')
  @ApiOperation({ summary: 'Read a workspace' })
  @ApiEnvelope(WorkspaceResponse, { tenant: false, errors: ['INVALID_FORMAT', 'RESOURCE_NOT_FOUND'] })
  async getWorkspace(@Param('slug', SlugParamPipe) slug: string): Promise<WorkspaceResponse> {
    return this.workspace(await this.workspaces.getBySlug(slug));
  }

  @Post(':slug/users')
  @ApiOperation({ summary: 'Add a user to a workspace' })
  @ApiEnvelope(UserResponse, {
    status: 201,
    tenant: false,
    errors: [...BODY_ERRORS, 'VALIDATION_ERROR', 'INVALID_FORMAT', 'RESOURCE_NOT_FOUND', 'CONFLICT'],
  })
  async createUser(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() dto: CreateUserDto,
  ): Promise<UserResponse> {
    return UserResponse.of(await this.workspaces.createUser(slug, dto));
  }

  @Get(':slug/users')
  @ApiOperation({ summary: 'List the users of a workspace' })
  @ApiEnvelope(UserResponse, {
    isArray: true,
    tenant: false,
    errors: ['INVALID_FORMAT', 'RESOURCE_NOT_FOUND'],
  })
  async listUsers(@Param('slug', SlugParamPipe) slug: string): Promise<UserResponse[]> {
    return (await this.workspaces.listUsers(slug)).map((u) => UserResponse.of(u));
  }

  @Post(':slug/tokens')
  @ApiOperation({ summary: 'Create an API token; its value is in data.token, shown this once' })
  @ApiEnvelope(CreatedTokenResponse, {
    status: 201,
    tenant: false,
    errors: [
      ...BODY_ERRORS,
      'VALIDATION_ERROR',
      'INVALID_FORMAT',
      'INVALID_UUID',
      'FORBIDDEN',
      'RESOURCE_NOT_FOUND',
    ],
  })
  async createToken(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() dto: CreateTokenDto,
  ): Promise<Envelope<CreatedTokenResponse>> {
    const created = await this.tokens.create(slug, {
      name: dto.name,
      user: dto.user_uuid,
      scopes: dto.scopes,
    });
    return new Envelope(
      { ...TokenResponse.of(created.record), token: created.token },
      'Token created. Store its value now: it is not shown again.',
    );
  }

  @Get(':slug/tokens')
  @ApiOperation({ summary: 'List tokens (never their values)' })
  @ApiEnvelope(TokenResponse, {
    isArray: true,
    tenant: false,
    errors: ['INVALID_FORMAT', 'RESOURCE_NOT_FOUND'],
  })
  async listTokens(@Param('slug', SlugParamPipe) slug: string): Promise<TokenResponse[]> {
    return (await this.tokens.list(slug)).map((t) => TokenResponse.of(t));
  }

  @Delete(':slug/tokens/:uuid')
  @ApiOperation({ summary: 'Revoke a token; the next request with it is 401 on every replica' })
  @ApiEnvelope(TokenResponse, {
    tenant: false,
    errors: ['INVALID_FORMAT', 'RESOURCE_NOT_FOUND', 'INVALID_UUID'],
  })
  async revokeToken(
    @Param('slug', SlugParamPipe) slug: string,
    @Param('uuid', UuidParamPipe) uuid: string,
  ): Promise<Envelope<TokenResponse>> {
    return new Envelope(TokenResponse.of(await this.tokens.revoke(slug, uuid)), 'Token revoked');
  }

  @Put(':slug/policies')
  @ApiOperation({ summary: 'Set workspace policies' })
  @ApiEnvelope(WorkspaceResponse, {
    tenant: false,
    errors: [...BODY_ERRORS, 'VALIDATION_ERROR', 'INVALID_FORMAT', 'RESOURCE_NOT_FOUND'],
  })
  async setPolicies(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() dto: SetPoliciesDto,
  ): Promise<WorkspaceResponse> {
    return this.workspace(await this.workspaces.setPolicies(slug, dto));
  }

  @Get(':slug/prices')
  @ApiOperation({ summary: "Read a workspace's price table (404 when none is set)" })
  @ApiEnvelope(PriceTableResponse, { tenant: false, errors: ['INVALID_FORMAT', 'RESOURCE_NOT_FOUND'] })
  async getPrices(@Param('slug', SlugParamPipe) slug: string): Promise<PriceTableResponse> {
    return PriceTableResponse.of(await this.prices.get(slug));
  }

  @Put(':slug/prices')
  @ApiOperation({
    summary: "Set a workspace's price table",
    description:
      'Replaces the whole table: `currency` (ISO 4217) is required, each price optional (0 when left out). From ' +
      'then on usage answers carry `cost` in that currency, computed from the current table; without a table ' +
      '`cost` is null.',
  })
  @ApiEnvelope(PriceTableResponse, {
    tenant: false,
    errors: [...BODY_ERRORS, 'VALIDATION_ERROR', 'INVALID_FORMAT', 'RESOURCE_NOT_FOUND'],
  })
  async setPrices(
    @Param('slug', SlugParamPipe) slug: string,
    @Body() dto: SetPricesDto,
  ): Promise<Envelope<PriceTableResponse>> {
    return new Envelope(PriceTableResponse.of(await this.prices.set(slug, dto)), 'Price table set');
  }

  @Delete(':slug/prices')
  @ApiOperation({ summary: "Remove a workspace's price table: every cost is null again" })
  @ApiEnvelope(null, { tenant: false, errors: ['INVALID_FORMAT', 'RESOURCE_NOT_FOUND'] })
  async clearPrices(@Param('slug', SlugParamPipe) slug: string): Promise<Envelope<null>> {
    if (!(await this.prices.clear(slug))) throw AppException.notFound('Price table');
    return new Envelope(null, 'Price table removed');
  }
}
