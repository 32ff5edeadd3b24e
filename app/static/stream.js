// A run's events read with fetch over POST (the stream route speaks SSE to a POST), so the page
// sees each HTTP status and header an EventSource hides: a 401, 403 or 429 gets its own message.
// A stream cut before its `end` is picked up again with Last-Event-ID, as a browser would.

import { authHeaders } from "./api_key.js";

export const STREAM_URL = "api/v0/ask_react_agent_stream";
// The server resumes from Last-Event-ID; give up after this many cuts in a row.
const MAX_RECONNECTS = 3;

/** Split SSE text into complete events ({id, data}); returns [events, the unfinished rest]. */
export function parseSse(buffer) {
  const events = [];
  const blocks = buffer.replace(/\r\n?/g, "\n").split("\n\n");
  const rest = blocks.pop();
  for (const block of blocks) {
    const data = [];
    let id = null;
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue; // a comment: the server's keep-alive
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") data.push(value);
      else if (field === "id") id = value;
    }
    if (data.length) events.push({ id, data: data.join("\n") });
  }
  return [events, rest];
}

async function failureOf(response) {
  const envelope = await response.json().catch(() => null);
  return {
    status: response.status,
    envelope: envelope ?? { code: response.status, message: "" },
    retryAfter: Number(response.headers.get("Retry-After")) || null,
  };
}

/**
 * Follow one run: POST `body`, call `onEvent({data, lastEventId, retryAfter})` per event,
 * `onFailure({status, envelope, retryAfter})` for a refused request, `onCut(attempt)` while
 * reconnecting and `onLost()` once it gives up. Returns {close()}; `close` stops reading.
 * `url` and `authorize(headers)` (a promise of the headers with the key) are the page's unless
 * given: an embedded chat (<sql-agent-chat>) asks its service with its host's key.
 */
export function openStream(
  body,
  { onEvent, onFailure, onCut, onLost },
  { url = STREAM_URL, authorize = async (headers) => authHeaders(headers) } = {},
) {
  const abort = new AbortController();
  const state = { closed: false, lastEventId: "", cuts: 0 };
  const close = () => {
    if (state.closed) return;
    state.closed = true;
    abort.abort();
  };
  (async () => {
    while (!state.closed) {
      const headers = { "Content-Type": "application/json", Accept: "text/event-stream" };
      if (state.lastEventId) headers["Last-Event-ID"] = state.lastEventId;
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: await authorize(headers),
          body: JSON.stringify(body),
          signal: abort.signal,
          cache: "no-store",
        });
        if (response.status === 204) break; // the run has nothing more to send
        if (!response.ok) {
          close();
          onFailure(await failureOf(response));
          return;
        }
        const retryAfter = Number(response.headers.get("Retry-After")) || null;
        await readEvents(response, state, (event) => onEvent({ ...event, retryAfter }));
      } catch (error) {
        if (state.closed || error?.name === "AbortError") return;
      }
      if (state.closed) return;
      state.cuts += 1;
      if (state.cuts > MAX_RECONNECTS) break;
      onCut(state.cuts);
    }
    if (!state.closed) {
      close();
      onLost();
    }
  })();
  return { close };
}

async function readEvents(response, state, handle) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done || state.closed) break;
    let events;
    [events, buffer] = parseSse(buffer + decoder.decode(value, { stream: true }));
    for (const event of events) {
      if (state.closed) break;
      if (event.id && event.id !== state.lastEventId) {
        state.lastEventId = event.id;
        state.cuts = 0; // the stream moves on: a later cut starts counting again
      }
      handle({ data: event.data, lastEventId: event.id ?? "" });
    }
  }
  if (state.closed) await reader.cancel().catch(() => {});
}
