// "Remember" on a message of the conversation, the user's or the assistant's: pins its text
// — or only the part of it the user selected — with what the page knows of that message
// (its id, who said it, when if the page saw it said, and its words when the pin is a
// shortened version of them), so the pin's source is that message even when it is older
// than memory's window (contract §9a, POST /api/chat/memory/pins). A pin holds at most a few
// hundred characters: a longer text opens an editor under the message to shorten it
// first, and says so.
//
// A message a pin of the user's names as its source shows "Remembered": the state comes
// from memory (the panel's pins, read after every action and on load), so it survives a
// reload, and an unpinned message says "Remember" again.

import { textEditor } from "./editor.js";
import { HumanError } from "./http.js";
import { t } from "./i18n.js";
import { pinText } from "./memory_api.js";
import { memoryLimits, refreshMemoryPanel, truncation } from "./memory_panel.js";
import { clearError, showActivity, showError, ui } from "./view.js";

const ROLES = new Set(["user", "assistant"]);
const chars = (text) => [...text].length;

/** The selection inside ``item``'s text, captured before the click can clear it. */
let selected = null;

function selectionIn(item) {
  const text = item?.querySelector(".text");
  const selection = window.getSelection();
  if (!text || !selection || selection.isCollapsed || !selection.rangeCount) return null;
  const range = selection.getRangeAt(0);
  if (!text.contains(range.startContainer) || !text.contains(range.endContainer)) return null;
  const picked = selection.toString().trim();
  return picked ? { item, text: picked } : null;
}

/** What "Remember" pins: the selection inside the message, else its whole text as shown. */
function textToPin(item) {
  const now = selectionIn(item);
  if (now) return now.text;
  if (selected?.item === item) return selected.text;
  return (item.querySelector(".text")?.innerText ?? "").trim();
}

/** What the page knows of ``item``'s message; ``words``: the text the pin was taken from,
 *  sent only when the pin does not say it word for word (it was shortened). */
function messageOf(item, pinned, words) {
  if (!item.dataset.messageId) return {};
  const cap = truncation()?.cap;
  return {
    messageId: item.dataset.messageId,
    role: ROLES.has(item.dataset.role) ? item.dataset.role : undefined,
    createdAt: item.dataset.createdAt,
    excerpt: words && words !== pinned ? [...words].slice(0, cap).join("") : undefined,
  };
}

async function pinAndSay(item, text, control, words = text) {
  await pinText(text, messageOf(item, text, words));
  showRemembered(control, true);
  showActivity(t("remember.done", { text: text.length > 80 ? `${text.slice(0, 79)}…` : text }));
  await refreshMemoryPanel();
}

function openShortener(item, text, control) {
  if (item.querySelector(".editor")) return item.querySelector(".editor textarea")?.focus();
  const cap = memoryLimits().pinChars;
  const close = () => {
    editor.element.remove();
    control.hidden = false;
    control.focus();
  };
  const editor = textEditor({
    label: t("remember.editorLabel"),
    text,
    cap,
    rows: 5,
    saveLabel: t("message.remember"),
    note: t("remember.tooLong", { cap, length: chars(text) }),
    onCancel: close,
    async onSave(value) {
      await pinAndSay(item, value, control, text);
      close();
    },
  });
  control.hidden = true;
  item.append(editor.element);
  editor.focus();
}

async function remember(item, control) {
  clearError();
  const text = textToPin(item);
  selected = null;
  if (!text) return;
  if (chars(text) > memoryLimits().pinChars) {
    openShortener(item, text, control);
    return;
  }
  control.disabled = true;
  try {
    await pinAndSay(item, text, control);
  } catch (failure) {
    showError(failure instanceof HumanError ? failure.message : t("error.page"));
    if (!(failure instanceof HumanError)) console.error(failure);
  } finally {
    control.disabled = false;
  }
}

const rememberButton = (event) => event.target.closest?.("button.remember");

ui.messages.addEventListener("pointerdown", (event) => {
  const control = rememberButton(event);
  if (control) selected = selectionIn(control.closest("li.message"));
});
ui.messages.addEventListener("click", (event) => {
  const control = rememberButton(event);
  if (control) remember(control.closest("li.message"), control);
});

// --- remembered, as memory says ------------------------------------------------------------

/** The ids of the messages the user's pins came from. */
let remembered = new Set();

function showRemembered(control, yes) {
  control.textContent = t(yes ? "message.remembered" : "message.remember");
  control.title = t(yes ? "message.rememberedTitle" : "message.rememberTitle");
  control.dataset.remembered = String(yes);
}

function markItem(item) {
  const control = item?.querySelector(":scope > .message-head > button.remember");
  if (control) showRemembered(control, remembered.has(item.dataset.messageId));
}

/** The panel read memory's pins: each message says whether one of the user's pins came from it. */
document.addEventListener("memory-pins", (event) => {
  const pins = Array.isArray(event.detail) ? event.detail : [];
  remembered = new Set(
    pins.filter((pin) => pin?.origin === "user")
      .flatMap((pin) => (Array.isArray(pin.sources) ? pin.sources : []))
      .map((source) => String(source?.messageId ?? ""))
      .filter(Boolean),
  );
  for (const item of ui.messages.querySelectorAll("li.message[data-message-id]")) markItem(item);
});
document.addEventListener("message-finished", (event) => markItem(event.detail));
