// Under an answer: which earlier messages were recalled for it (contract §5a), collapsed.
//
// Memory's archive of folded turns is searched for each question; what it found went to
// the model as quoted background. The run says so in a `thread-memory-recall` custom
// event (stream.js hands it to `onCustom`), and the answer keeps the same list in its
// `additional_kwargs.aimind_recalled`, so a reload shows it again (chat_thread.js).
// Everything this element says is in catalogue.js; text only ever goes in through
// textContent.

import { t } from "./i18n.js";
import { timeElement } from "./time.js";

export const RECALL_EVENT = "thread-memory-recall";
const RECALLED_KEY = "aimind_recalled";

/** The recalled list of a stored answer (``additional_kwargs``), or []. */
export function recalledOf(message) {
  const list = message?.additional_kwargs?.[RECALLED_KEY];
  return Array.isArray(list) ? list : [];
}

/** The recalled list a custom stream event carries, or null for any other event. */
export function recalledIn(event) {
  return event?.type === RECALL_EVENT && Array.isArray(event.recalled) ? event.recalled : null;
}

/** Put the collapsed "Recalled N earlier messages" under the answer ``item`` (nothing for
 *  an empty list; once per answer). */
export function showRecalled(item, recalled) {
  const hits = (recalled ?? []).filter((hit) => typeof hit?.text === "string" && hit.text);
  if (!item || !hits.length || item.querySelector(".recalled")) return;
  const box = document.createElement("details");
  box.className = "recalled";
  const summary = document.createElement("summary");
  summary.textContent = t("recalled.summary", { count: hits.length });
  summary.title = t("recalled.title");
  const list = document.createElement("ul");
  for (const hit of hits) {
    const entry = document.createElement("li");
    const who = document.createElement("span");
    who.className = "recalled-who";
    who.textContent = t(hit.role === "user" ? "role.user" : "role.assistant");
    const when = timeElement(hit.createdAt);
    const said = document.createElement("q");
    said.textContent = hit.text;
    entry.append(who, ...(when ? [" · ", when] : []), " ", said);
    if (Array.isArray(hit.messageIds)) entry.dataset.messageIds = hit.messageIds.join(" ");
    list.append(entry);
  }
  box.append(summary, list);
  item.append(box);
}
