import { describe, expect, it } from 'vitest';
import { isUpgradeProblem, readUpgradeFacts } from '../../../src/chirp/upgrade.ts';
import { CALL_ID_PATTERN, seededIds } from '../../../src/core/index.ts';

const ids = () => seededIds('upgrade');

describe('readUpgradeFacts', () => {
  it('reads the call, task and run ids, trimmed', () => {
    const facts = readUpgradeFacts({ 'x-simulation-result-id': '  721435 ', 'x-mivas-task-id': ' S-E1', 'x-mivas-run-id': 'run_0123456789ab ' }, '/', ids());
    expect(facts).toEqual({ callId: '721435', minted: false, taskId: 'S-E1', runId: 'run_0123456789ab', probe: false });
  });

  it('takes the first of repeated headers', () => {
    const facts = readUpgradeFacts({ 'x-simulation-result-id': ['first', 'second'] }, '/', ids());
    expect(!isUpgradeProblem(facts) && facts.callId).toBe('first');
  });

  it.each([undefined, '', '   '])('mints call_<12 hex> when the id is %j', (value) => {
    const facts = readUpgradeFacts(value === undefined ? {} : { 'x-simulation-result-id': value }, '/', ids());
    if (isUpgradeProblem(facts)) throw new Error(facts.message);
    expect(facts.minted).toBe(true);
    expect(facts.callId).toMatch(/^call_[0-9a-f]{12}$/);
  });

  it('mints a different id each time', () => {
    const source = ids();
    const a = readUpgradeFacts({}, '/', source);
    const b = readUpgradeFacts({}, '/', source);
    expect(!isUpgradeProblem(a) && !isUpgradeProblem(b) && a.callId !== b.callId).toBe(true);
  });

  it.each(['../x', 'a/b', 'a b', 'x'.repeat(65), 'id.db', 'naïve', '%2e%2e'])('refuses the call id %j with 400', (id) => {
    expect(readUpgradeFacts({ 'x-simulation-result-id': id }, '/', ids())).toMatchObject({ status: 400, code: 'CALL_ID_INVALID' });
  });

  it.each(['ep_0123456789abcdef01234567', 'ep_x'])('refuses the RL episode id %j as a call id with 400', (id) => {
    expect(readUpgradeFacts({ 'x-simulation-result-id': id }, '/', ids())).toMatchObject({ status: 400, code: 'CALL_ID_INVALID', message: expect.stringContaining('RL episodes') });
  });

  it('refuses malformed task and run ids', () => {
    expect(readUpgradeFacts({ 'x-mivas-task-id': '../S-E1' }, '/', ids())).toMatchObject({ status: 400, code: 'TASK_ID_INVALID' });
    expect(readUpgradeFacts({ 'x-mivas-run-id': 'run 1' }, '/', ids())).toMatchObject({ status: 400, code: 'RUN_ID_INVALID' });
  });

  it.each([
    ['/probe', {}, true],
    ['/probe?x=1', {}, true],
    ['/', { 'x-mivas-probe': '1' }, true],
    ['/', { 'x-mivas-probe': '0' }, false],
    ['/probe/more', {}, false],
    ['/', {}, false],
  ] as const)('%s %j is a probe: %s', (path, headers, probe) => {
    const facts = readUpgradeFacts(headers, path, ids());
    expect(!isUpgradeProblem(facts) && facts.probe).toBe(probe);
  });
});

describe('CALL_ID_PATTERN', () => {
  it('allows 1–64 of [A-Za-z0-9_-] and nothing else', () => {
    expect(['a', '675', 'loc_0123456789ab', 'A-z_9', 'x'.repeat(64)].every((id) => CALL_ID_PATTERN.test(id))).toBe(true);
    expect(['', 'x'.repeat(65), 'a.b', 'a\n', '\na', 'a:b'].some((id) => CALL_ID_PATTERN.test(id))).toBe(false);
  });
});
