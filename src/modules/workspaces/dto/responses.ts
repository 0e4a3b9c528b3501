import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TOKEN_SCOPES, type ApiToken } from '../api-token.entity';
import type { User } from '../user.entity';
import type { Workspace, WorkspacePolicies } from '../workspace.entity';

export class WorkspaceResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'acme' }) slug!: string;
  @ApiProperty({ example: 'Acme Inc.' }) name!: string;
  @ApiProperty({ example: { ANALYTICS_MESSAGES_EXPORT: 'raw' } }) policies!: WorkspacePolicies;
  @ApiProperty({ example: 'https://acme.localhost:3000' }) base_url!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty() updated_at!: string;

  static of(ws: Workspace, serviceDomain: string, port: number): WorkspaceResponse {
    const portPart = port === 443 ? '' : `:${port}`;
    return {
      uuid: ws.id,
      slug: ws.slug,
      name: ws.name,
      policies: ws.policies,
      base_url: `https://${ws.slug}.${serviceDomain}${portPart}`,
      created_at: ws.createdAt.toISOString(),
      updated_at: ws.updatedAt.toISOString(),
    };
  }
}

export class UserResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'dev@acme.test' }) email!: string;
  @ApiProperty({ example: 'Dana Developer' }) name!: string;
  @ApiProperty({ example: 'developer' }) role!: string;
  @ApiProperty() created_at!: string;

  static of(u: User): UserResponse {
    return { uuid: u.id, email: u.email, name: u.name, role: u.role, created_at: u.createdAt.toISOString() };
  }
}

export class TokenResponse {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ example: 'production backend' }) name!: string;
  @ApiProperty({ example: ['read', 'write'] }) scopes!: string[];
  @ApiProperty({ format: 'uuid', description: 'the user who created the token' }) created_by!: string;
  @ApiProperty({ example: 'x9Qz', description: 'the last four characters of the value' }) last_four!: string;
  @ApiProperty() created_at!: string;
  @ApiProperty({ nullable: true, type: String }) last_used_at!: string | null;
  @ApiProperty({ nullable: true, type: String }) revoked_at!: string | null;

  static of(t: ApiToken): TokenResponse {
    return {
      uuid: t.id,
      name: t.name,
      scopes: t.scopes,
      created_by: t.userId,
      last_four: t.lastFour,
      created_at: t.createdAt.toISOString(),
      last_used_at: t.lastUsedAt?.toISOString() ?? null,
      revoked_at: t.revokedAt?.toISOString() ?? null,
    };
  }
}

export class CreatedTokenResponse extends TokenResponse {
  @ApiPropertyOptional({
    example: 'cap_4fQ0dJ8mS2kPzL7aVb1XyC9eRt3uWn6h0Gk2Aa',
    description: 'shown this once',
  })
  token!: string;
}

export class MeWorkspace {
  @ApiProperty({ format: 'uuid', example: '0190f3a2-7c1e-7a3b-8c4d-1234567890ab' }) uuid!: string;
  @ApiProperty({ example: 'acme', maxLength: 63, pattern: '^[a-z0-9](-?[a-z0-9])*$' }) slug!: string;
  @ApiProperty({ example: 'Acme Inc.' }) name!: string;
}

export class MeToken {
  @ApiProperty({ format: 'uuid', example: '0190f3a2-7c1e-7a3b-8c4d-1234567890ac' }) uuid!: string;
  @ApiProperty({ example: 'production backend' }) name!: string;
  @ApiProperty({ enum: TOKEN_SCOPES, isArray: true, example: ['read', 'write'] }) scopes!: string[];
}

export class MeResponse {
  @ApiProperty({ type: MeWorkspace }) workspace!: MeWorkspace;
  @ApiProperty({ type: MeToken }) token!: MeToken;
}
