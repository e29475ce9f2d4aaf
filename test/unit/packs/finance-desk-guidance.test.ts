import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { usePackTools } from '../../support/pack-tools.ts';

/**
 * Places where the audit players had to guess what a Fennwood desk wants (packs/finance/README.md,
 * "Task audit decisions"): a travel notice for a city, and the order of a two-desk request.
 */
describe('finance desk guidance the players found missing', () => {
  const { fresh, call, data, pack } = usePackTools('finance');

  it('tells the agent a city is a destination kept as said, and the tool keeps it', () => {
    const destination = (JSON.parse(readFileSync('packs/finance/tools.json', 'utf8')) as { tools: { name: string; inputSchema: { properties: Record<string, { description?: string }> } }[] }).tools.find((t) => t.name === 'add_travel_notice')?.inputSchema.properties.destination?.description;
    expect(destination).toMatch(/city is kept as said/);
    const db = fresh();
    expect(call(db, 'verify_member', { full_name: 'Maya Collins', date_of_birth: '1991-11-30' }).output.ok).toBe(true);
    expect(data(call(db, 'add_travel_notice', { destination: 'Chicago', start_date: '2026-10-20', end_date: '2026-10-25' }))).toMatchObject({ destination: 'Chicago' });
  });

  it('sends a two-desk request to the desk that can hand on to the other, and that desk can', () => {
    const routing = pack().prompts.get('reception') ?? '';
    const line = routing.split('\n').find((l) => l.startsWith('- A request for two desks'));
    expect(line).toMatch(/next_desk is accounts or cards/);
    const handoffs = (desk: string): string[] => pack().blueprint.agents.find((a) => a.name === desk)?.tools.map((t) => t.name).filter((n) => n.startsWith('transfer_to_') && n !== 'transfer_to_human') ?? [];
    expect(handoffs('accounts')).toContain('transfer_to_disputes');
    expect(handoffs('cards')).toContain('transfer_to_disputes');
    expect(handoffs('disputes')).toEqual([]);
    expect(handoffs('payments')).toEqual([]);
  });
});
