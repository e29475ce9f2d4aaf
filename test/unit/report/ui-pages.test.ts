import { describe, expect, it } from 'vitest';
import { agentBands, expectedNodes, jsonScript, parsePageName, parseScoreFile, speechSegments, waveformPeaks } from '../../../src/report/index.ts';
import { pageFileName } from '../../../src/report/site.ts';
import type { TimelineEvent } from '../../../src/snapshot/index.ts';
import { CLINIC_BLUEPRINT } from '../../support/scoring-fixtures.ts';

function wav(frames: readonly (readonly [number, number])[], rateHz = 16_000): Buffer {
  const data = Buffer.alloc(frames.length * 4);
  frames.forEach(([l, r], i) => {
    data.writeInt16LE(l, i * 4);
    data.writeInt16LE(r, i * 4 + 2);
  });
  const head = Buffer.alloc(44);
  head.write('RIFF', 0);
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8);
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(2, 22);
  head.writeUInt32LE(rateHz, 24);
  head.writeUInt32LE(rateHz * 4, 28);
  head.writeUInt16LE(4, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36);
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

describe('waveform peaks', () => {
  it('gives per-channel peaks and the duration of a stereo PCM16 file', () => {
    const frames = Array.from({ length: 16_000 }, (_, i) => [i < 8000 ? 16384 : 0, i < 8000 ? 0 : -32768] as const);
    const peaks = waveformPeaks(wav(frames), 2);
    expect(peaks).toEqual({ durationMs: 1000, rateHz: 16_000, left: [0.5, 0], right: [0, 1] });
  });

  it('returns null for bytes that are not a PCM16 WAV', () => {
    expect(waveformPeaks(Buffer.from('not a wav at all'))).toBeNull();
  });
});

describe('timeline lanes', () => {
  const events: TimelineEvent[] = [
    { seq: 0, at_ms: 100, type: 'speech.started', side: 'agent', utterance_id: 'a1' },
    { seq: 1, at_ms: 900, type: 'speech.completed', side: 'agent', utterance_id: 'a1', interrupted: false },
    { seq: 2, at_ms: 1000, type: 'speech.started', side: 'caller', utterance_id: 'c1' },
    { seq: 3, at_ms: 2000, type: 'handoff', from: 'reception', to: 'scheduler' },
  ];

  it('pairs speech by utterance and runs an unfinished one to the end', () => {
    expect(speechSegments(events, 5000)).toEqual([
      { side: 'agent', startMs: 100, endMs: 900 },
      { side: 'caller', startMs: 1000, endMs: 5000 },
    ]);
  });

  it('bands the active specialist from the entry agent through each handoff', () => {
    expect(agentBands(events, 'reception', 5000)).toEqual([
      { agent: 'reception', startMs: 0, endMs: 2000 },
      { agent: 'scheduler', startMs: 2000, endMs: 5000 },
    ]);
  });

  it('walks the expected hops over the blueprint', () => {
    expect(expectedNodes(CLINIC_BLUEPRINT, 'reception', ['transfer_to_identity', 'transfer_to_scheduling'])).toEqual(['reception', 'identity', 'scheduling']);
  });
});

describe('page names and data islands', () => {
  it('round-trips page names and refuses anything path-like', () => {
    for (const name of ['index.html', 'tasks.html', 'task-healthcare.C1-E1.html', 'conv-loc_0123456789ab.html']) {
      const page = parsePageName(name);
      expect(page && pageFileName(page)).toBe(name);
    }
    for (const bad of ['../secret', 'conv-../x.html', 'task-a/b.html', 'conv-x.html.bak']) expect(parsePageName(bad)).toBeNull();
  });

  it('escapes a JSON island so data cannot close the script tag', () => {
    const island = jsonScript('d', { text: '</script><img src=x onerror=alert(1)>' }).text;
    expect(island).not.toContain('</script><img');
    expect(island.match(/<\/script>/g)).toHaveLength(1);
  });

  it('rejects a file that is not a score export', () => {
    expect(parseScoreFile('{').ok).toBe(false);
    expect(parseScoreFile('{"meta":{}}').ok).toBe(false);
  });
});
