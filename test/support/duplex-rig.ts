import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Task } from '../../src/packs/index.ts';
import { scriptedHarness, type ScriptedDuplex } from '../../src/providers/index.ts';
import type { ConversationVerdict } from '../../src/scoring/index.ts';
import { timelineFileSchema, type TimelineEvent } from '../../src/snapshot/index.ts';
import { runWithCaller, standInCaller, type CallerRun } from './caller-rig.ts';
import type { OpenAICompatibleStandIn } from './openai-compatible.ts';
import { startTestServer, type TestServer } from './server.ts';
import { sentenceModemSynth } from './text-modem.ts';

/** One call played against a scripted agent with duplex behaviour, and what it left. */
export interface Played {
  readonly run: CallerRun;
  readonly callId: string;
  readonly events: readonly TimelineEvent[];
  readonly server: TestServer;
}

/**
 * One call of a healthcare correction task: the scripted agent (the `local` provider session)
 * reads the corrected value back as the caller first gave it, and the llm caller (chat, ears and
 * mouth on the loopback stand-in) overhears it and plays the task's duplex acts. The agent speaks
 * modem one sentence at a time, so the caller's partial transcripts hold each finished sentence,
 * and the server paces its audio in real time, so a cut-in lands mid-utterance. `edit` changes the
 * task on the server's pack before the call (a test's extra pin).
 */
export async function playDuplex(taskId: string, duplex: ScriptedDuplex, standIn: OpenAICompatibleStandIn, edit: ((task: Task) => Task) | null = null): Promise<Played> {
  const synth = sentenceModemSynth();
  const server = await startTestServer({ MIVAS_PACK: 'healthcare' }, { synth, harness: scriptedHarness(synth, duplex) });
  const task = server.ctx.pack.tasks.get(taskId);
  if (edit && task) (server.ctx.pack.tasks as Map<string, Task>).set(taskId, edit(task));
  const run = await runWithCaller(server, standInCaller(standIn), [taskId]);
  const callId = run.calls[0]?.callId ?? '';
  const timeline = timelineFileSchema.parse(JSON.parse(readFileSync(join(server.dataDir, 'snapshots', 'healthcare', `${callId}.timeline.json`), 'utf8')));
  return { run, callId, events: timeline.events, server };
}

/** The verdict of the played call. */
export function verdictOf(p: Played): ConversationVerdict {
  const v = p.run.score.conversations.find((c) => c.conversation_id === p.callId);
  if (!v) throw new Error(`no verdict for ${p.callId}`);
  return v;
}
