// AI Mind chat page: the composer and its commands, "New conversation", and the start-up
// restore. Chat turns are stateless `chat` runs over the LangGraph REST API; the server
// builds the model's context from chat memory. The rest lives in modules by concern:
// stream.js (runs), review.js (/tasklist cards), delivery.js (/delivery), memory_panel.js,
// restore.js (reload), view.js (DOM), actions.js (busy state).

import { isBusy, runAction } from "./actions.js";
import { DELIVERY_GRAPH, DELIVERY_PREFIX, hideProgress, runDelivery } from "./delivery.js";
import { EMPTY_ANSWER, HumanError, request, searchThreads, threadPath, uuid } from "./http.js";
import { resetMemoryPanel, truncation, turnStarted } from "./memory_panel.js";
import { HYDRATE_PATH, restorePage } from "./restore.js";
import {
  closeOpenCards, recheckOpenCards, runTasklist, TASKLIST_GRAPH, TASKLIST_PREFIX,
} from "./review.js";
import { lastAiAnswer, streamRun } from "./stream.js";
import {
  addMessage, askConfirm, clearError, finishMessage, markTruncated, scrollToEnd, setText,
  showActivity, showError, ui,
} from "./view.js";

const CHAT_GRAPH = "chat";
const THREADS_PER_SEARCH = 100;

async function sendChat(text) {
  const bubble = addMessage("assistant", "", { streaming: true });
  const texts = new Map();
  let current = "";
  try {
    const result = await streamRun(
      "/runs/stream",
      {
        assistant_id: CHAT_GRAPH,
        input: { messages: [{ type: "human", content: text, id: uuid() }] },
      },
      {
        onToken(id, piece, chunk) {
          current = id;
          texts.set(id, chunk ? (texts.get(id) ?? "") + piece : piece);
          setText(bubble, texts.get(id));
          scrollToEnd();
        },
      },
    );
    const answer = lastAiAnswer(result.values) ?? texts.get(current) ?? "";
    if (!answer.trim()) throw new HumanError(EMPTY_ANSWER);
    setText(bubble, answer);
    finishMessage(bubble);
  } catch (error) {
    if (!(texts.get(current) ?? "").trim()) bubble.remove();
    else finishMessage(bubble, "failed");
    throw error;
  }
}

// --- composer --------------------------------------------------------------------------

const COMMANDS = [
  [TASKLIST_PREFIX, runTasklist, "Add a goal after /tasklist, for example: /tasklist plan the launch."],
  [DELIVERY_PREFIX, runDelivery, "Add a requirement after /delivery, for example: /delivery a login page."],
];

/** ``{run, stored}``: what to do with the typed text, and the text memory will keep. */
function dispatch(text) {
  for (const [prefix, run, usage] of COMMANDS) {
    if (text === prefix || text.startsWith(`${prefix} `) || text.startsWith(`${prefix}\n`)) {
      const argument = text.slice(prefix.length).trim();
      if (!argument) {
        showError(usage);
        return null;
      }
      return { run: () => run(argument), stored: argument };
    }
  }
  return { run: () => sendChat(text), stored: text };
}

/** Memory cuts a long message (it counts characters, not UTF-16 units): ask first. */
async function acceptCut(stored) {
  const cut = truncation();
  const length = [...stored].length;
  if (!cut || length <= cut.cap) return true;
  return askConfirm(
    `This message is ${length.toLocaleString("en")} characters long. Chat memory keeps only ` +
      `the first ${cut.cap.toLocaleString("en")} characters of a message, so later turns ` +
      "will see it cut. Send it anyway?",
    "Send anyway",
  );
}

async function submit() {
  if (isBusy()) return;
  const text = ui.composer.value.trim();
  if (!text) {
    ui.composer.focus();
    return;
  }
  clearError();
  const action = dispatch(text);
  if (!action) return;
  if (!(await acceptCut(action.stored))) {
    ui.composer.focus();
    return;
  }
  ui.composer.value = "";
  closeOpenCards();
  hideProgress();
  turnStarted();
  const bubble = addMessage("user", text);
  const cut = truncation();
  if (cut && [...action.stored].length > cut.cap) markTruncated(bubble, cut.cap);
  runAction(action.run);
}

// --- new conversation ------------------------------------------------------------------

/** Delete the session's agent threads (its reviews, tasklists and reports), so a reload
 *  does not bring the old conversation's back. */
async function forgetAgentThreads() {
  let failed = false;
  for (const graph of [TASKLIST_GRAPH, DELIVERY_GRAPH]) {
    for (;;) {
      const threads = await searchThreads({
        metadata: { graph_id: graph }, limit: THREADS_PER_SEARCH,
      });
      const results = await Promise.allSettled(
        threads.map((t) => request("DELETE", threadPath(t.thread_id))),
      );
      if (results.some((r) => r.status === "rejected")) {
        failed = true;
        break;
      }
      if (threads.length < THREADS_PER_SEARCH) break;
    }
  }
  if (failed) {
    throw new HumanError(
      "Memory was cleared, but some earlier tasklists could not be removed; they may come back after a reload.",
    );
  }
}

async function newConversation() {
  if (isBusy()) return;
  const confirmed = await askConfirm(
    "Start a new conversation? This clears the chat memory of this session — the summary " +
      "and the pinned decisions too — and removes its tasklists, reviews and delivery " +
      "reports. It cannot be undone.",
    "Clear memory",
  );
  if (!confirmed) {
    ui.reset.focus();
    return;
  }
  await runAction(async () => {
    await request("DELETE", HYDRATE_PATH);
    closeOpenCards();
    ui.messages.replaceChildren();
    ui.restored.hidden = true;
    hideProgress();
    resetMemoryPanel();
    showActivity("Started a new conversation; memory was cleared.");
    await forgetAgentThreads();
  }, { refresh: false });
  ui.composer.focus();
}

// --- wiring ----------------------------------------------------------------------------

document.getElementById("composer-form").addEventListener("submit", (event) => {
  event.preventDefault();
  submit();
});
ui.composer.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    submit();
  }
});
ui.reset.addEventListener("click", newConversation);
document.getElementById("memory-panel").addEventListener("toggle", scrollToEnd);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") recheckOpenCards();
});

(async () => {
  await runAction(async () => {
    ui.restored.hidden = !(await restorePage());
  }, { refresh: false });
  document.body.dataset.ready = "true";
})();
