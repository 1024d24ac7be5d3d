// The routes that correct memory (contract §9a), one place: each answers an error with one
// sentence written for people, which the page shows as it is.

import { requestJson } from "./http.js";

export const MEMORY_PATH = "/api/chat/memory";
const PINS_PATH = `${MEMORY_PATH}/pins`;
const SUMMARY_PATH = `${MEMORY_PATH}/summary`;
const SESSION_PATH = "/api/chat/session";
const SENTENCES = { sentences: true };

const pinPath = (id) => `${PINS_PATH}/${encodeURIComponent(id)}`;

/** Pin ``text`` ("remember this"). ``from``: what the page knows of the message it came
 *  from — ``{messageId, role, createdAt, excerpt}``, each optional — so the pin names that
 *  message even when memory's window no longer holds it. */
export function pinText(text, from = {}) {
  const known = Object.entries(from).filter(([, value]) => value);
  return requestJson("POST", PINS_PATH, { text, ...Object.fromEntries(known) }, SENTENCES);
}

/** Change a pin's text (it becomes the user's). */
export const editPin = (id, text) => requestJson("PATCH", pinPath(id), { text }, SENTENCES);

/** Unpin: no later compaction pins it again from the same messages. */
export const unpin = (id) => requestJson("DELETE", pinPath(id), undefined, SENTENCES);

/** Replace the summary (blank clears it). */
export const setSummary = (text) => requestJson("PUT", SUMMARY_PATH, { text }, SENTENCES);

/** Forget the session everywhere: its memory and every thread it owns. */
export const forgetSession = () => requestJson("DELETE", SESSION_PATH, undefined, SENTENCES);
