import { parseArgs } from 'node:util';
import { EXIT, exitCodeOf } from '../core/index.ts';
import { buildApp, createAppContext, drainAndClose, missingServeFlags } from '../server/index.ts';
import { configFromFlags } from './config-flags.ts';
import type { Command } from './io.ts';

export const USAGE = 'usage: mivas serve [--pack P] [--harness H] [--port N] [--host ADDR]\nEvery other setting comes from the environment (see .env.example).';

/** `mivas serve`: runs the service until SIGTERM or SIGINT, then drains and exits 0. */
export const serveCommand: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { pack: { type: 'string' }, harness: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const config = configFromFlags(io, { MIVAS_PACK: values.pack, MIVAS_HARNESS: values.harness, MIVAS_PORT: values.port, MIVAS_HOST: values.host });
  if (!config) return exitCodeOf('CONFIG_INVALID');
  const ctx = await createAppContext(config);
  const app = await buildApp(ctx);
  const address = await app.listen({ port: config.port, host: config.host });
  ctx.log.info({ address, pack: ctx.pack.id, harness: ctx.harness.name, auth: config.auth !== null, snapshots: ctx.sink.root }, 'mivas is listening');
  const missing = missingServeFlags();
  if (missing.length) ctx.log.warn({ missing }, 'node started without the flags that keep pacing smooth under load: run `node ' + missing.join(' ') + ' bin/mivas.js serve` (docs/performance.md)');
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      ctx.log.info({ signal }, 'draining: refusing new calls, letting live calls finish');
      void drainAndClose(app, ctx).then(resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  await stopped;
  ctx.log.info({ backlog: ctx.outbox.backlog().count }, 'stopped');
  return EXIT.ok;
};
