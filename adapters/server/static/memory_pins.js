// The pinned decisions in the memory panel, each with where it came from (contract §9a): its
// text, who pinned it and when, the messages it was taken from (who said it, when, and an
// excerpt), and an Edit and an Unpin control. A pin's item is kept while nothing about it
// changes, and while it is being edited, so a refresh of the panel (after a turn, or while
// a compaction is pending) never takes the focus or the text being typed.

import { editPin, unpin } from "./memory_api.js";
import { textEditor } from "./editor.js";
import { HumanError } from "./http.js";
import { timeElement } from "./time.js";
import { button, paragraph, showError } from "./view.js";

const PINNED_BY = {
  user: "Pinned by you",
  extractive: "Pinned from the conversation",
  model: "Pinned by the model",
};
const SAID_BY = { user: "You said", assistant: "The assistant said" };
const SOURCES_SHOWN = 2;
const UNKNOWN_SOURCE = "The messages it came from were not recorded.";

/** The pins' items by id: ``{key, item, editing}``. */
const shown = new Map();
let made = 0;
let onChange = async () => {};
let pinLimit = () => 0;

/** ``changed()``: what to do after a pin was edited or removed (read memory again);
 *  ``limit()``: a pin's character limit. */
export function connectPins({ changed, limit }) {
  onChange = changed;
  pinLimit = limit;
}

const words = (text) => String(text ?? "").split(/\s+/).filter(Boolean).join(" ");

/** Who said the message, when, and its excerpt — unless the pin says the same words (a
 *  whole message remembered): then "said word for word" instead of the text twice. */
function sourceItem(source, pinText) {
  const figure = document.createElement("figure");
  figure.className = "pin-source";
  const caption = document.createElement("figcaption");
  const verbatim = words(source?.excerpt) === words(pinText);
  caption.append(SAID_BY[source?.role] ?? "Said", verbatim ? " this, word for word" : "");
  const at = timeElement(source?.createdAt);
  if (at) caption.append(" · ", at);
  figure.append(caption);
  if (!verbatim) {
    const quote = document.createElement("blockquote");
    quote.textContent = String(source?.excerpt ?? "");
    figure.append(quote);
  }
  return figure;
}

/** The words of ``text`` (its characters, for Chinese, Japanese and Korean). */
const terms = (text) => new Set(String(text ?? "").toLowerCase().match(/[\p{L}\p{N}]+|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu) ?? []);

/** The sources, those that say most of the pin's words first: a model's pin names every
 *  message it folded, and the one it came from should be the one shown. */
function bySaying(pin, sources) {
  const wanted = terms(pin.text);
  const score = (source) => [...terms(source?.excerpt)].filter((t) => wanted.has(t)).length;
  return sources.map((s, i) => [score(s), i, s]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).map((e) => e[2]);
}

function sourcesOf(pin) {
  const sources = bySaying(pin, Array.isArray(pin.sources) ? pin.sources : []);
  const box = document.createElement("div");
  box.className = "pin-sources";
  if (!sources.length) {
    if (pin.origin !== "user") box.append(paragraph(UNKNOWN_SOURCE, "pin-source-unknown"));
    return box;
  }
  const item = (source) => sourceItem(source, pin.text);
  box.append(...sources.slice(0, SOURCES_SHOWN).map(item));
  const more = sources.slice(SOURCES_SHOWN);
  if (more.length) {
    const details = document.createElement("details");
    details.className = "pin-more";
    const summary = document.createElement("summary");
    summary.textContent = `${more.length} more message${more.length === 1 ? "" : "s"} it came from`;
    details.append(summary, ...more.map(item));
    box.append(details);
  }
  return box;
}

function pinItem(pin) {
  const item = document.createElement("li");
  item.className = "pin";
  item.dataset.pinId = pin.id;
  item.dataset.origin = pin.origin;
  const text = paragraph(pin.text, "pin-text");
  text.id = `pin-text-${++made}`;
  const meta = document.createElement("div");
  meta.className = "pin-meta";
  const who = document.createElement("span");
  who.className = "pin-origin";
  who.append(PINNED_BY[pin.origin] ?? "Pinned");
  const at = timeElement(pin.pinnedAt);
  if (at) who.append(" · ", at);
  const actions = document.createElement("span");
  actions.className = "pin-actions";
  const edit = button("Edit", "secondary small");
  const remove = button("Unpin", "danger small");
  for (const control of [edit, remove]) control.setAttribute("aria-describedby", text.id);
  actions.append(edit, remove);
  meta.append(who, actions);
  item.append(text, meta, sourcesOf(pin));
  edit.addEventListener("click", () => startEditing(pin, item, text, actions));
  remove.addEventListener("click", () => removePin(pin, item, [edit, remove]));
  return item;
}

function startEditing(pin, item, text, actions) {
  const entry = shown.get(pin.id);
  if (!entry || entry.editing) return;
  const stop = () => {
    entry.editing = false;
    editor.element.remove();
    text.hidden = false;
    actions.hidden = false;
  };
  const editor = textEditor({
    label: "Pinned decision",
    text: pin.text,
    cap: pinLimit(),
    rows: 3,
    onCancel() {
      stop();
      actions.querySelector("button")?.focus();
    },
    async onSave(value) {
      await editPin(pin.id, value);
      stop();
      entry.key = null; // drawn again from what memory now holds
      await onChange();
      focusPin(pin.id, "Edit");
    },
  });
  entry.editing = true;
  text.hidden = true;
  actions.hidden = true;
  text.after(editor.element);
  editor.focus();
}

async function removePin(pin, item, controls) {
  for (const control of controls) control.disabled = true;
  const next = item.nextElementSibling?.dataset.pinId ?? item.previousElementSibling?.dataset.pinId;
  try {
    await unpin(pin.id);
  } catch (failure) {
    for (const control of controls) control.disabled = false;
    showError(failure instanceof HumanError ? failure.message : "Something went wrong on this page. Reload and try again.");
    return;
  }
  shown.delete(pin.id);
  item.remove();
  await onChange();
  if (!focusPin(next, "Unpin")) document.getElementById("pins-heading")?.focus();
}

function focusPin(id, label) {
  const control = [...(shown.get(id)?.item.querySelectorAll("button") ?? [])]
    .find((b) => b.textContent === label);
  control?.focus();
  return Boolean(control);
}

/** Show ``pins`` in ``list``: an unchanged pin keeps its item, one being edited too. */
export function renderPins(list, pins) {
  const wanted = [];
  const ids = new Set();
  for (const pin of pins) {
    if (!pin || typeof pin.id !== "string") continue;
    ids.add(pin.id);
    const key = JSON.stringify(pin);
    let entry = shown.get(pin.id);
    if (!entry || (!entry.editing && entry.key !== key)) {
      entry = { key, item: pinItem(pin), editing: false };
      shown.set(pin.id, entry);
    }
    wanted.push(entry.item);
  }
  for (const [id, entry] of shown) {
    if (ids.has(id)) continue;
    if (entry.editing) wanted.push(entry.item); // gone meanwhile: saving says so
    else shown.delete(id);
  }
  // Items that stay are never moved (moving one would take its focus): the others go,
  // and the new ones are put around them.
  const keep = new Set(wanted);
  for (const child of [...list.children]) if (!keep.has(child)) child.remove();
  let cursor = list.firstElementChild;
  for (const item of wanted) {
    if (item === cursor) cursor = cursor.nextElementSibling;
    else list.insertBefore(item, cursor);
  }
}

/** Forget every pin's item (the memory was erased). */
export function clearPins(list) {
  shown.clear();
  list.replaceChildren();
}
