// The memory panel: the session's whole summary (with "Edit summary"), its pins with where
// each came from and why (memory_pins.js), the decisions they replaced, and one status line
// in plain words ("earlier messages summarised · 3 decisions pinned · updated 4:41"), read
// from GET /api/chat/memory. A model compaction lands after the run that started it, so
// while one is pending the panel polls until it lands. An open editor survives every
// refresh. A wide window shows the panel as a column beside the conversation; a narrow one
// as a sheet over the lower part of the page, opened from the top bar's "Memory" button,
// its header (title, status, Close) fixed while its body scrolls.

import { textEditor } from "./editor.js";
import { requestJson } from "./http.js";
import { formatNumber, LOCALE, t } from "./i18n.js";
import { MEMORY_PATH, setSummary } from "./memory_api.js";
import { clearPins, connectPins, renderPins, renderReplaced } from "./memory_pins.js";
import { customEvents } from "./stream.js";
import { when } from "./time.js";

const POLL_MS = 1500;
const POLLS = 10;
/** contract §3's bounds, for a server that does not say its own (``pinCharCap``,
 *  ``summaryCharCap`` of the panel DTO). */
const PIN_CHARS = 300;
const SUMMARY_CHARS = 2500;

const $ = (id) => document.getElementById(id);
const panel = {
  element: $("memory-panel"),
  body: $("memory-body"),
  title: $("memory-title"),
  toggle: $("memory-toggle"),
  toggleCount: $("memory-toggle-count"),
  close: $("memory-close"),
  replaced: $("replaced"),
  status: $("memory-status"),
  summary: $("summary-text"),
  editSummary: $("edit-summary"),
  pins: $("pins"),
  pinsCount: $("pins-count"),
  pinsEmpty: $("pins-empty"),
};

let latest = null;
let compacting = false;
let failureSeen = false;
let writeFailed = false;
let compactionBefore = null;
let generation = 0;
let summaryEditor = null;

/** The status line's parts, in plain words: what memory holds, when it last changed, and
 *  what it is doing (contract §9a: no internal words). */
function statusParts() {
  const parts = [];
  if (latest.summary) parts.push(t("status.summarised"));
  if (latest.turnsInWindow) parts.push(t("status.recent", { count: latest.turnsInWindow }));
  if (latest.pins.length) parts.push(t("status.pins", { count: latest.pins.length }));
  if (!parts.length) parts.push(t("status.nothing"));
  const last = latest.lastCompaction;
  if (last?.at) {
    parts.push(t("status.updated", { time: when(last.at) }));
    if (last.status === "failed") parts.push(t("status.simpler"));
  }
  return parts;
}

function renderStatus() {
  if (!latest) {
    panel.status.textContent = t("status.unavailable");
    panel.status.dataset.state = "unavailable";
    return;
  }
  const parts = statusParts();
  let state = "idle";
  if (compacting || latest.pending) {
    parts.push(t("status.updating"));
    state = "compacting";
  }
  if (writeFailed) {
    parts.push(t("status.notSaved"));
    state = "failed";
  } else if (latest.lastCompaction?.status === "failed" && state === "idle") {
    state = "fallback";
  }
  const line = parts.join(t("status.separator"));
  panel.status.textContent = line.charAt(0).toLocaleUpperCase(LOCALE) + line.slice(1);
  panel.status.dataset.state = state;
}

function render(dto) {
  const pins = Array.isArray(dto?.pins) ? dto.pins.filter((p) => p && typeof p === "object") : [];
  const replaced = Array.isArray(dto?.replaced) ? dto.replaced.filter((r) => r && typeof r === "object") : [];
  latest = {
    summary: typeof dto?.summary === "string" ? dto.summary : "",
    pinnedDecisions: Array.isArray(dto?.pinnedDecisions) ? dto.pinnedDecisions.map(String) : [],
    pins,
    turnsInWindow: Number(dto?.turnsInWindow ?? 0),
    summaryLength: Number(dto?.summaryLength ?? 0),
    lastCompaction: dto?.lastCompaction ?? null,
    pending: Boolean(dto?.pending),
    messageCharCap: Number(dto?.messageCharCap ?? 0) || null,
    truncationMarker: typeof dto?.truncationMarker === "string" ? dto.truncationMarker : null,
    pinCharCap: Number(dto?.pinCharCap ?? 0) || PIN_CHARS,
    summaryCharCap: Number(dto?.summaryCharCap ?? 0) || SUMMARY_CHARS,
  };
  if (!summaryEditor) showSummary();
  renderPins(panel.pins, pins, replaced);
  renderReplaced(panel.replaced, replaced, pins);
  panel.pinsCount.textContent = pins.length ? t("pins.count", { count: pins.length }) : "";
  panel.toggleCount.textContent = pins.length ? formatNumber(pins.length) : "";
  panel.pinsEmpty.hidden = pins.length > 0;
  renderStatus();
  document.dispatchEvent(new CustomEvent("memory-pins", { detail: pins }));
}

function showSummary() {
  panel.summary.textContent = latest?.summary || t("summary.empty");
  panel.summary.classList.toggle("muted", !latest?.summary);
  showNewest();
}

