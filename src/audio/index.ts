export * from './pcm.ts';
export * from './resampler.ts';
export * from './wav.ts';
export * from './stereo-recorder.ts';
export * from './speech-synth.ts';
export * from './espeak-voice.ts';
export * from './line-conditions.ts';
