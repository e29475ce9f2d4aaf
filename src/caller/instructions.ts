import type { ChatTool } from './chat-completions.ts';
import type { CallerScript } from '../packs/index.ts';

/**
 * The caller model's instructions, written from the task alone (docs/caller.md). The model never
 * writes a pin or a closing line itself: it names which one applies and the caller says the task's
 * words. It writes text only for the short in-character line when nothing scripted applies, and
 * is told which facts it may state (the traits and the intent), which the deviation check holds
 * it to.
 */
export function callerInstructions(script: CallerScript): string {
  const facts = script.traits.length ? script.traits.map((t) => `- ${t.name.replaceAll('_', ' ')}: ${t.value}`).join('\n') : '- (none beyond your situation)';
  const turnPins = turnPinsOf(script);
  const pins = turnPins.length ? turnPins.map((p) => `${p.number}. When ${lowerFirst(p.situation)}\n   Line: "${p.line}"`).join('\n') : '(none)';
  const closing = script.closingLines.map((l, i) => `${i + 1}. "${l}"`).join('\n') || '(none given: use the first pin that ends the call, else say_line)';
  return [
    `You are role-playing a person phoning a company's voice assistant. This is a scripted test call: play the caller below and nobody else. The other side of the conversation (the user messages) is the company's assistant; your earlier turns are the assistant messages.`,
    `# Who you are\nYour name is ${script.persona}.`,
    `# Your situation, in your own brief (second person)\n${script.intent}`,
    `# Facts you know\nGive a fact only when the assistant asks for it, in the words below. You know nothing else: never make up a name, date, number, address, account or any other detail.\n${facts}`,
    `# Scripted situations\nWhen the assistant's latest turn matches a situation, call say_pin with its number; the line is spoken for you word for word. Read the NOT-clauses carefully.\n${pins}`,
    `# Closing lines\nWhen your brief says the call is over, call say_closing_line with the line's number. You hang up after it.\n${closing}`,
    [
      `# How to answer`,
      `Answer every assistant turn with exactly one tool call:`,
      `- say_pin when a scripted situation matches (it wins over everything else);`,
      `- say_closing_line when your brief says to close;`,
      `- stay_silent when nothing calls for an answer (the assistant is still working, is only acknowledging, or asked you to wait);`,
      `- say_line with one short sentence, in character, when the assistant needs an answer and no scripted line fits;`,
      `- hang_up only if the assistant has clearly gone away.`,
      `Stay on your one request; do not ask about anything else; keep every line short, as people do on the phone.`,
    ].join('\n'),
  ].join('\n\n');
}

function lowerFirst(text: string): string {
  return text ? text[0]?.toLowerCase() + text.slice(1) : text;
}

/** The pins the model may name for a turn: every pin but the duplex acts, which the caller loop plays over the agent itself. */
export function turnPinsOf(script: CallerScript): CallerScript['pins'] {
  return script.pins.filter((p) => !p.duplex);
}

/** The caller's tools: the only ways it can answer. */
export function callerTools(script: CallerScript): ChatTool[] {
  const pinNumbers = turnPinsOf(script).map((p) => p.number);
  const closingNumbers = script.closingLines.map((_, i) => i + 1);
  const tools: ChatTool[] = [];
  if (pinNumbers.length) {
    tools.push({
      type: 'function',
      function: {
        name: 'say_pin',
        description: 'Say the scripted line of the numbered situation that matches the assistant turn, word for word.',
        parameters: { type: 'object', properties: { pin: { type: 'integer', enum: pinNumbers, description: 'The situation number.' } }, required: ['pin'], additionalProperties: false },
      },
    });
  }
  if (closingNumbers.length) {
    tools.push({
      type: 'function',
      function: {
        name: 'say_closing_line',
        description: 'Say your closing line word for word, then hang up once the assistant is done.',
        parameters: { type: 'object', properties: { line: { type: 'integer', enum: closingNumbers, description: 'The closing line number.' } }, required: ['line'], additionalProperties: false },
      },
    });
  }
  tools.push(
    {
      type: 'function',
      function: {
        name: 'say_line',
        description: 'Say one short in-character sentence when no scripted line fits. State no fact you were not given.',
        parameters: { type: 'object', properties: { text: { type: 'string', description: 'What you say.' } }, required: ['text'], additionalProperties: false },
      },
    },
    { type: 'function', function: { name: 'stay_silent', description: 'Say nothing this turn.', parameters: { type: 'object', properties: {}, additionalProperties: false } } },
    { type: 'function', function: { name: 'hang_up', description: 'Hang up without a word; only when the assistant has gone away.', parameters: { type: 'object', properties: {}, additionalProperties: false } } },
  );
  return tools;
}
