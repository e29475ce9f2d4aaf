import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/index.ts';
import { loadPack, type Pack } from '../../../src/packs/index.ts';
import { deskOf, packToolName, parseDeskMap } from '../../../src/providers/index.ts';

describe('the team\'s desk mapping (MIVAS_RELAY_DESK_MAP)', () => {
  let pack: Pack;
  beforeAll(async () => {
    pack = await loadPack(join(import.meta.dirname, '../../../packs'), 'control-industry');
  });

  it('maps a platform\'s node names to the pack\'s desks, in transfers only', () => {
    const map = parseDeskMap(JSON.stringify({ desks: { booking_node: 'scheduler', 'Front Desk': 'reception' } }), pack, 'desks.json');
    expect(packToolName(map, 'transfer_to_booking_node')).toBe('transfer_to_scheduler');
    expect(packToolName(map, 'transfer_to_scheduler')).toBe('transfer_to_scheduler');
    expect(packToolName(map, 'book_appointment')).toBe('book_appointment');
    expect(deskOf(map, 'Front Desk')).toBe('reception');
    expect(deskOf(map, 'unmapped')).toBe('unmapped');
  });

  it('refuses a desk the pack does not declare, an unknown field and text that is not JSON, naming the file', () => {
    expect(() => parseDeskMap(JSON.stringify({ desks: { booking_node: 'billing' } }), pack, 'desks.json')).toThrow(/desks.json: "booking_node" maps to desk "billing"/);
    expect(() => parseDeskMap(JSON.stringify({ desks: {}, extra: 1 }), pack, 'desks.json')).toThrow(ConfigError);
    expect(() => parseDeskMap('{', pack, 'desks.json')).toThrow(/desks.json: not JSON/);
  });
});
