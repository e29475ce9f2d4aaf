import { Worker } from 'node:worker_threads';
import type { AudioAnswer, PageAnswer, SiteSpec } from './ui-site.ts';

/** Requests the UI thread holds at once (running or queued); past it `/ui` answers 503 UI_BUSY. */
export const UI_QUEUE_MAX = 32;

/** What the UI thread is asked: a page of a site, or the recording behind a site's `<id>.wav`. */
export type UiRequest = { readonly kind: 'page'; readonly spec: SiteSpec; readonly name: string } | { readonly kind: 'audio'; readonly spec: SiteSpec; readonly file: string };

/** What it says back: the answer to a request, or that a run is being scored (for the log). */
export type UiMessage = { readonly id: number; readonly answer?: PageAnswer | AudioAnswer; readonly error?: string } | { readonly scoring: { readonly runId: string; readonly conversations: number } };

type Pending = { resolve: (answer: PageAnswer | AudioAnswer) => void; reject: (err: Error) => void };

/** The UI thread holds UI_QUEUE_MAX requests already. */
export class UiBusyError extends Error {
  constructor() {
    super(`the results UI has ${UI_QUEUE_MAX} requests waiting`);
  }
}

/**
 * The worker thread of the results UI (`score-worker.ts`), started on first use and kept: it
 * scores runs on demand, builds each site's model and renders its pages, which would otherwise
 * take seconds of the event loop and stall every call's pacer and `/health`. At most
 * UI_QUEUE_MAX requests wait at once; a thread that dies fails its requests and is started again.
 */
export class ScoreThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly onScoring: (runId: string, conversations: number) => void;

  /** `onScoring` is told each time the thread starts scoring a run on demand. */
  constructor(onScoring: (runId: string, conversations: number) => void) {
    this.onScoring = onScoring;
  }

  page(spec: SiteSpec, name: string): Promise<PageAnswer> {
    return this.ask({ kind: 'page', spec, name }) as Promise<PageAnswer>;
  }

  audio(spec: SiteSpec, file: string): Promise<AudioAnswer> {
    return this.ask({ kind: 'audio', spec, file }) as Promise<AudioAnswer>;
  }

  /** Stops the thread (server close); requests still running fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private ask(request: UiRequest): Promise<PageAnswer | AudioAnswer> {
    if (this.pending.size >= UI_QUEUE_MAX) return Promise.reject(new UiBusyError());
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, request });
    });
  }

  private start(): Worker {
    const worker = new Worker(new URL('./score-worker.ts', import.meta.url));
    worker.unref();
    worker.on('message', (message: UiMessage) => {
      if ('scoring' in message) return this.onScoring(message.scoring.runId, message.scoring.conversations);
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.answer) waiting?.resolve(message.answer);
      else waiting?.reject(new Error(message.error ?? 'the results UI thread failed'));
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the results UI thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
