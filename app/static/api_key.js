// API keys (API_KEYS on the server): entered on the page, kept in localStorage, sent with every
// request as a Bearer header (the stream and downloads are fetched too, so the key never goes
// into a URL). URLs stay relative, so the page works behind a path prefix.

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

/** Download `url` as `filename` with the key in a header (a link cannot send one). */
export async function downloadWithKey(url, filename) {
  const response = await apiFetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const blob = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = blob;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(blob), 60_000);
}

/**
 * Ask the service whom the stored key acts for: {ok, keyNeeded, userId, users}. `ok` is false
 * when a key is needed and the stored one (if any) is refused; `userId` is a bound key's one
 * user, `users` all of a bound key's users.
 */
export async function whoami() {
  const response = await apiFetch(WHOAMI_URL);
  if (response.status === 401) return { ok: false, keyNeeded: true, userId: null, users: null };
  const envelope = await response.json().catch(() => null);
  const data = envelope?.data ?? {};
  return {
    ok: response.ok,
    keyNeeded: Boolean(data.keys_required),
    userId: data.user_id ?? null,
    users: data.users ?? null, // a key's users; null: any (or keys off)
    datasets: data.datasets ?? null, // null: an older service that does not say
  };
}

/**
 * Resolve to whom the key acts for, asking for a key (`await prompt()`) while the service
 * refuses the stored one; null when the person gave none.
 */
export async function ensureApiKey(prompt) {
  for (;;) {
    const who = await whoami();
    if (who.ok) return who;
    const entered = ((await prompt()) || "").trim();
    if (!entered) return null;
    storeKey(entered);
  }
}
