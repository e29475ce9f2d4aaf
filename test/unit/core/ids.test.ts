import { describe, expect, it } from 'vitest';
import { CALL_ID_PATTERN, ConversationIds, ID_CHARS, isCallId, isEpisodeId, MINTED_IDS, mintId, seededIds, type IdUse } from '../../../src/core/index.ts';

describe('mintId', () => {
  it('mints each kind with its prefix and random length, every one a valid id of its namespace', () => {
    const ids = seededIds('mint');
    for (const [kind, { prefix, hexChars }] of Object.entries(MINTED_IDS)) {
      const id = mintId(ids, kind as keyof typeof MINTED_IDS);
      expect(id).toMatch(new RegExp(`^${prefix}[0-9a-f]{${hexChars}}$`));
      expect(CALL_ID_PATTERN.test(id)).toBe(true);
      expect(isEpisodeId(id)).toBe(kind === 'episode');
      expect(isCallId(id)).toBe(kind !== 'episode');
    }
  });

  it('puts a replica name between the prefix and the random part', () => {
    expect(mintId(seededIds('r'), 'episode', 'east-1')).toMatch(/^ep_east-1_[0-9a-f]{24}$/);
  });

  it('keeps one pattern for every embedded id (ID_CHARS is CALL_ID_PATTERN without anchors)', () => {
    expect(CALL_ID_PATTERN.source).toBe(`^${ID_CHARS}$`);
    expect(CALL_ID_PATTERN.test('a'.repeat(64))).toBe(true);
    expect(CALL_ID_PATTERN.test('a'.repeat(65))).toBe(false);
    expect(CALL_ID_PATTERN.test('../x')).toBe(false);
  });
});

describe('ConversationIds', () => {
  const holder = (uses: Record<string, IdUse>) => ({ useOf: (id: string): IdUse | null => uses[id] ?? null });

  it('answers the first holder that has an id, and null for a free one', () => {
    const ids = new ConversationIds();
    ids.hold(holder({ a: 'live' }));
    ids.hold(holder({ a: 'used', b: 'scratch' }));
    expect(ids.useOf('a')).toBe('live');
    expect(ids.useOf('b')).toBe('scratch');
    expect(ids.useOf('c')).toBeNull();
  });

  it('mints an id no holder has, and refuses a source that only repeats taken ids', () => {
    const taken = mintId(seededIds('clash'), 'rollout');
    const ids = new ConversationIds();
    ids.hold(holder({ [taken]: 'used' }));
    const fresh = ids.mintFree(seededIds('clash'), 'rollout');
    expect(fresh).not.toBe(taken);
    expect(fresh).toMatch(/^ro_[0-9a-f]{24}$/);
    const stuck = { hex: (n: number) => '0'.repeat(n), uuid: () => '' };
    ids.hold(holder({ [mintId(stuck, 'call')]: 'ended' }));
    expect(() => ids.mintFree(stuck, 'call')).toThrow(/free call id/);
  });
});
