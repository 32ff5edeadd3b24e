// Which conversation an embedded chat (<sql-agent-chat>) shows, kept across reloads of its host
// page: per service and per element, in the tab's sessionStorage (`remember="session"`, the
// default), the browser's localStorage (`remember="local"`) or nowhere (`remember="off"`).

const KEY_PREFIX = "sql-agent-chat";

function storageOf(mode) {
  try {
    if (mode === "off") return null;
    return mode === "local" ? window.localStorage : window.sessionStorage;
  } catch {
    return null; // storage denied to the host page (a sandboxed frame): the chat keeps none
  }
}

/** Return where a chat keeps its conversation id ({storage, key}), or null when it keeps none. */
export function conversationPlace(mode, service, name) {
  const storage = storageOf(mode);
  return storage ? { storage, key: `${KEY_PREFIX}|${service}|${name}` } : null;
}

/** Return the conversation id kept at `place`, or "". */
export function keptConversation(place) {
  try {
    return place?.storage.getItem(place.key) || "";
  } catch {
    return "";
  }
}

/** Keep `id` at `place` (nothing when `id` is empty: a new conversation starts). */
export function keepConversation(place, id) {
  try {
    if (id) place?.storage.setItem(place.key, id);
    else place?.storage.removeItem(place.key);
  } catch {
    // a full or denied storage: the chat still works, it only forgets on a reload
  }
}
