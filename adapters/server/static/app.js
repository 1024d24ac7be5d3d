// AI Mind chat page: the composer and its commands, "New conversation", "Forget
// everything", and the start-up restore. Chat turns run on the conversation's `chat` thread
// (chat_thread.js), whose transcript a reload shows whole; the server builds the model's
// context from chat memory. The rest lives in modules by concern: stream.js (runs),
// review.js (/tasklist cards), delivery.js (/delivery), memory_panel.js and memory_pins.js
// (the panel), remember.js ("Remember" on a message), restore.js (reload), view.js (DOM),
// actions.js (busy state).

import { isBusy, runAction } from "./actions.js";
import {
  ensureChatThread, forgetChatThread, transcriptEnded,
} from "./chat_thread.js";
import { DELIVERY_PREFIX, hideProgress, runDelivery } from "./delivery.js";
import { EMPTY_ANSWER, HumanError, threadPath, uuid } from "./http.js";
import { t } from "./i18n.js";
import { forgetSession } from "./memory_api.js";
import { resetMemoryPanel, truncation, turnStarted } from "./memory_panel.js";
import "./remember.js";
import { recalledIn, showRecalled } from "./recalled.js";
import { restorePage } from "./restore.js";
import { closeOpenCards, recheckOpenCards, runTasklist, TASKLIST_PREFIX } from "./review.js";
import { lastAiMessage, streamRun } from "./stream.js";
import {
  addMessage, askConfirm, clearError, finishMessage, markSaidNow, markTruncated, scrollToEnd,
  setMessageId,
  setText, showActivity, showError, ui,
} from "./view.js";

const CHAT_GRAPH = "chat";

/** One chat turn on the conversation's thread; a thread deleted meanwhile (in another
 *  tab) is replaced by a new one, once. */
async function sendChat(text, messageId) {
  const bubble = addMessage("assistant", "", { streaming: true });
  const texts = new Map();
  let current = "";
  let recalled = [];
  const run = async () => streamRun(
    `${threadPath(await ensureChatThread())}/runs/stream`,
    {
      assistant_id: CHAT_GRAPH,
      input: { messages: [{ type: "human", content: text, id: messageId }] },
    },
    {
      onToken(id, piece, chunk) {
        current = id;
        texts.set(id, chunk ? (texts.get(id) ?? "") + piece : piece);
        setText(bubble, texts.get(id));
        scrollToEnd();
      },
      onCustom(event) {
        recalled = recalledIn(event) ?? recalled;
      },
    },
  );
  try {
    let result;
    try {
      result = await run();
    } catch (error) {
      if (!(error instanceof HumanError && error.status === 404)) throw error;
      forgetChatThread();
      result = await run();
    }
    const answer = lastAiMessage(result.values, messageId) ??
      { id: current, text: texts.get(current) ?? "" };
    if (!answer.text.trim()) throw new HumanError(EMPTY_ANSWER);
    setText(bubble, answer.text);
    setMessageId(bubble, answer.id);
    markSaidNow(bubble);
    finishMessage(bubble);
    showRecalled(bubble, recalled);
    const messages = result.values?.messages;
    transcriptEnded(Array.isArray(messages) && messages.length ? messages.at(-1)?.id : answer.id);
  } catch (error) {
    if (!(texts.get(current) ?? "").trim()) bubble.remove();
    else finishMessage(bubble, "failed");
    throw error;
  }
}

// --- composer --------------------------------------------------------------------------

const COMMANDS = [
  [TASKLIST_PREFIX, runTasklist, "app.tasklistUsage"],
  [DELIVERY_PREFIX, runDelivery, "app.deliveryUsage"],
];

/** ``{run(messageId), stored}``: what to do with the typed text, and the text memory
 *  will keep. */
function dispatch(text) {
  for (const [prefix, run, usage] of COMMANDS) {
    if (text === prefix || text.startsWith(`${prefix} `) || text.startsWith(`${prefix}\n`)) {
      const argument = text.slice(prefix.length).trim();
      if (!argument) {
        showError(t(usage));
        return null;
      }
      return { run: (id) => run(argument, id), stored: argument };
    }
  }
  return { run: (id) => sendChat(text, id), stored: text };
}

/** Memory cuts a long message (it counts characters, not UTF-16 units): ask first. */
async function acceptCut(stored) {
  const cut = truncation();
  const length = [...stored].length;
  if (!cut || length <= cut.cap) return true;
  return askConfirm(t("app.longMessage", { length, cap: cut.cap }), t("app.sendAnyway"));
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
  const id = uuid();
  const bubble = addMessage("user", text, { id });
  markSaidNow(bubble);
  finishMessage(bubble);
  const cut = truncation();
  if (cut && [...action.stored].length > cut.cap) markTruncated(bubble, cut.cap);
  runAction(() => action.run(id));
}

// --- new conversation, forget everything -----------------------------------------------

/** An empty page (its cards closed, its progress bar hidden). */
function clearConversation() {
  closeOpenCards();
  ui.messages.replaceChildren();
  ui.restored.hidden = true;
  hideProgress();
}

/** A fresh chat thread (made with the next message); memory stays the session's, so the
 *  next answer still gets its summary, pins and recent turns (contract §8a). */
function newConversation() {
  if (isBusy()) return;
  clearError();
  forgetChatThread();
  clearConversation();
  showActivity(t("app.newConversationStarted"));
  ui.composer.focus();
}

/** Ask first, then erase the session everywhere: memory and every thread it owns. */
async function forgetEverything() {
  if (isBusy()) return;
  const forget = document.getElementById("forget-everything");
  if (!(await askConfirm(t("app.forgetQuestion"), t("forget.button")))) {
    forget.focus();
    return;
  }
  await runAction(async () => {
    await forgetSession();
    forgetChatThread();
    clearConversation();
    resetMemoryPanel();
    showActivity(t("app.forgotten"));
  });
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
document.getElementById("forget-everything").addEventListener("click", forgetEverything);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") recheckOpenCards();
});

(async () => {
  await runAction(async () => {
    ui.restored.hidden = !(await restorePage());
  }, { refresh: false });
  document.body.dataset.ready = "true";
})();
