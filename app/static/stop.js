// Stopping a run on the server: the stream is closed already; this ends the run at once on
// whichever worker runs it, instead of after the resume grace.

import { apiFetch } from "./api_key.js";

/** Ask the service to cancel run `runId` of `userId` (quietly: the grace ends it anyway). */
export function cancelRun(runId, userId) {
  if (!runId) return;
  apiFetch(`api/v0/react/runs/${encodeURIComponent(runId)}/cancel`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(userId ? { user_id: userId } : {}),
  }).catch(() => {});
}
