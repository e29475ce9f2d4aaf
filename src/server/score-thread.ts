import { Worker } from 'node:worker_threads';
import type { ScoreReport } from '../scoring/index.ts';
import type { ScoreJob } from './score-job.ts';

type Pending = { resolve: (report: ScoreReport) => void; reject: (err: Error) => void };

/**
 * A worker thread that scores runs for the results UI, started on first use and kept; a run
 * scored on demand takes seconds of CPU, which would otherwise stall every call's pacer and
 * `/health`. Jobs run one after another; a thread that dies fails its jobs and is started again.
 */
export class ScoreThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  score(job: ScoreJob): Promise<ScoreReport> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<ScoreReport>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, job });
    });
  }

  /** Stops the thread (server close); jobs still running fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    const worker = new Worker(new URL('./score-worker.ts', import.meta.url));
    worker.unref();
    worker.on('message', (message: { id: number; report?: ScoreReport; error?: string }) => {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.report) waiting?.resolve(message.report);
      else waiting?.reject(new Error(message.error ?? 'scoring failed'));
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the scoring thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
