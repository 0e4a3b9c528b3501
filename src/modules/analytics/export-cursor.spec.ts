import { workspaceIdOf } from '@/common/auth/workspace-id';
import { ExportCursorCodec, ExportScope } from './export-cursor';

const SECRET = 'a'.repeat(64);
const scope: ExportScope = {
  workspaceId: workspaceIdOf('019a9a40-0000-7000-8000-000000000001'),
  channel: 'whatsapp',
  agentUuid: null,
  from: Date.UTC(2026, 10, 1),
  to: null,
};
const position = {
  horizon: Date.UTC(2026, 10, 22, 6),
  createdAt: Date.UTC(2026, 10, 21, 9, 15, 2, 123),
  id: '019a9a60-1d2e-7c3b-8a4f-5e6d7c8b9a01',
};

describe('ExportCursorCodec', () => {
  const codec = new ExportCursorCodec(SECRET);

  it('round-trips a position as an opaque url-safe string', () => {
    const cursor = codec.encode(scope, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(codec.decode(scope, cursor)).toEqual(position);
  });

  it('round-trips a position before the first row', () => {
    const cursor = codec.encode(scope, { horizon: position.horizon });
    expect(codec.decode(scope, cursor)).toEqual({ horizon: position.horizon });
  });

  it('refuses a cursor with any byte changed', () => {
    const raw = Buffer.from(codec.encode(scope, position), 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const tampered = Buffer.from(raw);
      tampered[i] ^= 0x01;
      expect(codec.decode(scope, tampered.toString('base64url'))).toBeNull();
    }
  });

  it('refuses a cursor of another workspace or other filters', () => {
    const cursor = codec.encode(scope, position);
    const others: Partial<ExportScope>[] = [
      { workspaceId: workspaceIdOf('019a9a40-0000-7000-8000-000000000002') },
      { channel: 'sms' },
      { channel: null },
      { agentUuid: '019a9a53-0c4e-7a51-9a3e-2f4c8b7d6e10' },
      { from: null },
      { to: Date.UTC(2026, 10, 30) },
    ];
    for (const other of others) expect(codec.decode({ ...scope, ...other }, cursor)).toBeNull();
  });

  it('refuses a cursor signed with another key', () => {
    const foreign = new ExportCursorCodec('b'.repeat(64)).encode(scope, position);
    expect(codec.decode(scope, foreign)).toBeNull();
  });

  it('refuses garbage, truncation, padding and extra characters without throwing', () => {
    const cursor = codec.encode(scope, position);
    for (const bad of [
      '',
      'x',
      'not a cursor',
      '%%%',
      cursor.slice(0, -1),
      `${cursor}A`,
      `${cursor}=`,
      cursor.replace(/./, '.'),
      'A'.repeat(500),
      Buffer.from('{"horizon":1}').toString('base64url'),
    ])
      expect(codec.decode(scope, bad)).toBeNull();
  });
});
