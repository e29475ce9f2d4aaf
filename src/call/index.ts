export * from './call-session.ts';
export * from './call-registry.ts';
export * from './turn-driver.ts';
export * from './greeting-nudge.ts';
export * from './first-audio-timer.ts';
export * from './agent-audio.ts';
export * from './inbound-audio.ts';
export * from './call-watchdogs.ts';
