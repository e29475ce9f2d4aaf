/** Event name → listener argument tuple. */
export type EventMap = { readonly [event: string]: readonly unknown[] };

type AnyListener = (...args: readonly unknown[]) => void;

/** A minimal typed event emitter: listeners are checked at compile time and errors propagate. */
export class TypedEmitter<E extends EventMap> {
  private readonly listeners = new Map<keyof E, AnyListener[]>();

  /** Adds a listener and returns a function that removes it. */
  on<K extends keyof E>(event: K, listener: (...args: E[K]) => void): () => void {
    const stored = listener as unknown as AnyListener;
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), stored]);
    return () => {
      this.listeners.set(event, (this.listeners.get(event) ?? []).filter((l) => l !== stored));
    };
  }

  /** Calls every listener of the event in registration order. */
  emit<K extends keyof E>(event: K, ...args: E[K]): void {
    for (const listener of this.listeners.get(event) ?? []) listener(...args);
  }

  /** Removes every listener. */
  removeAll(): void {
    this.listeners.clear();
  }
}
