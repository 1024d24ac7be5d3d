// The conversation's DOM: messages, reports, cards, the error and activity lines, and the
// confirm dialog. Text only ever arrives through textContent or the DOM-building markdown
// renderer; nothing here assigns HTML strings.

import { t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";

const ROLES = new Set(["user", "assistant"]);

const $ = (id) => document.getElementById(id);
export const ui = {
  messages: $("messages"),
  composer: $("composer"),
  reset: $("new-conversation"),
  error: $("error"),
  activity: $("activity"),
  restored: $("restored-note"),
};

export function scrollToEnd() {
  ui.messages.lastElementChild?.scrollIntoView({ block: "end" });
}

/** A message item, appended to the conversation unless ``{append: false}``; ``id`` is its
 *  message id (what "Remember" names as the pin's source). */
export function addMessage(role, text, { streaming = false, append = true, id = "" } = {}) {
  const item = document.createElement("li");
  item.className = `message ${role}`;
  item.dataset.role = role;
  if (id) item.dataset.messageId = id;
  const head = document.createElement("div");
  head.className = "message-head";
  const label = document.createElement("span");
  label.className = "role";
  label.textContent = ROLES.has(role) ? t(`role.${role}`) : role;
  head.append(label);
  const body = document.createElement("div");
  body.className = "text";
  body.textContent = text;
  item.append(head, body);
  if (streaming) {
    item.classList.add("streaming");
    item.setAttribute("aria-busy", "true");
  }
  if (append) {
    ui.messages.append(item);
    scrollToEnd();
  }
  return item;
}

/** An assistant message rendered from markdown (DOM nodes only, see markdown.js). */
export function addReport(markdown, { state = "done", append = true, id = "" } = {}) {
  const item = addMessage("assistant", "", { append, id });
  item.classList.add("report");
  item.querySelector(".text").replaceChildren(renderMarkdown(markdown));
  finishMessage(item, state);
  return item;
}

export function setText(item, text) {
  item.querySelector(".text").textContent = text;
}

/** The message is complete (``done``) or broke off (``failed``); a complete one can be
 *  remembered (remember.js handles the button). */
export function finishMessage(item, state = "done") {
  item.classList.remove("streaming");
  item.removeAttribute("aria-busy");
  item.dataset.state = state;
  const head = item.querySelector(".message-head");
  if (state === "done" && head && !head.querySelector(".remember")) {
    const remember = button(t("message.remember"), "remember");
    remember.title = t("message.rememberTitle");
    head.append(remember);
    document.dispatchEvent(new CustomEvent("message-finished", { detail: item }));
  }
}

/** The page saw ``item`` said just now: "Remember" can say when, even once memory's window
 *  has moved past it (for a message restored from the transcript the page does not know). */
export function markSaidNow(item) {
  item.dataset.createdAt = new Date().toISOString();
}

/** Name the message id of an item once the server has said it. */
export function setMessageId(item, id) {
  if (id) item.dataset.messageId = id;
}

/** Say on a message that chat memory keeps only its first ``cap`` characters. */
export function markTruncated(item, cap) {
  if (item.querySelector(".truncated-note")) return;
  const note = paragraph(t("message.truncated", { cap }), "truncated-note");
  item.dataset.truncated = "true";
  item.append(note);
}

export function showError(message) {
  ui.error.textContent = message;
  ui.error.hidden = false;
}

export function clearError() {
  ui.error.textContent = "";
  ui.error.hidden = true;
}

/** What the page is doing or waiting for ("Planning tasks…"); never memory's status. */
export function showActivity(text) {
  ui.activity.textContent = text;
}

export function card(title) {
  const item = document.createElement("li");
  item.className = "message assistant review";
  item.dataset.role = "review";
  const heading = document.createElement("span");
  heading.className = "role";
  heading.textContent = title;
  item.append(heading);
  return item;
}

export function button(label, className) {
  const el = document.createElement("button");
  el.type = "button";
  el.textContent = label;
  if (className) el.className = className;
  return el;
}

export function paragraph(text, className) {
  const p = document.createElement("p");
  p.textContent = text;
  if (className) p.className = className;
  return p;
}

/** A one-line form: ``onText(text)`` on submit with a non-empty answer. */
export function textForm(inputLabel, submitLabel, onText) {
  const form = document.createElement("form");
  form.className = "actions";
  const input = document.createElement("input");
  input.type = "text";
  input.setAttribute("aria-label", inputLabel);
  const submit = button(submitLabel, "");
  submit.type = "submit";
  form.append(input, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return input.focus();
    onText(text);
  });
  return { form, input };
}

/** Ask in a modal dialog; resolves true only when the person picks ``confirmLabel``. */
export function askConfirm(question, confirmLabel) {
  const dialog = $("confirm-dialog");
  $("confirm-text").textContent = question;
  $("confirm-ok").textContent = confirmLabel;
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "confirm"), { once: true });
    dialog.showModal();
    $("confirm-cancel").focus();
  });
}
