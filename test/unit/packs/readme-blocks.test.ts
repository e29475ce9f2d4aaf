import { describe, expect, it } from 'vitest';
import {
  formatPolicyValue,
  policyBoundary,
  readReadmeBlocks,
  renderGraphBlock,
  renderPolicyBlock,
  renderReadmeBlocks,
  renderSeedBlock,
  renderTaskGridBlock,
  rewriteReadmeBlocks,
  taskGrid,
  type Blueprint,
  type Task,
} from '../../../src/packs/index.ts';

const blueprint: Blueprint = {
  company: 'Test Co',
  agents: [
    {
      name: 'front',
      description: 'Greets.',
      system_prompt: 'prompts/front.md',
      tools: [
        { name: 'transfer_to_gate', handoff: true, handoff_to: 'gate' },
        { name: 'escalate', session: true },
        { name: 'end_call', session: true },
      ],
    },
    {
      name: 'gate',
      description: 'Checks identity.',
      system_prompt: 'prompts/gate.md',
      tools: [
        { name: 'transfer_to_desk', handoff: true, handoff_to: 'desk' },
        { name: 'escalate', session: true },
        { name: 'end_call', session: true },
      ],
    },
    { name: 'desk', description: 'Does the work.', system_prompt: 'prompts/desk.md', tools: [{ name: 'end_call', session: true }] },
  ],
};

function task(id: string, difficulty: Task['metadata']['difficulty'], audio: Task['metadata']['audio_condition']): Task {
  return {
    task_id: id,
    task_name: `${id}: t`,
    intent: 'x',
    traits: [],
    customer_name: 'Pat Doe',
    exp_handoff_path: [],
    exp_tool_calls: [],
    behaviors: { creativity: 0 },
    scripted_responses: [],
    metadata: { category: id.split('-')[0] ?? '', category_slug: 'slug', difficulty, audio_condition: audio },
    exp_db_state: {},
    forbidden_tools: [],
  };
}

describe('README blocks', () => {
  it('draws start, handoff edges labelled by tool, sinks into call end and dotted human transfers', () => {
    const graph = renderGraphBlock(blueprint, ['desk']);
    expect(graph.split('\n')).toEqual(
      expect.arrayContaining([
        'flowchart TD',
        '  call_start --> front',
        '  front -->|transfer_to_gate| gate',
        '  gate -->|transfer_to_desk| desk',
        '  desk --> call_ends',
        '  front -.->|escalate| human_staff',
        '  gate -.->|escalate| human_staff',
      ]),
    );
    expect(graph).not.toContain('desk -.->');
    expect(graph.startsWith('```mermaid\n')).toBe(true);
  });

  it('states each policy boundary and formats money and units', () => {
    expect(policyBoundary('payment_plan_min_balance_cents')).toMatch(/^`≥`/);
    expect(policyBoundary('waitlist_max_offices')).toMatch(/^`≤`/);
    expect(policyBoundary('late_change_notice_hours')).toMatch(/^`<`/);
    expect(policyBoundary('late_change_fee_cents')).toBe('fixed value');
    expect(formatPolicyValue('late_change_fee_cents', 4000)).toBe('$40');
    expect(formatPolicyValue('filler_high_cents', 130050)).toBe('$1,300.50');
    expect(formatPolicyValue('callback_business_days', 1)).toBe('1 business day');
    expect(formatPolicyValue('routine_reply_business_days', 2)).toBe('2 business days');
    const block = renderPolicyBlock({ b_max_days: 3, a_min_cents: 500 });
    expect(block.split('\n').slice(2)).toEqual(['| `a_min_cents` | $5 | `≥` the value itself is included |', '| `b_max_days` | 3 days | `≤` the value itself is included |']);
  });

  it('counts seed rows per table with a total', () => {
    expect(renderSeedBlock({ patients: 3, locations: 4 }).split('\n').slice(2)).toEqual(['| `locations` | 4 |', '| `patients` | 3 |', '| **total** | 7 |']);
  });

  it('grids tasks by category, difficulty and audio condition, R last', () => {
    const tasks = [task('R-E1', 'easy', 'perfect'), task('C1-E1', 'easy', 'perfect'), task('C1-E1-BG', 'easy', 'background_noise'), task('C1-H1', 'hard', 'perfect')];
    const grid = taskGrid(tasks);
    expect(grid.categories.map((c) => c.category)).toEqual(['C1', 'R']);
    expect(grid.categories[0]?.counts).toEqual({ easy: 2, hard: 1, perfect: 2, background_noise: 1, total: 3 });
    expect(grid.totals.total).toBe(4);
    expect(renderTaskGridBlock(tasks).split('\n').at(-1)).toBe('| **all** | | 3 | 0 | 1 | 3 | 1 | 0 | 4 |');
  });

  it('rewrites blocks in place, appends missing ones, and is stable on a second run', () => {
    const blocks = renderReadmeBlocks({ blueprint, module: { policy: { x_max_days: 1 }, graphRules: { sinks: ['desk'], gates: {} } }, tasks: [], seedCounts: { t: 1 } });
    const original = '# Title\n\nIntro.\n\n<!-- generated:graph -->\nstale\n<!-- /generated:graph -->\n\nOutro.\n';
    const once = rewriteReadmeBlocks(original, blocks);
    expect(once.startsWith('# Title\n\nIntro.\n\n<!-- generated:graph -->\n```mermaid')).toBe(true);
    expect(once).toContain('\n\nOutro.\n');
    expect(once).not.toContain('stale');
    expect(readReadmeBlocks(once)).toEqual(blocks);
    expect(rewriteReadmeBlocks(once, blocks)).toBe(once);
  });
});