/** The summary grows at its end: show its newest lines (the box scrolls back for more). */
function showNewest() {
  panel.summary.scrollTop = panel.summary.scrollHeight;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Read the panel once; while a compaction is pending, keep polling (not awaited) until
 *  it lands. */
export async function refreshMemoryPanel() {
  const mine = ++generation;
  if (await readPanel(mine)) pollWhilePending(mine);
}

async function readPanel(mine) {
  try {
    const dto = await requestJson("GET", MEMORY_PATH);
    if (mine !== generation) return false;
    compacting = false;
    settleFailure(dto);
    render(dto);
    return latest.pending;
  } catch {
    if (mine !== generation) return false;
    latest = null; // the panel says so; the conversation itself is unaffected
    renderStatus();
    return false;
  }
}

async function pollWhilePending(mine) {
  for (let poll = 0; poll < POLLS; poll++) {
    await sleep(POLL_MS);
    if (mine !== generation || !(await readPanel(mine))) return;
  }
}

/** An empty panel, after the memory was erased. */
export function resetMemoryPanel() {
  generation++;
  compacting = false;
  failureSeen = writeFailed = false;
  closeSummaryEditor();
  clearPins(panel.pins);
  render({
    ...latest, summary: "", pinnedDecisions: [], pins: [], replaced: [], turnsInWindow: 0,
    summaryLength: 0, lastCompaction: null, pending: false,
  });
}

/** ``{pinChars, summaryChars}``: how long a pin and the summary may be. */
export function memoryLimits() {
  return {
    pinChars: latest?.pinCharCap ?? PIN_CHARS,
    summaryChars: latest?.summaryCharCap ?? SUMMARY_CHARS,
  };
}

// --- editing the summary -------------------------------------------------------------------

function closeSummaryEditor() {
  if (!summaryEditor) return;
  summaryEditor.element.remove();
  summaryEditor = null;
  panel.summary.hidden = false;
  panel.editSummary.hidden = false;
  showSummary();
}

function editSummary() {
  if (summaryEditor) return;
  const cap = memoryLimits().summaryChars;
  summaryEditor = textEditor({
    label: t("summary.heading"),
    text: latest?.summary ?? "",
    cap,
    rows: 8,
    allowEmpty: true,
    note: t("summary.note"),
    onCancel() {
      closeSummaryEditor();
      panel.editSummary.focus();
    },
    async onSave(text) {
      await setSummary(text);
      closeSummaryEditor();
      await refreshMemoryPanel();
      panel.editSummary.focus();
    },
  });
  panel.summary.hidden = true;
  panel.editSummary.hidden = true;
  panel.summary.after(summaryEditor.element);
  summaryEditor.focus();
}

panel.editSummary.addEventListener("click", editSummary);
connectPins({ changed: refreshMemoryPanel, limit: () => memoryLimits().pinChars });

/** ``{cap, marker}``: how memory cuts a long message (null until the panel has loaded). */
export function truncation() {
  if (!latest?.messageCharCap || !latest.truncationMarker) return null;
  return { cap: latest.messageCharCap, marker: latest.truncationMarker };
}

/** A new turn starts: forget the previous turn's failure. */
export function turnStarted() {
  failureSeen = false;
  writeFailed = false;
  compactionBefore = latest?.lastCompaction?.at ?? null;
}

/** A ``failed`` status is either this turn's write failing or the report of a model
 *  compaction that failed earlier and was folded by the fallback instead (the run after it
 *  carries that report). The panel shows the latter as the last compaction; only the
 *  former means this turn may be lost. */
function settleFailure(dto) {
  if (!failureSeen) return;
  failureSeen = false;
  const last = dto?.lastCompaction;
  writeFailed = !(last?.status === "failed" && last.at !== compactionBefore);
}

// --- where the panel is: a column on a wide window, a sheet on a narrow one ---------------------

/** The wide layout: the panel is a column of its own (app.css has the same query). */
const WIDE_LAYOUT = window.matchMedia("(min-width: 64rem)");

/** Open or close the sheet (a wide window always shows the panel). */
function openSheet(open) {
  panel.element.dataset.open = String(open);
  panel.toggle.setAttribute("aria-expanded", String(open));
  if (open) {
    showNewest();
    panel.title.focus({ preventScroll: true });
  } else if (panel.element.contains(document.activeElement)) {
    panel.toggle.focus();
  }
}

panel.toggle.addEventListener("click", () => openSheet(panel.element.dataset.open !== "true"));
panel.close.addEventListener("click", () => openSheet(false));
panel.element.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !WIDE_LAYOUT.matches && !event.target.closest?.(".editor")) {
    openSheet(false);
  }
});
WIDE_LAYOUT.addEventListener("change", () => openSheet(false));

customEvents.addEventListener("thread-memory-status", (event) => {
  const status = event.detail?.status;
  if (status === "started") compacting = true;
  else if (status === "succeeded") compacting = false;
  else if (status === "failed") failureSeen = true;
  if (latest) renderStatus();
});
