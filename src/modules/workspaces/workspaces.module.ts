import { TenantResolver, TokenAuthenticator } from '@/common/auth/tenancy';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiToken } from './api-token.entity';
import { InternalController } from './internal.controller';
import { MeController } from './me.controller';
import { TokenCache } from './token-cache';
import { TokensService } from './tokens.service';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';
import { ApiTokensRepository, UsersRepository, WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [TypeOrmModule.forFeature([Workspace, User, ApiToken])],
  controllers: [InternalController, MeController],
  providers: [
    WorkspacesRepository,
    UsersRepository,
    ApiTokensRepository,
    WorkspacesService,
    TokensService,
    TokenCache,
    // The ports common/auth reads the tenant and the token through.
    { provide: TenantResolver, useExisting: WorkspacesService },
    { provide: TokenAuthenticator, useExisting: TokensService },
  ],
  exports: [WorkspacesService, TokensService, TenantResolver, TokenAuthenticator],
})
export class WorkspacesModule {}
