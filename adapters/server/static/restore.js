// A reload rebuilds the whole conversation from the server (both servers, langgraph dev and
// Aegra, serve these calls alike):
// - the chat turns from the conversation's `chat` thread: its transcript (chat_thread.js),
//   every message as the user saw it, not only memory's recent window;
// - each /tasklist and /delivery turn from its own agent thread, which names the
//   conversation and the message it followed (threads.search on that metadata, owner-scoped
//   by the server, then each one's GET /threads/{id}/state): the command, then the finished
//   tasklist or delivery report in full, or the question or review it waits on — working
//   when it is the newest thing in the conversation, closed as it was on the page when the
//   conversation moved on;
// - memory in the panel (memory_panel.js).

import {
  AFTER_KEY, CHAT_THREAD_KEY, chatThreadId, readTranscript, transcriptEnded,
} from "./chat_thread.js";
import { DELIVERY_GRAPH, DELIVERY_PREFIX, showDeliveryReport } from "./delivery.js";
import { searchThreads, withState } from "./http.js";
import { refreshMemoryPanel, truncation } from "./memory_panel.js";
import {
  TASKLIST_GRAPH, TASKLIST_PREFIX, openCard, showClosedCard, showTasklistOutcome,
  threadInterrupts,
} from "./review.js";
import { contentText } from "./stream.js";
import { showRecalled } from "./recalled.js";
import { addMessage, finishMessage, markTruncated, ui } from "./view.js";

const COMMANDS_LOOKED_AT = 100;
const PREFIX = { [TASKLIST_GRAPH]: TASKLIST_PREFIX, [DELIVERY_GRAPH]: DELIVERY_PREFIX };

/** The conversation's /tasklist and /delivery threads, with their state, oldest first. */
async function commandThreads(chatThread) {
  if (!chatThread) return [];
  const threads = await searchThreads({
    metadata: { [CHAT_THREAD_KEY]: chatThread },
    sort_by: "created_at",
    sort_order: "desc",
    limit: COMMANDS_LOOKED_AT,
  });
  const known = threads.filter((t) => PREFIX[t?.metadata?.graph_id]);
  return (await Promise.all(known.map(withState))).reverse();
}

/** A user's message as it was sent; flagged when memory keeps only its start. */
function showUserMessage(text, id, stored = text) {
  const item = addMessage("user", text, { id });
  finishMessage(item);
  const cut = truncation();
  if (cut && [...stored].length > cut.cap) markTruncated(item, cut.cap);
}

/** The command a thread ran on, as typed: ``{text, stored, id}`` (``stored``: without the
 *  command, as memory keeps it). */
function commandOf(thread) {
  const values = thread.values ?? {};
  const first = (Array.isArray(values.messages) ? values.messages : []).find((m) => m?.type === "human");
  const tasklist = thread.metadata.graph_id === TASKLIST_GRAPH;
  const stored = String((tasklist ? values.goal : values.user_text) ?? contentText(first?.content) ?? "");
  const id = (tasklist ? values.goal_message_id : values.user_message_id) ?? first?.id ?? "";
  return { text: `${PREFIX[thread.metadata.graph_id]} ${stored}`, stored, id: String(id) };
}

/** One /tasklist or /delivery turn; ``newest``: nothing came after it in the conversation. */
function showCommand(thread, newest) {
  const command = commandOf(thread);
  showUserMessage(command.text, command.id, command.stored);
  if (thread.metadata.graph_id === DELIVERY_GRAPH) {
    showDeliveryReport(thread.values);
    return;
  }
  const interrupt = threadInterrupts(thread)[0];
  if (interrupt) {
    if (newest) openCard(thread.thread_id, interrupt);
    else showClosedCard(thread.thread_id, interrupt);
  } else if (thread.values?.summary) {
    showTasklistOutcome(thread.values); // a plan never concluded shows the command alone
  }
}

/** Rebuild the page; returns whether there was a conversation to restore. */
export async function restorePage() {
  await refreshMemoryPanel(); // first: a browser without a session gets its cookie here
  const chatThread = chatThreadId();
  const [transcript, commands] = await Promise.all([
    readTranscript(),
    commandThreads(chatThread).catch(() => []),
  ]);
  const mine = chatThreadId() === chatThread ? commands : []; // its thread is gone: none
  const ids = new Set(transcript.map((m) => m.id));
  const after = new Map();
  for (const thread of mine) {
    const anchor = String(thread.metadata?.[AFTER_KEY] ?? "");
    const key = ids.has(anchor) ? anchor : ""; // "" (or a message trimmed since): first
    after.set(key, [...(after.get(key) ?? []), thread]);
  }
  const newest = transcript.length ? after.get(transcript.at(-1).id)?.at(-1) : after.get("")?.at(-1);
  ui.messages.replaceChildren();
  const showCommands = (key) => {
    for (const thread of after.get(key) ?? []) showCommand(thread, thread === newest);
  };
  showCommands("");
  for (const message of transcript) {
    if (message.role === "user") showUserMessage(message.text, message.id);
    else {
      const item = addMessage("assistant", message.text, { id: message.id });
      finishMessage(item);
      showRecalled(item, message.recalled);
    }
    showCommands(message.id);
  }
  transcriptEnded(transcript.at(-1)?.id);
  return ui.messages.childElementCount > 0;
}
