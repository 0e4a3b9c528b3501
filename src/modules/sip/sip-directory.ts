import { Injectable, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBox, SecretBoxModule } from '@/common/crypto/secret-box';
import type { SipTarget, TrunkRoute } from '@/providers/telephony/telephony.port';
import type { WorkspaceId } from '@/common/auth/workspace-id';
import { PbxConnector, SipTrunkConnection, SipTrunkNumber } from './sip.entities';
import {
  PbxConnectorsRepository,
  SipTrunkConnectionsRepository,
  SipTrunkNumbersRepository,
} from './sip.repositories';

/** `sip:<user>@<host>:<port>` with the transport when it is not UDP (Twilio's `<Sip>` takes `;transport=`). */
export function sipUri(user: string, host: string, port: number, transport: string): string {
  const h = host.includes(':') ? `[${host}]` : host;
  return `sip:${user}@${h}:${port}${transport === 'udp' ? '' : `;transport=${transport}`}`;
}

/**
 * What calls need from the SIP side, with credentials opened: the trunk carrying a caller number, and the SIP
 * address and credentials of an extension on the agent's PBX connector. The calls module imports only this.
 */
@Injectable()
export class SipDirectory {
  constructor(
    private readonly connectors: PbxConnectorsRepository,
    private readonly trunks: SipTrunkConnectionsRepository,
    private readonly trunkNumbers: SipTrunkNumbersRepository,
    private readonly secrets: SecretBox,
  ) {}

  /** The trunk an outbound call from this number goes through, or null (the provider dials the PSTN). */
  async trunkRoute(workspaceId: WorkspaceId, phoneNumberId: string): Promise<TrunkRoute | null> {
    const connectionId = await this.trunkNumbers.connectionIdOf(workspaceId, phoneNumberId);
    const trunk = connectionId ? await this.trunks.findById(workspaceId, connectionId) : null;
    if (!trunk || trunk.status !== 'active') return null;
    return {
      gateway: trunk.gateway,
      secondaryGateway: trunk.secondaryGateway,
      username: trunk.username,
      password: trunk.passwordCiphertext ? this.secrets.decrypt(trunk.passwordCiphertext) : null,
    };
  }

  /**
   * An extension on the PBX connector of the call's agent (else of the number the call is on): its SIP address
   * and the digest credentials (`auth_username`/`auth_password`, else the extension's own). Null: no connector.
   */
  async extensionTarget(
    workspaceId: WorkspaceId,
    agentId: string | null,
    number: string,
    extension: string,
  ): Promise<SipTarget | null> {
    const c = await this.connectors.forExtension(workspaceId, agentId, number);
    if (!c) return null;
    const open = (sealed: string | null) => (sealed ? this.secrets.decrypt(sealed) : null);
    const user = extension.replace(/[^0-9A-Za-z*#+._-]/g, '');
    return {
      uri: sipUri(user, c.registrarServer, c.port, c.connectionType),
      username: c.authUsername ?? c.usernameExtension,
      password: c.authUsername ? open(c.authPasswordCiphertext) : open(c.pbxPasswordCiphertext),
    };
  }
}

/** The SIP tables and SipDirectory, without routes: imported by the calls module and by the SIP module. */
@Module({
  imports: [TypeOrmModule.forFeature([PbxConnector, SipTrunkConnection, SipTrunkNumber]), SecretBoxModule],
  providers: [
    PbxConnectorsRepository,
    SipTrunkConnectionsRepository,
    SipTrunkNumbersRepository,
    SipDirectory,
  ],
  exports: [
    PbxConnectorsRepository,
    SipTrunkConnectionsRepository,
    SipTrunkNumbersRepository,
    SipDirectory,
    SecretBoxModule,
  ],
})
export class SipDirectoryModule {}
