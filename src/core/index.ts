export * from './clock.ts';
export * from './ids.ts';
export * from './errors.ts';
export * from './error-catalog.ts';
export * from './hash.ts';
export * from './typed-emitter.ts';
export * from './log.ts';
export * from './values.ts';
