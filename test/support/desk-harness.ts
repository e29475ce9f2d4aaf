import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SpeechSynth } from '../../src/audio/index.ts';
import type { CallSession } from '../../src/call/index.ts';
import { LocalModelSession, type ResponsePart } from '../../src/providers/index.ts';
import type { HarnessFactory } from '../../src/providers/index.ts';
import { finalStateSchema, summarySchema, timelineFileSchema, type Summary, type TimelineEvent } from '../../src/snapshot/index.ts';
import { RawChirpClient } from './chirp-client.ts';
import type { TestServer } from './server.ts';

/** A distinctive caller signal: every sample non-zero, both bytes varying, so a slipped byte shows. */
export function callerSignal(samples: number): Buffer {
  const pcm = Buffer.alloc(samples * 2);
  for (let k = 0; k < samples; k++) pcm.writeInt16LE(300 + ((k * 37) % 8000) * (k % 2 ? 1 : -1), k * 2);
  return pcm;
}

/**
 * A call that stays open for HTTP tool calls: the `desk` harness greets from the scheduling desk
 * (it hands off first), then waits; the caller's first utterance makes it end the call.
 */
/** Sends a ping and resolves on the pong: every frame sent before it has been read by the server. */
export function roundTrip(client: RawChirpClient): Promise<void> {
  return new Promise((resolve) => {
    client.ws.once('pong', () => resolve());
    client.ws.ping();
  });
}

export function readSnapshot(server: TestServer, callId: string, pack = 'control-industry'): { summary: Summary; events: readonly TimelineEvent[]; final: Record<string, unknown[]>; wav: Buffer } {
  const dir = join(server.dataDir, 'snapshots', pack);
  const json = (part: string): unknown => JSON.parse(readFileSync(join(dir, `${callId}.${part}`), 'utf8'));
  return {
    summary: summarySchema.parse(json('summary.json')),
    events: timelineFileSchema.parse(json('timeline.json')).events,
    final: finalStateSchema.parse(json('final.json')),
    wav: readFileSync(join(dir, `${callId}.wav`)),
  };
}

/** Connects, waits for the greeting to finish, and returns the live server-side session. */
export async function connectAfterGreeting(server: TestServer, headers: Record<string, string>): Promise<{ client: RawChirpClient; session: CallSession }> {
  const client = await RawChirpClient.connect(server.wsUrl, headers);
  await client.waitForType('speech.completed');
  const session = server.ctx.registry.get(headers['X-Simulation-Result-Id'] ?? '');
  if (!session) throw new Error('no live session');
  return { client, session };
}

class DeskSession extends LocalModelSession {
  readonly provider = 'desk';
  private greeted = false;
  private ending = false;
  private saidGoodbye = false;

  protected nextResponse(): ResponsePart[] | null {
    if (!this.greeted) {
      this.greeted = true;
      return [{ call: { name: 'transfer_to_scheduler', args: {} } }, { say: 'Scheduling desk, how can I help?' }];
    }
    if (this.ending && !this.saidGoodbye) {
      this.saidGoodbye = true;
      return [{ say: 'Goodbye.' }];
    }
    return null;
  }

  protected onCallerTurn(): void {
    if (this.ending) return;
    this.ending = true;
    this.startResponse([{ call: { name: 'end_call', args: { reason: 'caller_done' } } }]);
  }

  protected onToolOutput(): void {
    /* nothing is carried */
  }
}

export function deskHarness(synth: SpeechSynth): HarnessFactory {
  return { name: 'desk', refuse: () => null, create: () => new DeskSession(synth) };
}

