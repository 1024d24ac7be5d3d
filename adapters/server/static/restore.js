// A reload rebuilds the whole page from the server:
// - the conversation from chat memory (GET /api/chat/thread). Memory keeps a /tasklist goal
//   or a /delivery requirement without its command; the answer's id says which it was (the
//   goal's id + ":tasklist-summary", the requirement's id + ":delivery-report"), so the
//   prefix is put back. A message memory cut is marked.
// - from the session's agent threads (threads.search, owner-scoped by the server, then each
//   one's GET /threads/{id}/state: the calls both servers, langgraph dev and Aegra, serve
//   alike): the last finished tasklist and delivery report in full (memory keeps only the
//   tasklist's one-line summary), placed after their turn, or first when memory has
//   compacted that turn away; and a pending review or question as a working card — unless
//   something newer happened in the conversation since (then it stays closed, as it was on
//   the page).

import { requestJson, searchThreads, withState } from "./http.js";
import { DELIVERY_GRAPH, DELIVERY_PREFIX, REPORT_ID_SUFFIX } from "./delivery.js";
import { refreshMemoryPanel, truncation } from "./memory_panel.js";
import {
  SUMMARY_ID_SUFFIX, TASKLIST_GRAPH, TASKLIST_PREFIX, openCard, threadInterrupts,
} from "./review.js";
import { addMessage, addReport, finishMessage, markTruncated, ui } from "./view.js";

export const HYDRATE_PATH = "/api/chat/thread";
const REPORT_START = /^#{1,2} \S/;
const FINISHED_DELIVERY = new Set(["completed", "blocked"]);
const FINISHED_TASKLIST = "final";
const THREADS_LOOKED_AT = 5;
const NEWEST = { sort_by: "updated_at", sort_order: "desc", limit: THREADS_LOOKED_AT };

const time = (iso) => Date.parse(iso ?? "") || 0;

/** The session's newest threads of ``graph`` (``query`` narrows), with their state. */
async function newestThreads(graph, query = {}) {
  const threads = await searchThreads({ ...NEWEST, ...query, metadata: { graph_id: graph } });
  return Promise.all(threads.map(withState));
}

/** The newest pending tasklist thread, finished tasklist and finished delivery, if any. */
async function agentThreads() {
  const [tasklists, deliveries] = await Promise.all([
    newestThreads(TASKLIST_GRAPH),
    newestThreads(DELIVERY_GRAPH, { status: "idle" }),
  ]);
  return {
    pending: tasklists.find((t) => threadInterrupts(t).length) ?? null,
    tasklist: tasklists.find(
      (t) => t.values?.status === FINISHED_TASKLIST && typeof t.values?.artifact === "string",
    ) ?? null,
    delivery: deliveries.find(
      (t) => FINISHED_DELIVERY.has(t.values?.status) && typeof t.values?.report === "string",
    ) ?? null,
  };
}

/** The memory window as page items; returns them by message id. */
function renderMemory(messages, fullReports) {
  const ids = new Set(messages.map((m) => String(m?.id ?? "")));
  const cut = truncation();
  const items = new Map();
  for (const message of messages) {
    const id = String(message?.id ?? "");
    const role = message?.role === "user" ? "user" : "assistant";
    let text = String(message?.text ?? "");
    const truncated = Boolean(cut && text.endsWith(cut.marker));
    if (truncated) text = text.slice(0, -cut.marker.length);
    let item;
    if (role === "user") {
      const command = ids.has(`${id}${SUMMARY_ID_SUFFIX}`)
        ? TASKLIST_PREFIX
        : ids.has(`${id}${REPORT_ID_SUFFIX}`) ? DELIVERY_PREFIX : "";
      item = addMessage("user", command ? `${command} ${text}` : text);
    } else if (fullReports.has(id)) {
      item = addReport(fullReports.get(id)); // the agent thread's report is never cut
    } else if (id.endsWith(REPORT_ID_SUFFIX) || REPORT_START.test(text)) {
      item = addReport(text);
    } else {
      item = addMessage("assistant", text);
    }
    finishMessage(item);
    if (id) item.dataset.messageId = id;
    if (truncated && !fullReports.has(id)) markTruncated(item, cut.cap);
    items.set(id, item);
  }
  return items;
}

/** Put a finished agent result after its turn, or first when memory no longer holds it. */
function placeAfter(items, messageId, report) {
  const anchor = items.get(messageId);
  if (anchor) anchor.after(report);
  else ui.messages.prepend(report);
}

/** Rebuild the page; returns whether anything was restored. */
export async function restorePage() {
  const dto = await requestJson("GET", HYDRATE_PATH); // mints the session cookie first
  const [agents] = await Promise.all([
    agentThreads().catch(() => ({ pending: null, tasklist: null, delivery: null })),
    refreshMemoryPanel(),
  ]);
  const messages = Array.isArray(dto?.messages) ? dto.messages : [];
  const { pending, tasklist, delivery } = agents;
  const fullReports = new Map();
  if (delivery?.values?.report_message_id) {
    fullReports.set(String(delivery.values.report_message_id), delivery.values.report);
  }
  ui.messages.replaceChildren();
  const items = renderMemory(messages, fullReports);
  const finished = [tasklist, delivery].filter(Boolean).sort((a, b) => time(b.updated_at) - time(a.updated_at));
  for (const thread of finished) {
    if (thread === delivery) {
      if (!items.has(String(thread.values.report_message_id))) {
        placeAfter(items, null, addReport(thread.values.report, { append: false }));
      }
    } else {
      const summaryId = `${thread.values.goal_message_id ?? ""}${SUMMARY_ID_SUFFIX}`;
      placeAfter(items, summaryId, addReport(thread.values.artifact, { append: false }));
    }
  }
  const newest = Math.max(0, ...messages.map((m) => time(m?.createdAt)), ...finished.map((t) => time(t.updated_at)));
  const interrupt = threadInterrupts(pending)[0];
  if (interrupt && time(pending.updated_at) >= newest) {
    finishMessage(addMessage("user", `${TASKLIST_PREFIX} ${String(pending.values?.goal ?? "")}`));
    openCard(pending.thread_id, interrupt);
  }
  return ui.messages.childElementCount > 0;
}
