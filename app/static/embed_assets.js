// What an embedded chat (<sql-agent-chat>) takes from the page: the libraries index.html loads
// with the page (the rest come with the first answer that needs them: lazy.js), its style
// sheets, and the cards' markup of index.html.

// Each library's global, checked first: a host page that has it already keeps its own.
const LIBRARIES = [
  ["marked", "vendor/marked/marked.umd.js"],
  ["DOMPurify", "vendor/dompurify/purify.min.js"],
];
// The lazy libraries' sheets too: lazy.js adds them to the host's document, not to the shadow root.
const STYLES = [
  "vendor/highlight/github.min.css",
  "app.css",
  "chat.css",
];
// The page's parts the chat shows in its shadow root, found by their ids in index.html.
const PAGE_PARTS = ["error-box", "approval-card", "clarification-card"];

const loading = new Map(); // script URL → its load, shared by every chat on the host page

function loadScript(url) {
  if (!loading.has(url)) {
    loading.set(
      url,
      new Promise((resolve) => {
        const script = document.createElement("script");
        script.src = url;
        script.async = false;
        // A library that fails to load is done without: the modules fall back to plain text.
        script.onload = script.onerror = () => resolve();
        document.head.append(script);
      }),
    );
  }
  return loading.get(url);
}

/** Load the vendored libraries from `base` (the service's static folder) into the host page. */
export function loadLibraries(base) {
  const missing = LIBRARIES.filter(([global]) => !window[global]);
  return Promise.all(missing.map(([, path]) => loadScript(new URL(path, base).href)));
}

/** Return <link> elements of the page's style sheets and `own` (paths under `base`). */
export function styleLinks(base, own) {
  return [...STYLES, ...own].map((path) => {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = new URL(path, base).href;
    return link;
  });
}

/** Return copies of the page's error box and cards (from index.html under `base`), by id. */
export async function pageParts(base) {
  const response = await fetch(new URL("index.html", base));
  if (!response.ok) throw new Error(`index.html: HTTP ${response.status}`);
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  return PAGE_PARTS.map((id) => {
    const part = page.getElementById(id);
    if (!part) throw new Error(`index.html has no #${id}`);
    return document.importNode(part, true);
  });
}
