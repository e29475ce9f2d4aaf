export * from './call-session.ts';
export * from './call-registry.ts';
export * from './call-snapshot.ts';
export * from './smoke.ts';
export * from './turn-driver.ts';
export * from './greeting-nudge.ts';
