// API keys (API_KEYS on the server): asked for once, kept in localStorage, sent with every
// request — as a Bearer header by fetch, as ?api_key= where a header cannot be sent
// (EventSource, download links).

const STORAGE = "sqlAgentApiKey";
const KEY_CHECK_URL = "v1/models";

export function storedKey() {
  return localStorage.getItem(STORAGE) || "";
}

// Resolves to the key to use ("" when the service needs none), or null when the person
// gave none. `prompt(text)` asks for it.
export async function ensureApiKey(prompt) {
  for (;;) {
    const response = await fetch(KEY_CHECK_URL, { headers: authHeaders() });
    if (response.status !== 401) return storedKey();
    const entered = (prompt() || "").trim();
    if (!entered) return null;
    localStorage.setItem(STORAGE, entered);
  }
}

export function authHeaders(headers = {}) {
  const key = storedKey();
  return key ? { ...headers, Authorization: `Bearer ${key}` } : headers;
}

export function apiFetch(url, init = {}) {
  return fetch(url, { ...init, headers: authHeaders(init.headers || {}) });
}

export function withKey(url) {
  const key = storedKey();
  if (!key) return url;
  return `${url}${url.includes("?") ? "&" : "?"}api_key=${encodeURIComponent(key)}`;
}
