/**
 * Server-sent events from a fetch body (WHATWG "Server-sent events" framing): lines, `data:` fields
 * joined by newlines, an event ending at a blank line; comments and other fields are skipped.
 * Yields each event's data text, `[DONE]` included (the caller decides what it means).
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      finished = done;
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (data.length) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
      }
      if (done) break;
    }
    if (buffer.startsWith('data:')) data.push(buffer.slice(buffer.startsWith('data: ') ? 6 : 5));
    if (data.length) yield data.join('\n');
  } finally {
    // A consumer that stops early (barge-in) cancels the body so the connection is released.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
