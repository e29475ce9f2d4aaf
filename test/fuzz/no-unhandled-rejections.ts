import { afterAll, beforeAll, expect } from 'vitest';

/**
 * Registers hooks that collect unhandled promise rejections for the enclosing suite and fail it
 * if any occurred. Call it before the suite's own hooks: its check then runs after their teardown.
 */
export function expectNoUnhandledRejections(): void {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown): void => {
    rejections.push(reason);
  };
  beforeAll(() => {
    process.on('unhandledRejection', onRejection);
  });
  afterAll(() => {
    process.off('unhandledRejection', onRejection);
    expect(rejections).toEqual([]);
  });
}
