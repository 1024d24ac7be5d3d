// JSON requests to our routes and the LangGraph REST API, with errors turned into sentences.

import { t } from "./i18n.js";

/** An error whose message is a sentence fit to show a person; ``status`` is the HTTP
 *  status that caused it, if one did. */
export class HumanError extends Error {
  constructor(message, status = null) {
    super(message);
    this.status = status;
  }
}

export const NETWORK_ERROR = t("error.network");
export const EMPTY_ANSWER = t("error.emptyAnswer");

/** A sentence for an HTTP error status (the server's own detail is for developers). */
export function httpError(status) {
  return new HumanError(STATUS_SENTENCES[status] ?? SERVER_PROBLEM, status);
}

const REFUSED_SESSION = t("error.session");
const NOT_ACCEPTED = t("error.notAccepted");
const SERVER_PROBLEM = t("error.server");
const STATUS_SENTENCES = {
  400: NOT_ACCEPTED,
  401: REFUSED_SESSION,
  403: REFUSED_SESSION,
  404: t("error.notFound"),
  409: t("error.busy"),
  413: NOT_ACCEPTED,
  422: NOT_ACCEPTED,
};

export function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const MAX_SENTENCE = 300;

/** The one-sentence ``detail`` of a route's JSON error, or null (no JSON, a list of
 *  validation errors, or something too long to be a sentence). */
async function routeSentence(response) {
  try {
    const detail = (await response.json())?.detail;
    return typeof detail === "string" && detail.trim() && detail.length <= MAX_SENTENCE
      ? detail.trim()
      : null;
  } catch {
    return null;
  }
}

const READS = new Set(["GET", "HEAD"]);

/** fetch with the session cookie; rejects with a HumanError on a network or HTTP error.
 *  Every change is sent as JSON, with a body or without: the servers refuse a change that
 *  only the cookie authenticates in any other type (no cross-site writes, contract §8).
 *  ``{sentences: true}``: a route whose errors are written for people (the memory edit
 *  routes, contract §9a) is quoted, except a refused session, which only a reload mends. */
export async function request(method, path, body, accept = "application/json", { sentences = false } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: READS.has(method)
        ? { Accept: accept }
        : { Accept: accept, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new HumanError(NETWORK_ERROR);
  }
  if (!response.ok) {
    const own = sentences && response.status !== 401 && response.status !== 403
      ? await routeSentence(response)
      : null;
    throw own ? new HumanError(own, response.status) : httpError(response.status);
  }
  return response;
}

export async function requestJson(method, path, body, options) {
  const response = await request(method, path, body, "application/json", options);
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
