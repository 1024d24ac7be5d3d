// The pinned decisions in the memory panel, each with where it came from and why (contract
// §9a): its text (marked "edited" when the user changed it), what it replaced ("Changed
// from …"), who pinned it and when — for the user's own pins the page's words, "Pinned by
// you" or "Edited by you"; for the compactor's, the server's `why` — the messages it was
// taken from (who said it, when, and an excerpt with the pinned words marked), and Edit and
// Unpin, in the same place on every card. Below the pins, the decisions later ones
// replaced, collapsed. A pin's item is kept while nothing about it changes, and while it is
// being edited, so a refresh of the panel (after a turn, or while a compaction is pending)
// never takes the focus or the text being typed.

import { editPin, unpin } from "./memory_api.js";
import { textEditor } from "./editor.js";
import { HumanError } from "./http.js";
import { t, tNodes } from "./i18n.js";
import { timeElement } from "./time.js";
import { button, paragraph, showError } from "./view.js";

const PINNED_BY = { extractive: "pin.byConversation", model: "pin.byModel" };
const ROLES = new Set(["user", "assistant"]);
const SOURCES_SHOWN = 2;

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

/** ``quote``'s text with the pinned words marked where it says them (as it does for a
 *  pin remembered from a message or picked from one; a model's restatement is not marked). */
function quoted(excerpt, pinText) {
  const quote = document.createElement("blockquote");
  const text = words(excerpt);
  const wanted = words(pinText).replace(/[.!?。！？;；]+$/u, "");
  const at = wanted ? text.toLowerCase().indexOf(wanted.toLowerCase()) : -1;
  if (at < 0) {
    quote.textContent = text;
    return quote;
  }
  const mark = document.createElement("mark");
  mark.textContent = text.slice(at, at + wanted.length);
  quote.append(text.slice(0, at), mark, text.slice(at + wanted.length));
  return quote;
}

/** Who said the message, when, and its excerpt — unless the pin says the same words (a
 *  whole message remembered): then "said this, word for word" instead of the text twice. */
function sourceItem(source, pinText) {
  const figure = document.createElement("figure");
  figure.className = "pin-source";
  const caption = document.createElement("figcaption");
  const verbatim = words(source?.excerpt) === words(pinText);
  const role = ROLES.has(source?.role) ? source.role : "other";
  const who = t(`source.${role}${verbatim ? "Verbatim" : ""}`);
  const at = timeElement(source?.createdAt);
  caption.append(...(at ? tNodes("source.at", { time: at }, { who }) : [who]));
  figure.append(caption);
  if (!verbatim) figure.append(quoted(source?.excerpt, pinText));
  return figure;
}

/** The words of ``text`` (its characters, for Chinese, Japanese and Korean). */
const terms = (text) => new Set(String(text ?? "").toLowerCase().match(/[\p{L}\p{N}]+|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu) ?? []);

/** The sources, those that say most of the pin's words first: a model's pin names every
 *  message it folded, and the one it came from should be the one shown. */
function bySaying(pin, sources) {
  const wanted = terms(pin.text);
  const score = (source) => [...terms(source?.excerpt)].filter((w) => wanted.has(w)).length;
  return sources.map((s, i) => [score(s), i, s]).sort((a, b) => b[0] - a[0] || a[1] - b[1]).map((e) => e[2]);
}

function sourcesOf(pin) {
  const sources = bySaying(pin, Array.isArray(pin.sources) ? pin.sources : []);
  const box = document.createElement("div");
  box.className = "pin-sources";
  if (!sources.length) {
    if (pin.origin !== "user") box.append(paragraph(t("pin.noSource"), "pin-source-unknown"));
    return box;
  }
  const item = (source) => sourceItem(source, pin.text);
  box.append(...sources.slice(0, SOURCES_SHOWN).map(item));
  const more = sources.slice(SOURCES_SHOWN);
  if (more.length) {
    const details = document.createElement("details");
    details.className = "pin-more";
    const summary = document.createElement("summary");
    summary.textContent = t("pin.moreSources", { count: more.length });
    details.append(summary, ...more.map(item));
    box.append(details);
  }
  return box;
}

/** Who pinned it and when, in the page's words for the user's own pins ("Pinned by you",
 *  "Edited by you"), and the compactor's reason for its own. */
function origin(pin) {
  const line = document.createElement("p");
  line.className = "pin-origin";
  const edited = pin.origin === "user" && pin.editedAt;
  const who = t(pin.origin === "user" ? (edited ? "pin.editedByYou" : "pin.byYou") : PINNED_BY[pin.origin] ?? "pin.by");
  const at = timeElement(edited ? pin.editedAt : pin.pinnedAt);
  line.append(...(at ? tNodes("pin.at", { time: at }, { who }) : [who]));
  const why = pin.origin !== "user" && typeof pin.why === "string" ? pin.why.trim() : "";
  return why ? [line, paragraph(t("pin.why", { why }), "pin-why")] : [line];
}

