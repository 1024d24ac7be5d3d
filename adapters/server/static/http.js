// JSON requests to our routes and the LangGraph REST API, with errors turned into sentences.

/** An error whose message is a sentence fit to show a person. */
export class HumanError extends Error {}

export const NETWORK_ERROR = "Could not reach the chat server. Check that it is running and try again.";
export const EMPTY_ANSWER = "The assistant finished without an answer. Try asking again.";

/** A sentence for an HTTP error status (the server's own detail is for developers). */
export function httpError(status) {
  if (status === 401 || status === 403) {
    return new HumanError(
      "Your session was not accepted. Reload the page; if this keeps happening, clear this site’s cookies.",
    );
  }
  if (status === 404) {
    return new HumanError("The server could not find that conversation. Start a new conversation and try again.");
  }
  if (status === 409) {
    return new HumanError("The server is still busy with your previous message. Wait a moment and try again.");
  }
  if (status === 400 || status === 413 || status === 422) {
    return new HumanError("The server could not accept that message. Try shortening or rephrasing it.");
  }
  return new HumanError("The chat server had a problem. Try again in a moment.");
}

export function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** fetch with the session cookie; rejects with a HumanError on a network or HTTP error. */
export async function request(method, path, body, accept = "application/json") {
  let response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined
        ? { Accept: accept }
        : { Accept: accept, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new HumanError(NETWORK_ERROR);
  }
  if (!response.ok) throw httpError(response.status);
  return response;
}

export async function requestJson(method, path, body) {
  const response = await request(method, path, body);
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/** The session's threads matching ``query`` (owner-scoped by the server's auth). Only what
 *  both servers take (no ``select``, no ``values`` filter: Aegra refuses or ignores them). */
export async function searchThreads(query) {
  const found = await requestJson("POST", "/threads/search", query);
  return Array.isArray(found) ? found : [];
}

export const threadPath = (threadId) => `/threads/${encodeURIComponent(threadId)}`;

/** ``thread`` (a search result or ``GET /threads/{id}``'s answer) with its ``values`` and the
 *  ``interrupts`` it waits on, read from ``GET /threads/{id}/state``: Aegra's thread objects
 *  carry neither. ``interrupts`` keeps the shape ``langgraph dev`` gives its threads,
 *  ``{task id: [interrupt, ...]}``; a thread whose state waits on one is ``interrupted``
 *  even when the server says ``idle`` (Aegra sets a thread idle when a run on it is
 *  cancelled, whatever its state holds). A thread
 *  with no state yet has none. */
export async function withState(thread) {
  const state = await requestJson("GET", `${threadPath(thread.thread_id)}/state`).catch(() => null);
  const waiting = (state?.tasks ?? []).filter((task) => Array.isArray(task?.interrupts) && task.interrupts.length);
  return {
    ...thread,
    status: waiting.length && thread.status === "idle" ? "interrupted" : thread.status,
    values: state?.values ?? {},
    interrupts: Object.fromEntries(waiting.map((task) => [task.id, task.interrupts])),
  };
}

/** ``GET /threads/{id}`` with its values and interrupts (``withState``). */
export async function readThread(threadId) {
  return withState(await requestJson("GET", threadPath(threadId)));
}
