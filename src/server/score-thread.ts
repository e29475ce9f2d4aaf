import { Worker, SHARE_ENV } from 'node:worker_threads';
import type { AudioAnswer, PageAnswer, SiteRef, UiEvent } from './ui-site.ts';
import type { UiConfig } from './ui-store.ts';

/** Requests the UI thread holds at once (running or queued); past it `/ui` answers 503 UI_BUSY. */
export const UI_QUEUE_MAX = 32;

/** What the UI thread is asked: the store's runs page, a page of a site, or the recording behind a site's `<id>.wav`. */
export type UiRequest = { readonly kind: 'runs'; readonly base: string } | { readonly kind: 'page'; readonly site: SiteRef; readonly name: string } | { readonly kind: 'audio'; readonly site: SiteRef; readonly file: string };

/** What it says back: the answer to a request, or an event for the server's log. */
export type UiMessage = { readonly id: number; readonly answer?: string | PageAnswer | AudioAnswer; readonly error?: string } | { readonly event: UiEvent };

type Pending = { resolve: (answer: string | PageAnswer | AudioAnswer) => void; reject: (err: Error) => void };

/** The UI thread holds UI_QUEUE_MAX requests already. */
export class UiBusyError extends Error {
  constructor() {
    super(`the results UI has ${UI_QUEUE_MAX} requests waiting`);
  }
}

/**
 * The worker thread of the results UI (`score-worker.ts`), started on first use and kept: it lists
 * the snapshot store, scores runs on demand, builds each site's model and renders its pages, work
 * that would otherwise take seconds of the event loop and stall every call's pacer and `/health`.
 * At most UI_QUEUE_MAX requests wait at once; a thread that dies fails its requests and is
 * started again.
 */
export class ScoreThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly config: UiConfig;
  private readonly tell: (event: UiEvent) => void;

  /** `tell` hears the thread's events (a run scored on demand, a file of the store skipped). */
  constructor(config: UiConfig, tell: (event: UiEvent) => void) {
    this.config = config;
    this.tell = tell;
  }

  runsPage(base: string): Promise<string> {
    return this.ask({ kind: 'runs', base }) as Promise<string>;
  }

  page(site: SiteRef, name: string): Promise<PageAnswer> {
    return this.ask({ kind: 'page', site, name }) as Promise<PageAnswer>;
  }

  audio(site: SiteRef, file: string): Promise<AudioAnswer> {
    return this.ask({ kind: 'audio', site, file }) as Promise<AudioAnswer>;
  }

  /** Stops the thread (server close); requests still running fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private ask(request: UiRequest): Promise<string | PageAnswer | AudioAnswer> {
    if (this.pending.size >= UI_QUEUE_MAX) return Promise.reject(new UiBusyError());
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, request });
    });
  }

  private start(): Worker {
    const config: UiConfig = { scoresDir: this.config.scoresDir, dataDir: this.config.dataDir, snapshots: this.config.snapshots, packsDir: this.config.packsDir, migrationsDir: this.config.migrationsDir };
    // The thread reads the server's own environment, live (the S3 client's credential chain): a copy
    // taken when it starts would miss credentials set after the server booted.
    const worker = new Worker(new URL('./score-worker.ts', import.meta.url), { workerData: config, env: SHARE_ENV });
    worker.unref();
    worker.on('message', (message: UiMessage) => {
      if ('event' in message) return this.tell(message.event);
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.answer !== undefined) waiting?.resolve(message.answer);
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
