// API keys (API_KEYS on the server): entered on the page, kept in localStorage, sent with every
// request — as a Bearer header by fetch, as ?api_key= where a header cannot be sent
// (EventSource, download links). URLs stay relative, so the page works behind a path prefix.

const STORAGE = "sqlAgentApiKey";
const WHOAMI_URL = "api/v0/whoami";

export function storedKey() {
  return localStorage.getItem(STORAGE) || "";
}

export function storeKey(key) {
  if (key) localStorage.setItem(STORAGE, key);
  else localStorage.removeItem(STORAGE);
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

/**
 * Ask the service whom the stored key acts for: {ok, keyNeeded, userId}. `ok` is false when
 * a key is needed and the stored one (if any) is refused; `userId` is a bound key's one user.
 */
export async function whoami() {
  const response = await apiFetch(WHOAMI_URL);
  if (response.status === 401) return { ok: false, keyNeeded: true, userId: null };
  const envelope = await response.json().catch(() => null);
  const data = envelope?.data ?? {};
  return { ok: response.ok, keyNeeded: Boolean(data.keys_required), userId: data.user_id ?? null };
}

/**
 * Resolve to whom the key acts for, asking for a key (`prompt(text)`) while the service refuses
 * the stored one; null when the person gave none.
 */
export async function ensureApiKey(prompt) {
  for (;;) {
    const who = await whoami();
    if (who.ok) return who;
    const entered = (prompt() || "").trim();
    if (!entered) return null;
    storeKey(entered);
  }
}
