// The memory panel: the session's whole summary (with "Edit summary"), its pins with where
// each came from (memory_pins.js), and one steady status line (turns in the window, summary
// size, pins, the last compaction and whether one is pending), read from GET
// /api/chat/memory. A model compaction lands after the run that started it, so while one
// is pending the panel polls until it lands. An open editor survives every refresh.

import { textEditor } from "./editor.js";
import { requestJson } from "./http.js";
import { MEMORY_PATH, setSummary } from "./memory_api.js";
import { clearPins, connectPins, renderPins } from "./memory_pins.js";
import { customEvents } from "./stream.js";
import { when } from "./time.js";

const POLL_MS = 1500;
const POLLS = 10;
/** contract §3's bounds, for a server that does not say its own (``pinCharCap``,
 *  ``summaryCharCap`` of the panel DTO). */
const PIN_CHARS = 300;
const SUMMARY_CHARS = 2500;
const NO_SUMMARY = "Nothing summarised yet.";
const SUMMARY_NOTE = "Leave it empty to clear the summary. New turns are folded onto your text.";

const $ = (id) => document.getElementById(id);
const panel = {
  details: $("memory-panel"),
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

const plural = (count, word) => `${count.toLocaleString("en")} ${word}${count === 1 ? "" : "s"}`;

function compactionText(last) {
  if (!last?.at) return "no compaction yet";
  const who = last.compactor === "llm"
    ? " by the model"
    : last.compactor === "extractive"
      ? last.status === "failed"
        ? " by the extractive fallback (the model failed)"
        : " by the extractive compactor"
      : "";
  return `last compaction ${when(last.at)}${who}`;
}

function renderStatus() {
  if (!latest) {
    panel.status.textContent = "status unavailable right now";
    panel.status.dataset.state = "unavailable";
    return;
  }
  const parts = [
    `${plural(latest.turnsInWindow, "turn")} in window`,
    `summary ${plural(latest.summaryLength, "char")}`,
    plural(latest.pinnedDecisions.length, "pin"),
    compactionText(latest.lastCompaction),
  ];
  let state = "idle";
  if (compacting || latest.pending) {
    parts.push("compacting…");
    state = "compacting";
  }
  if (writeFailed) {
    parts.push("the last turn could not be saved to memory");
    state = "failed";
  } else if (latest.lastCompaction?.status === "failed" && state === "idle") {
    state = "fallback";
  }
  panel.status.textContent = parts.join(" · ");
  panel.status.dataset.state = state;
}

function render(dto) {
  const pins = Array.isArray(dto?.pins) ? dto.pins.filter((p) => p && typeof p === "object") : [];
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
  renderPins(panel.pins, pins);
  panel.pinsCount.textContent = pins.length ? `(${pins.length})` : "";
  panel.pinsEmpty.hidden = pins.length > 0;
  renderStatus();
}

function showSummary() {
  panel.summary.textContent = latest?.summary || NO_SUMMARY;
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
  render({ ...latest, summary: "", pinnedDecisions: [], pins: [], turnsInWindow: 0, summaryLength: 0, lastCompaction: null, pending: false });
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
    label: "Summary of earlier turns",
    text: latest?.summary ?? "",
    cap,
    rows: 8,
    allowEmpty: true,
    note: SUMMARY_NOTE,
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

panel.details.addEventListener("toggle", () => {
  if (panel.details.open) showNewest();
});

// A wide window shows the panel as a column beside the conversation, always open.
const WIDE_LAYOUT = window.matchMedia("(min-width: 64rem)");
const fitLayout = () => {
  if (WIDE_LAYOUT.matches) panel.details.open = true;
};
WIDE_LAYOUT.addEventListener("change", fitLayout);
fitLayout();
panel.details.querySelector("summary").addEventListener("click", (event) => {
  if (WIDE_LAYOUT.matches) event.preventDefault();
});

customEvents.addEventListener("thread-memory-status", (event) => {
  const status = event.detail?.status;
  if (status === "started") compacting = true;
  else if (status === "succeeded") compacting = false;
  else if (status === "failed") failureSeen = true;
  if (latest) renderStatus();
});
