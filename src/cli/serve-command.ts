import { parseArgs } from 'node:util';
import { EXIT, exitCodeOf, systemClock } from '../core/index.ts';
import { configFromFlags } from './config-flags.ts';
import type { Command } from './io.ts';

export const USAGE = 'usage: mivas serve [--pack P] [--harness H] [--port N] [--host ADDR]\nEvery other setting comes from the environment (see .env.example).';

/**
 * `mivas serve`: runs the service until SIGTERM or SIGINT, then drains and exits 0. Repeated
 * SIGTERMs (and SIGINTs not from a terminal) keep draining; at a terminal a second Ctrl-C ends
 * the live calls now and a third exits at once (src/server/shutdown.ts, docs/reliability.md).
 */
export const serveCommand: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { pack: { type: 'string' }, harness: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    io.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const config = configFromFlags(io, { MIVAS_PACK: values.pack, MIVAS_HARNESS: values.harness, MIVAS_PORT: values.port, MIVAS_HOST: values.host });
  if (!config) return exitCodeOf('CONFIG_INVALID');
  // The harness (a missing key, an unknown name) is checked before the server's modules load, so
  // a configuration error exits in well under 2 s (issue 26); the context then uses this harness.
  const { createSpeechSynth } = await import('../audio/index.ts');
  const { createHarnessFactory } = await import('../providers/index.ts');
  const clock = systemClock();
  const synth = await createSpeechSynth(16_000);
  const harness = createHarnessFactory(config.harness, { synth, clock, noopWaitMs: config.noopWaitMs, providers: config.providers });
  const { buildApp, collectBootGarbage, createAppContext, drainAndClose, loopbackInContainerWarning, missingServeFlags, Shutdown } = await import('../server/index.ts');
  const ctx = await createAppContext(config, { clock, synth, harness });
  const app = await buildApp(ctx);
  const address = await app.listen({ port: config.port, host: config.host });
  collectBootGarbage();
  ctx.log.info({ address, pack: ctx.pack.id, harness: ctx.callHarnesses.served.name, auth: config.auth !== null, snapshots: ctx.sink.root }, 'mivas is listening');
  const unreachable = loopbackInContainerWarning(config.host);
  if (unreachable) {
    ctx.log.warn({ host: config.host }, unreachable);
    io.stderr.write(`WARNING: ${unreachable}\n`);
  }
  const missing = missingServeFlags();
  if (missing.length) ctx.log.warn({ missing }, 'node started without the flags that keep pacing smooth under load: run `node ' + missing.join(' ') + ' bin/mivas.js serve` (docs/performance.md)');
  const shutdown = new Shutdown({
    log: ctx.log,
    isTerminal: process.stdin.isTTY === true,
    drain: (cut) => drainAndClose(app, ctx, cut),
    exitNow: (code) => process.exit(code),
    liveCalls: () => ctx.registry.sessions().map((s) => s.identity.callId),
  });
  // `on`, not `once`: a signal with no listener left kills the process (every live call lost).
  const onTerm = (): void => shutdown.signal('SIGTERM');
  const onInt = (): void => shutdown.signal('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  try {
    await shutdown.finished();
  } finally {
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
  }
  ctx.log.info({ backlog: ctx.outbox.backlog().count }, 'stopped');
  return EXIT.ok;
};
