// Under an answer: which earlier messages were recalled for it (contract §5a), collapsed.
//
// Memory's archive of folded turns is searched for each question; what it found went to
// the model as quoted background. The run says so in a `thread-memory-recall` custom
// event (stream.js hands it to `onCustom`), and the answer keeps the same list in its
// `additional_kwargs.aimind_recalled`, so a reload shows it again (chat_thread.js).
// Everything this element says is in RECALLED_TEXT; text only ever goes in through
// textContent.

import { timeElement } from "./time.js";

export const RECALL_EVENT = "thread-memory-recall";
const RECALLED_KEY = "aimind_recalled";

const RECALLED_TEXT = {
  en: {
    summary: (n) => (n === 1 ? "Recalled 1 earlier message" : `Recalled ${n} earlier messages`),
    title: "Earlier messages memory looked up for this answer and gave the model as background",
    user: "You",
    assistant: "Assistant",
  },
  zh: {
    summary: (n) => `回顾了 ${n} 条更早的消息`,
    title: "回答前从记忆中查到、作为背景交给模型的更早消息",
    user: "你",
    assistant: "助手",
  },
};
const text = () =>
  RECALLED_TEXT[(navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en"];

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
  const words = text();
  const box = document.createElement("details");
  box.className = "recalled";
  const summary = document.createElement("summary");
  summary.textContent = words.summary(hits.length);
  summary.title = words.title;
  const list = document.createElement("ul");
  for (const hit of hits) {
    const entry = document.createElement("li");
    const who = document.createElement("span");
    who.className = "recalled-who";
    who.textContent = words[hit.role] ?? words.assistant;
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
