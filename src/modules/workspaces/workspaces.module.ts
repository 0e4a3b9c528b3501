import { TenantResolver, TokenAuthenticator } from '@/common/auth/tenancy';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiToken } from './api-token.entity';
import { InternalController } from './internal.controller';
import { MeController } from './me.controller';
import { PricesService } from './prices.service';
import { TokenCache } from './token-cache';
import { TokensService } from './tokens.service';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';
import { WorkspacePrices } from './workspace-prices.entity';
import { WorkspacePricesRepository } from './workspace-prices.repository';
import { ApiTokensRepository, UsersRepository, WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [TypeOrmModule.forFeature([Workspace, User, ApiToken, WorkspacePrices])],
  controllers: [InternalController, MeController],
  providers: [
    WorkspacesRepository,
    UsersRepository,
    ApiTokensRepository,
    WorkspacesService,
    TokensService,
    TokenCache,
    WorkspacePricesRepository,
    PricesService,
    // The ports common/auth reads the tenant and the token through.
    { provide: TenantResolver, useExisting: WorkspacesService },
    { provide: TokenAuthenticator, useExisting: TokensService },
  ],
  exports: [WorkspacesService, TokensService, PricesService, TenantResolver, TokenAuthenticator],
})
export class WorkspacesModule {}
