import { fork } from 'node:child_process';
import autocannon from 'autocannon';
import { Client } from 'pg';
async function main() {
  const child = fork(__dirname + '/api-server.ts', [process.argv[2] ?? 'app'], {
    execArgv: [
      '--cpu-prof',
      '--cpu-prof-dir=/tmp/cpuprof2',
      '-r',
      'ts-node/register/transpile-only',
      '-r',
      'tsconfig-paths/register',
    ],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port: number = await new Promise((r) => child.once('message', (m: any) => r(m.port)));
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  const ids = (await db.query('SELECT id FROM agents LIMIT 2000')).rows.map((r: any) => r.id);
  await db.end();
  const run = async (d: number) =>
    autocannon({
      url: `https://127.0.0.1:${port}`,
      connections: 50,
      duration: d,
      headers: { host: 'bench.localhost', authorization: `Bearer ${process.env.TOKEN}` },
      requests: [
        {
          method: 'GET',
          setupRequest: (req: any) => ({
            ...req,
            path: (process.env.P ?? '/api/v1/agents/RANDOM').replace(
              'RANDOM',
              ids[Math.floor(Math.random() * ids.length)],
            ),
          }),
        },
      ],
      tlsOptions: { rejectUnauthorized: false },
    } as any);
  await run(3);
  console.log('MARK', Date.now());
  const r = await run(8);
  console.log(Math.round(r.requests.average), r.latency.p50, r.non2xx);
  child.send('stop');
  await new Promise((r2) => child.once('exit', r2));
}
void main();
