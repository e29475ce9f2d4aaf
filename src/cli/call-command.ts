import { parseArgs } from 'node:util';
import { createSpeechSynth } from '../audio/index.ts';
import { dialCall } from '../caller/index.ts';
import { EXIT, exitCodeOf, randomIds } from '../core/index.ts';
import type { Command } from './io.ts';

const USAGE = `usage: mivas call --url ws://HOST:PORT/ --task ID [--id CALL_ID] [--say TEXT] [--user U --pass P] [--fast] [--timeout-s 300]
Dials one call as the local caller; the server's harness does the rest.`;

/** `mivas call`: one local CHIRP call against a running server. */
export const callCommand: Command = async (argv, io) => {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      url: { type: 'string' },
      task: { type: 'string' },
      id: { type: 'string' },
      say: { type: 'string' },
      user: { type: 'string' },
      pass: { type: 'string' },
      fast: { type: 'boolean', default: false },
      'timeout-s': { type: 'string', default: '300' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || !values.url) {
    io.stderr.write(`${USAGE}\n`);
    return values.help ? EXIT.ok : exitCodeOf('USAGE');
  }
  const ids = randomIds();
  const report = await dialCall({
    url: values.url,
    callId: values.id ?? `loc_${ids.hex(12)}`,
    taskId: values.task ?? null,
    runId: null,
    auth: values.user && values.pass ? { user: values.user, pass: values.pass } : null,
    openingLine: values.say ?? 'Hello, I need some help please.',
    synth: await createSpeechSynth(16_000),
    paced: !values.fast,
    timeoutMs: Number(values['timeout-s']) * 1000,
    ids,
  });
  io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (report.refusedStatus) return EXIT.checkFailed;
  return report.closeCode === 1000 && !report.timedOut ? EXIT.ok : EXIT.incomplete;
};
