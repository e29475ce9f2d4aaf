export * from './twilio-wire.ts';
export * from './twilio-session.ts';
export * from './harness.ts';
export * from './desk-map.ts';
