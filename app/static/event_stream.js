// Server-Sent Events read from a fetch response: SSE over POST (EventSource can only GET), with
// the response's status and headers readable, and any headers (the API key) sent.

const LINE_END = /\r\n|\r|\n/;

/** Return the event of `lines` (`id:` and `data:` fields): {id, data}; null without data. */
function eventOf(lines) {
  let id = "";
  const data = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon === 0) continue; // a comment: the server's heartbeat
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  return data.length ? { id, data: data.join("\n") } : null;
}

/** Yield each event of `response`'s SSE body as {id, data} until the body ends. */
export async function* readEventStream(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let lines = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    // A chunk may end inside a line, or between \r and \n: keep that for the next one.
    const cut = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
    const parts = buffer.slice(0, cut).split(LINE_END);
    buffer = parts.pop() + buffer.slice(cut);
    for (const line of parts) {
      if (line) {
        lines.push(line);
        continue;
      }
      const event = eventOf(lines);
      lines = [];
      if (event) yield event;
    }
  }
}
