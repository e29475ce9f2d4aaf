import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AudioAnswer, PageAnswer, SiteRef, UiEvent } from './ui-site.ts';
import type { UiConfig } from './ui-store.ts';

/** Requests the UI worker holds at once (running or queued); past it `/ui` answers 503 UI_BUSY. */
export const UI_QUEUE_MAX = 32;

/** What the UI worker is asked: the store's runs page, a page of a site, or the recording behind a site's `<id>.wav`. */
export type UiRequest = { readonly kind: 'runs'; readonly base: string } | { readonly kind: 'page'; readonly site: SiteRef; readonly name: string } | { readonly kind: 'audio'; readonly site: SiteRef; readonly file: string };

/** What it says back: the answer to a request, or an event for the server's log. */
export type UiMessage = { readonly id: number; readonly answer?: string | PageAnswer | AudioAnswer; readonly error?: string } | { readonly event: UiEvent };

type Pending = { resolve: (answer: string | PageAnswer | AudioAnswer) => void; reject: (err: Error) => void };

/** The UI worker holds UI_QUEUE_MAX requests already. */
export class UiBusyError extends Error {
  constructor() {
    super(`the results UI has ${UI_QUEUE_MAX} requests waiting`);
  }
}

/**
 * The worker process of the results UI (`ui-worker-process.ts`), started on first use and kept: it
 * lists the snapshot store, scores runs on demand, builds each site's model and renders its pages,
 * work that would otherwise take seconds of the event loop and stall every call's pacer and
 * `/health`. It is a process, not a thread: a thread shares the server's V8 platform, so its
 * compilation and garbage-collection tasks ran beside the server's own at full priority, and the
 * server's collections waited on them (scavenges of 40-140 ms while the first page was built,
 * against 10-25 ms otherwise); the process runs every one of its threads at the lowest priority.
 * At most UI_QUEUE_MAX requests wait at once; a worker that dies fails its requests and is
 * started again.
 */
export class UiWorker {
  private child: ChildProcess | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly config: UiConfig;
  private readonly tell: (event: UiEvent) => void;

  /** `tell` hears the worker's events (a run scored on demand, a file of the store skipped). */
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

  /** The worker's process id, or null before the first request and after it stopped. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Stops the worker (server close); requests still running fail. */
  async close(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.ref(); // its exit is awaited: it must keep the loop alive until then
    child.kill();
    await exited;
  }

  private ask(request: UiRequest): Promise<string | PageAnswer | AudioAnswer> {
    if (this.pending.size >= UI_QUEUE_MAX) return Promise.reject(new UiBusyError());
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.send({ id, request });
    });
  }

  private start(): ChildProcess {
    const config: UiConfig = { scoresDir: this.config.scoresDir, dataDir: this.config.dataDir, snapshots: this.config.snapshots, packsDir: this.config.packsDir, migrationsDir: this.config.migrationsDir };
    // The server's environment as it is now (the S3 client's credential chain reads it); no inherited
    // Node flags: the server's heap sizes are for calls, not for this worker.
    const child = fork(fileURLToPath(new URL('./ui-worker-process.ts', import.meta.url)), [JSON.stringify(config)], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.unref();
    child.channel?.unref();
    child.on('message', (message: UiMessage) => {
      if ('event' in message) return this.tell(message.event);
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.answer !== undefined) waiting?.resolve(message.answer);
      else waiting?.reject(new Error(message.error ?? 'the results UI worker failed'));
    });
    const fail = (err: Error): void => {
      if (this.child === child) this.child = null;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    child.on('error', fail);
    child.on('exit', (code, signal) => fail(new Error(`the results UI worker exited (${signal ?? code})`)));
    this.child = child;
    return child;
  }
}
