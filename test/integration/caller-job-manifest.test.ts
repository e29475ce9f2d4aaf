import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseShard, planCalls, shardCalls } from '../../src/caller/index.ts';
import { seededIds } from '../../src/core/index.ts';
import { parseAllDocuments } from 'yaml';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The caller Job (k8s/caller-job.yaml) and the shard arithmetic it relies on. */
describe('scale-out: mivas run --shard I/N on a Kubernetes Indexed Job', () => {
  const [job] = parseAllDocuments(readFileSync(resolve(import.meta.dirname, '../../k8s/caller-job.yaml'), 'utf8')).map((d) => obj(d.toJS()));
  const spec = obj(job?.spec);
  const pod = obj(obj(spec.template).spec);
  const container = obj(arr(pod.containers)[0]);
  const args = arr(container.args).map(String);
  const env = arr(container.env).map(obj);

  it('is an Indexed Job whose completions, parallelism and --shard N agree', () => {
    expect(job).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job' });
    expect(spec.completionMode).toBe('Indexed');
    const shard = args[args.indexOf('--shard') + 1] ?? '';
    const n = Number(shard.split('/')[1]);
    expect(shard).toMatch(/^\$\(JOB_COMPLETION_INDEX\)\/\d+$/);
    expect(spec.completions).toBe(n);
    expect(spec.parallelism).toBe(n);
    expect(pod.restartPolicy).toBe('Never');
    expect(obj(pod.securityContext).runAsNonRoot).toBe(true);
  });

  it('dials the deployed service with the llm caller, one run id for every shard', () => {
    expect(container.command).toEqual(['node', 'bin/mivas.js']);
    expect(args.slice(0, 3)).toEqual(['run', '--url', '$(MIVAS_TARGET_URL)']);
    expect(args[args.indexOf('--caller') + 1]).toBe('llm');
    expect(args[args.indexOf('--run-id') + 1]).toBe('$(RUN_ID)');
    const index = env.find((e) => e.name === 'JOB_COMPLETION_INDEX');
    expect(obj(obj(index?.valueFrom).fieldRef).fieldPath).toBe("metadata.annotations['batch.kubernetes.io/job-completion-index']");
    expect(String(env.find((e) => e.name === 'RUN_ID')?.value)).toMatch(/^run_[A-Za-z0-9_-]+$/);
    // Every $(VAR) the args use is defined in the container's env.
    const names = new Set(env.map((e) => e.name));
    for (const a of args) for (const m of a.matchAll(/\$\(([A-Z_]+)\)/g)) expect(names.has(m[1]), m[1]).toBe(true);
  });

  it('N shards dial every (task, trial) of the plan exactly once, whatever ids each machine mints', () => {
    const taskIds = ['C1-E1', 'C1-E2', 'C2-M1', 'R-H1', 'C5-E1'];
    const key = (c: { taskId: string; trial: number }): string => `${c.taskId}#${c.trial}`;
    const whole = planCalls({ taskIds, trials: 5, ids: seededIds('whole') }).map(key);
    const shards = [0, 1, 2, 3].map((i) => shardCalls(planCalls({ taskIds, trials: 5, ids: seededIds(`machine-${i}`) }), parseShard(`${i}/4`)).map(key));
    expect(shards.flat().sort()).toEqual([...whole].sort());
    expect(new Set(shards.flat()).size).toBe(whole.length);
    expect(shards.map((s) => s.length)).toEqual([7, 6, 6, 6]);
    expect([parseShard('4/4'), parseShard('x/2'), parseShard('0/0')]).toEqual([null, null, null]);
  });
});
