export * from './twilio-wire.ts';
export * from './twilio-session.ts';
export * from './harness.ts';
export * from './desk-map.ts';
export * from './elevenlabs-wire.ts';
export * from './elevenlabs-session.ts';
export * from './relay-utterances.ts';
export * from './relay-socket.ts';
