import { describe, expect, it } from 'vitest';
import { ResponseSequencer, type ResponseReason } from '../../../src/call/response-sequencer.ts';

/** A sequencer whose effects are recorded in order, as one log of strings. */
function spy() {
  const log: string[] = [];
  const sequencer = new ResponseSequencer({
    requestResponse: (reason: ResponseReason) => log.push(`create:${reason}`),
    farewellDone: () => log.push('farewell_done'),
  });
  return { log, sequencer };
}

describe('ResponseSequencer: tool outputs', () => {
  it('waits for the carrying response to end, then requests once for a whole batch of calls', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.toolAnswered(false);
    sequencer.toolAnswered(false);
    sequencer.toolAnswered(false);
    expect(log).toEqual([]);
    sequencer.responseDone();
    expect(log).toEqual(['create:tool_outputs']);
  });

  it('requests at once for a call reported while no response is open', () => {
    const { log, sequencer } = spy();
    sequencer.toolAnswered(false);
    expect(log).toEqual(['create:tool_outputs']);
  });

  it('sends nothing while its own request has not started, and answers later outputs after that response', () => {
    const { log, sequencer } = spy();
    sequencer.toolAnswered(false);
    sequencer.toolAnswered(false); // before response.created of the first request
    expect(log).toEqual(['create:tool_outputs']);
    sequencer.responseStarted();
    sequencer.responseDone();
    expect(log).toEqual(['create:tool_outputs', 'create:tool_outputs']);
  });

  it('requests nothing after a response that carried no call', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.agentAudio();
    sequencer.responseDone();
    sequencer.responseStarted();
    sequencer.responseDone();
    expect(log).toEqual([]);
  });

  it('still answers outputs when the carrying response was cancelled', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.toolAnswered(false);
    sequencer.responseDone(); // status cancelled: the outputs are in the conversation and need a reply
    expect(log).toEqual(['create:tool_outputs']);
  });

  it('never requests while a response is open, over a sequence of turns', () => {
    let open = false;
    const openAtRequest: boolean[] = [];
    const sequencer = new ResponseSequencer({ requestResponse: () => openAtRequest.push(open), farewellDone: () => undefined });
    const started = (): void => {
      open = true;
      sequencer.responseStarted();
    };
    const done = (): void => {
      open = false;
      sequencer.responseDone();
    };
    started();
    sequencer.toolAnswered(false);
    done();
    started();
    sequencer.toolAnswered(false);
    sequencer.toolAnswered(false);
    sequencer.nudge();
    done();
    started();
    done();
    expect(openAtRequest).toEqual([false, false]);
  });
});

describe('ResponseSequencer: the greeting nudge', () => {
  it('sends while nothing is open, and again to retry a request that may have been dropped', () => {
    const { log, sequencer } = spy();
    expect(sequencer.nudge()).toBe(true);
    expect(sequencer.nudge()).toBe(true);
    expect(log).toEqual(['create:nudge', 'create:nudge']);
  });

  it('is skipped while a response is open, and allowed again once it is done', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    expect(sequencer.mayNudge()).toBe(false);
    expect(sequencer.nudge()).toBe(false);
    sequencer.responseDone();
    expect(sequencer.nudge()).toBe(true);
    expect(log).toEqual(['create:nudge']);
  });

  it('is skipped while a request for tool outputs is awaiting its response', () => {
    const { log, sequencer } = spy();
    sequencer.toolAnswered(false);
    expect(sequencer.nudge()).toBe(false);
    expect(log).toEqual(['create:tool_outputs']);
  });

  it('is skipped once the call is ending', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.toolAnswered(true);
    sequencer.responseDone();
    sequencer.responseStarted();
    sequencer.responseDone();
    expect(sequencer.nudge()).toBe(false);
    expect(log).toEqual(['create:farewell', 'farewell_done']);
  });
});

describe('ResponseSequencer: the farewell after a session tool', () => {
  it('asks for the goodbye when the response that carried end_call said nothing, and reports it done after that response', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.toolAnswered(true);
    expect(sequencer.isEnding()).toBe(true);
    sequencer.responseDone();
    expect(log).toEqual(['create:farewell']);
    sequencer.responseStarted();
    sequencer.agentAudio();
    sequencer.responseDone();
    expect(log).toEqual(['create:farewell', 'farewell_done']);
  });

  it('requests nothing more when end_call came in the same response as the goodbye audio', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.agentAudio();
    sequencer.toolAnswered(true);
    sequencer.responseDone();
    expect(log).toEqual(['farewell_done']);
  });

  it('counts audio after the call in that response as the goodbye too', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.toolAnswered(true);
    sequencer.agentAudio();
    sequencer.responseDone();
    expect(log).toEqual(['farewell_done']);
  });

  it('treats a spoken response carrying an industry call and end_call as the goodbye: one farewell, no request', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.agentAudio();
    sequencer.toolAnswered(false);
    sequencer.toolAnswered(true);
    sequencer.responseDone();
    expect(log).toEqual(['farewell_done']);
  });

  it('does not count audio of an earlier response as the goodbye', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.agentAudio();
    sequencer.responseDone();
    sequencer.responseStarted();
    sequencer.toolAnswered(true);
    sequencer.responseDone();
    expect(log).toEqual(['create:farewell']);
  });

  it('reports the farewell done when the requested goodbye comes back silent', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.toolAnswered(true);
    sequencer.responseDone();
    sequencer.responseStarted();
    sequencer.responseDone();
    expect(log).toEqual(['create:farewell', 'farewell_done']);
  });

  it('answers a call made by a silent farewell response before reporting the farewell done', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.toolAnswered(true);
    sequencer.responseDone();
    sequencer.responseStarted();
    sequencer.toolAnswered(false);
    sequencer.responseDone();
    expect(log).toEqual(['create:farewell', 'create:tool_outputs']);
    sequencer.responseStarted();
    sequencer.agentAudio();
    sequencer.responseDone();
    expect(log).toEqual(['create:farewell', 'create:tool_outputs', 'farewell_done']);
  });

  it('requests the goodbye at once for a session tool reported outside a response', () => {
    const { log, sequencer } = spy();
    sequencer.toolAnswered(true);
    expect(log).toEqual(['create:farewell']);
  });

  it('reports the farewell once and requests nothing after it, even for a second session tool', () => {
    const { log, sequencer } = spy();
    sequencer.responseStarted();
    sequencer.agentAudio();
    sequencer.toolAnswered(true);
    sequencer.responseDone();
    sequencer.responseStarted();
    sequencer.toolAnswered(true);
    sequencer.toolAnswered(false);
    sequencer.responseDone();
    sequencer.toolAnswered(false);
    expect(log).toEqual(['farewell_done']);
  });
});

describe('ResponseSequencer: barge-in', () => {
  it('reports a response open from its start to its done, whoever asked for it', () => {
    const { sequencer } = spy();
    expect(sequencer.hasOpenResponse()).toBe(false);
    sequencer.nudge();
    expect(sequencer.hasOpenResponse()).toBe(false); // requested, not started
    sequencer.responseStarted();
    expect(sequencer.hasOpenResponse()).toBe(true);
    sequencer.responseDone();
    expect(sequencer.hasOpenResponse()).toBe(false);
  });
});