/** ``pin`` as a card; ``changedFrom``: the decisions it replaced (``replaced`` entries). */
function pinItem(pin, changedFrom) {
  const item = document.createElement("li");
  item.className = "pin";
  item.dataset.pinId = pin.id;
  item.dataset.origin = pin.origin;
  const head = document.createElement("div");
  head.className = "pin-head";
  const body = document.createElement("div");
  body.className = "pin-body";
  const text = paragraph(pin.text, "pin-text");
  text.id = `pin-text-${++made}`;
  body.append(text);
  if (pin.editedAt) {
    const marker = document.createElement("span");
    marker.className = "pin-edited";
    marker.textContent = t("pin.edited");
    marker.title = t("pin.editedTitle");
    body.append(" ", marker);
    item.dataset.edited = "true";
  }
  const actions = document.createElement("span");
  actions.className = "pin-actions";
  const edit = button(t("pin.edit"), "secondary small");
  const remove = button(t("pin.unpin"), "danger small");
  for (const control of [edit, remove]) control.setAttribute("aria-describedby", text.id);
  actions.append(edit, remove);
  head.append(body, actions);
  const changed = changedFrom.map((old) => paragraph(t("pin.changedFrom", { text: old.text }), "pin-changed"));
  item.append(head, ...changed, ...origin(pin), sourcesOf(pin));
  edit.addEventListener("click", () => startEditing(pin, item, body, actions));
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
    label: t("pin.editorLabel"),
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
      focusPin(pin.id, "edit");
    },
  });
  entry.editing = true;
  text.hidden = true;
  actions.hidden = true;
  item.querySelector(".pin-head").after(editor.element);
  editor.focus();
}

async function removePin(pin, item, controls) {
  for (const control of controls) control.disabled = true;
  const next = item.nextElementSibling?.dataset.pinId ?? item.previousElementSibling?.dataset.pinId;
  try {
    await unpin(pin.id);
  } catch (failure) {
    for (const control of controls) control.disabled = false;
    showError(failure instanceof HumanError ? failure.message : t("error.page"));
    return;
  }
  shown.delete(pin.id);
  item.remove();
  await onChange();
  if (!focusPin(next, "unpin")) document.getElementById("pins-heading")?.focus();
}

/** Focus the Edit (``"edit"``) or Unpin (``"unpin"``) control of pin ``id``. */
function focusPin(id, which) {
  const control = [...(shown.get(id)?.item.querySelectorAll(".pin-actions button") ?? [])]
    .find((b) => b.textContent === t(`pin.${which}`));
  control?.focus();
  return Boolean(control);
}

/** Show ``pins`` in ``list``: an unchanged pin keeps its item, one being edited too.
 *  ``replaced``: the decisions later pins replaced (each card says what it replaced). */
export function renderPins(list, pins, replaced = []) {
  const wanted = [];
  const ids = new Set();
  for (const pin of pins) {
    if (!pin || typeof pin.id !== "string") continue;
    ids.add(pin.id);
    const changedFrom = replaced.filter((old) => old?.replacedBy === pin.id);
    const key = JSON.stringify([pin, changedFrom]);
    let entry = shown.get(pin.id);
    if (!entry || (!entry.editing && entry.key !== key)) {
      entry = { key, item: pinItem(pin, changedFrom), editing: false };
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

/** The decisions later ones replaced, newest first, in ``details`` (collapsed, hidden when
 *  there are none): each with what replaced it and when, and why. */
export function renderReplaced(details, replaced, pins) {
  const entries = replaced.filter((old) => old && typeof old.text === "string");
  details.hidden = entries.length === 0;
  details.querySelector("summary").textContent = t("replaced.heading", { count: entries.length });
  const byId = new Map(pins.map((pin) => [pin.id, pin]));
  const items = [...entries].reverse().map((old) => {
    const item = document.createElement("li");
    item.className = "replaced-item";
    const text = document.createElement("p");
    text.className = "replaced-text";
    const struck = document.createElement("s");
    struck.textContent = old.text;
    text.append(struck);
    const meta = document.createElement("p");
    meta.className = "replaced-meta";
    const at = timeElement(old.replacedAt);
    const by = byId.get(old.replacedBy);
    const parts = by
      ? tNodes("replaced.by", { time: at }, { text: by.text })
      : tNodes("replaced.dropped", { time: at });
    meta.append(...parts);
    item.append(text, meta);
    const why = typeof old.why === "string" ? old.why.trim() : "";
    if (why) item.append(paragraph(t("pin.why", { why }), "pin-why"));
    return item;
  });
  details.querySelector("ol").replaceChildren(...items);
}
