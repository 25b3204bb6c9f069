/*
 * The database probe: start-up with and without database_url, the probe's own time on a
 * ready server, and how long after a late server comes up the gate passes, at the default interval.
 */
import { connect, createServer } from 'node:net'
import pg from 'pg'
import { demoWorld } from '../../../__tests__/support/neon/scenarios.ts'
import { startPostgres } from '../../../__tests__/support/postgres/server.ts'
import { median, type Row, run, withServer } from '../common.ts'
import { PROJECT } from '../../../__tests__/support/neon/ids.ts'

export async function database(row: Row): Promise<void> {
  const postgres = await startPostgres()
  const admin = new pg.Client({ connectionString: postgres.adminUrl(), ssl: false })
  await admin.connect()
  await admin.query(`CREATE ROLE bench LOGIN PASSWORD 'bench-password'`)
  await admin.query('CREATE DATABASE bench OWNER bench')
  await admin.end()
  const databaseUrl = (port: number) =>
    `postgresql://bench:bench-password@127.0.0.1:${port}/bench?sslmode=disable`
  const world = demoWorld()
  const op = world.addOperation(PROJECT, {
    action: 'start_compute',
    timeline: [{ status: 'finished' }]
  })
  const [without, withProbe, probeMs] = await withServer(world, {}, async (server) => {
    const plain: number[] = []
    const probed: number[] = []
    const probes: number[] = []
    for (let i = 0; i < 7; i++) {
      plain.push((await run(server, { operation_id: op.id, wait: 'false' })).durationMs)
      const probedRun = await run(server, {
        operation_id: op.id,
        wait: 'false',
        database_url: databaseUrl(postgres.port)
      })
      probed.push(probedRun.durationMs)
      const after = /answered after 1 attempt, ([\d.]+) (ms|s) after/.exec(probedRun.summary)
      if (after) probes.push(Number(after[1]) * (after[2] === 's' ? 1000 : 1))
    }
    return [plain, probed, probes]
  })
  row(
    'database probe: start-up without and with database_url (wait: false, one read)',
    `median ${median(without)} ms without, ${median(withProbe)} ms with (+${median(withProbe) - median(without)} ms: pg loaded, one connection with SCRAM, SELECT 1)`,
    `the probe itself on a ready server: median ${median(probeMs)} ms of 7`
  )
  // A server that comes up 7 s after the gate starts: refused until then, then forwarded.
  const lags: number[] = []
  for (let i = 0; i < 3; i++) {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const upAfterMs = 7000
    const forward = createServer((socket) => {
      const upstream = connect(postgres.port, '127.0.0.1')
      socket.pipe(upstream).pipe(socket)
      upstream.on('error', () => socket.destroy())
      socket.on('error', () => upstream.destroy())
    })
    const upAt = Date.now() + upAfterMs
    setTimeout(() => forward.listen(port, '127.0.0.1'), upAfterMs)
    const { result, ended } = await withServer(world, {}, async (server) => {
      const result = await run(server, { operation_id: op.id, database_url: databaseUrl(port) })
      return { result, ended: Date.now() }
    })
    forward.close()
    // The step started when the bundle was spawned: `durationMs` before it ended.
    const stepStart = ended - result.durationMs
    lags.push(Number(result.outputs.database_ready_ms) - (upAt - stepStart))
  }
  row(
    'database probe: server up 7 s after the start, interval 5 s (default)',
    `ready after the server came up: ${lags.map((lag) => `${(lag / 1000).toFixed(1)} s`).join(', ')} (3 runs; bound: one interval)`,
    'ECONNREFUSED until then, retried at the pace'
  )
  await postgres.stop()
}
