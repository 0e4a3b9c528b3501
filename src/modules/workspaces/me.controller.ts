import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext, CurrentAuth, CurrentWorkspace, TenantContext } from '@/common/auth/request-context';
import { ApiEnvelope } from '@/common/http/api-response.decorator';
import { MeResponse } from './dto/responses';

@ApiTags('Workspace')
@Controller('api/v1/me')
export class MeController {
  @Get()
  @ApiOperation({ summary: 'The workspace of the base address and the calling token' })
  @ApiEnvelope(MeResponse)
  me(@CurrentWorkspace() ws: TenantContext, @CurrentAuth() auth: AuthContext): MeResponse {
    return {
      workspace: { uuid: ws.id, slug: ws.slug, name: ws.name },
      token: { uuid: auth.tokenId, name: auth.tokenName, scopes: auth.scopes },
    };
  }
}
