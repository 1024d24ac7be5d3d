// /tasklist: tasklist-agent runs on a thread of its own and pauses with an interrupt in
// LangChain v1's human-in-the-loop shape: {action_requests: [{name, args, description}],
// review_configs: [{action_name, allowed_decisions}], ...project keys}. The action
// "review_tasklist" (args {tasks: "<one task per line>"}) is the review; "answer_question"
// (args {question, answer}) is a clarifying question. The page shows what a stock client
// (agent-chat-ui) shows — the args — and edits the same text; the server parses the lines
// back. It resumes with {decisions: [decision]}: {type: "approve"},
// {type: "edit", edited_action: {name, args}}, {type: "reject", message} (a revision
// request) or a bare {type: "reject"} (the end).
//
// A card stays answerable only while it is the newest thing in the conversation and its
// interrupt is still the thread's: a newer command closes it, and an answer given elsewhere
// (another tab, Studio, the SDK) is noticed before resuming and when the tab comes back.

import { isBusy, runAction, WAIT_FOR_ANSWER } from "./actions.js";
import { EMPTY_ANSWER, HumanError, readThread, requestJson, threadPath } from "./http.js";
import { commandThreadMetadata } from "./chat_thread.js";
import { t } from "./i18n.js";
import { lastAiMessage, streamRun } from "./stream.js";
import {
  addMessage, addReport, button, card, finishMessage, paragraph, scrollToEnd, showActivity,
  showError, textForm, ui,
} from "./view.js";

export const TASKLIST_GRAPH = "tasklist-agent";
export const TASKLIST_PREFIX = "/tasklist";
/** The summary's message id is the goal's plus this (graphs/tasklist_agent/nodes.py). */
export const SUMMARY_ID_SUFFIX = ":tasklist-summary";

const REVIEW_ACTIONS = ["approve", "edit", "respond", "reject"];
const CLARIFY_ACTION = "answer_question";
const SUPERSEDED = t("tasklist.superseded");
const ANSWERED_ELSEWHERE = t("tasklist.answeredElsewhere");

/** The open cards: {threadId, interruptId, item, close(note)}. */
const openCards = new Set();

/** The one action request of a human-in-the-loop interrupt and its allowed decisions. */
function hitlRequest(value) {
  const request = Array.isArray(value?.action_requests) ? value.action_requests[0] : null;
  if (!request || typeof request !== "object") return null;
  const configs = Array.isArray(value.review_configs) ? value.review_configs : [];
  const config = configs.find((c) => c?.action_name === request.name) ?? configs[0];
  const allowed = Array.isArray(config?.allowed_decisions) ? config.allowed_decisions : [];
  return { name: String(request.name ?? ""), args: request.args ?? {}, allowed };
}

const decide = (decision) => ({ decisions: [decision] });

/** The review's tasks, one per line, as the interrupt's args carry them. */
function taskLinesOf(request) {
  const tasks = request?.args?.tasks;
  return typeof tasks === "string" ? tasks.split("\n").filter((line) => line.trim()) : [];
}

/** The interrupts a thread (as ``withState`` in http.js returns it) waits on. */
export function threadInterrupts(thread) {
  if (thread?.status !== "interrupted") return [];
  return Object.values(thread.interrupts ?? {}).flat().filter((i) => i && typeof i === "object");
}

async function currentInterrupts(threadId) {
  const state = await requestJson("GET", `${threadPath(threadId)}/state`);
  if (Array.isArray(state?.interrupts) && state.interrupts.length) return state.interrupts;
  return (state?.tasks ?? []).flatMap((task) => task.interrupts ?? []);
}

/** The finished plan's summary message and its markdown artifact, from the agent's state.
 *  ``before`` places them before that element instead of at the end. */
export function showTasklistOutcome(values, { before = null } = {}) {
  const last = lastAiMessage(values);
  const answer = last?.text ?? values?.summary;
  if (!answer) throw new HumanError(EMPTY_ANSWER);
  const items = [addMessage("assistant", answer, { append: false, id: last?.id })];
  finishMessage(items[0]);
  if (typeof values?.artifact === "string" && values.artifact.trim()) {
    items.push(addReport(values.artifact, { append: false }));
  }
  for (const item of items) ui.messages.insertBefore(item, before);
  if (!before) scrollToEnd();
}

/** Show an interrupt as a card, or report that the thread is not waiting on one. */
export function openCard(threadId, interrupt) {
  const request = hitlRequest(interrupt?.value);
  if (!request) return false;
  const entry = { threadId, interruptId: interrupt.id ?? null, item: null };
  if (request.name === CLARIFY_ACTION) {
    showActivity(t("tasklist.question"));
    renderClarification(entry, interrupt.value, request);
  } else {
    showActivity(t("tasklist.review"));
    renderReview(entry, interrupt.value, request);
  }
  openCards.add(entry);
  return true;
}

/** Close every open card: the conversation has moved on. */
export function closeOpenCards(note = SUPERSEDED) {
  for (const entry of [...openCards]) entry.close(note);
  showActivity("");
}

/** Run (or resume) tasklist-agent on its thread until it finishes or pauses for the user. */
async function driveTasklist(threadId, body) {
  showActivity(t("tasklist.planning"));
  const result = await streamRun(`${threadPath(threadId)}/runs/stream`, {
    assistant_id: TASKLIST_GRAPH,
    ...body,
  });
  const interrupts = result.interrupts.length ? result.interrupts : await currentInterrupts(threadId);
  if (openCard(threadId, interrupts[0])) return;
  showActivity("");
  showTasklistOutcome(result.values);
}

/** Plan ``goal``, the user's message ``messageId`` (the page shows it already), on a thread
 *  of its own that names the conversation it belongs to. */
export async function runTasklist(goal, messageId) {
  const thread = await requestJson("POST", "/threads", { metadata: await commandThreadMetadata() });
  await driveTasklist(thread.thread_id, {
    input: { messages: [{ type: "human", content: goal, id: messageId }] },
  });
}

/** A question or review that was left open when the conversation moved on: shown as it
 *  was, closed. */
export function showClosedCard(threadId, interrupt, note = SUPERSEDED) {
  if (!openCard(threadId, interrupt)) return;
  const entry = [...openCards].at(-1);
  entry.close(note);
  showActivity("");
}

/** Whether the card's interrupt is still the one its thread waits on; if not, the card is
 *  closed and what happened instead is shown. */
async function stillPending(entry) {
  const thread = await readThread(entry.threadId);
  const interrupts = threadInterrupts(thread);
  const same = entry.interruptId === null
    ? interrupts.length > 0
    : interrupts.some((i) => i.id === entry.interruptId);
  if (same) return true;
  if (!openCards.has(entry)) return false;
  entry.close(ANSWERED_ELSEWHERE);
  if (openCard(entry.threadId, interrupts[0])) return false;
  if (thread?.status === "busy") {
    showActivity(t("tasklist.workingElsewhere"));
  } else if (thread?.values?.summary) {
    showActivity("");
    showTasklistOutcome(thread.values);
  }
  return false;
}

/** Check the open cards against their threads (the tab was away: maybe answered elsewhere). */
export function recheckOpenCards() {
  if (isBusy() || !openCards.size) return;
  runAction(async () => {
    for (const entry of [...openCards]) await stillPending(entry);
  }, { refresh: false });
}

/** Close the card with the decision taken, then resume the run with it. */
function resumeWith(entry, label, resume) {
  if (isBusy()) {
    showError(WAIT_FOR_ANSWER);
    return;
  }
  runAction(async () => {
    if (!(await stillPending(entry))) return;
    entry.close(label);
    await driveTasklist(entry.threadId, { command: { resume } });
  });
}

/** Register how a card closes: its forms and buttons go, a line says what happened. */
function closer(entry, actions) {
  entry.close = (note) => {
    openCards.delete(entry);
    for (const form of entry.item.querySelectorAll("form")) if (form !== actions) form.remove();
    for (const input of entry.item.querySelectorAll("input, textarea")) input.disabled = true;
    actions.replaceChildren(paragraph(note, "decided"));
  };
}

function renderReview(entry, value, request) {
  const lines = taskLinesOf(request);
  // "Ask for changes" is a reject with a message: a revision, while any are left.
  const canRevise = request.allowed.includes("reject") && Number(value?.revisionsLeft ?? 1) > 0;
  const shown = REVIEW_ACTIONS.filter((a) => (a === "respond" ? canRevise : request.allowed.includes(a)));
  const verbs = shown.map((a) => t(`tasklist.verb.${a}`));
  const choice = verbs.length > 1
    ? t("tasklist.listOr", { rest: verbs.slice(0, -1).join(t("tasklist.listJoin")), last: verbs.at(-1) })
    : verbs[0];
  const item = card(choice ? t("tasklist.proposedChoice", { choice }) : t("tasklist.proposed"));
  entry.item = item;
  for (const note of Array.isArray(value?.notes) ? value.notes : []) {
    item.append(paragraph(t("tasklist.note", { note }), "task-detail"));
  }
  const list = document.createElement("ol");
  for (const line of lines) {
    const li = document.createElement("li");
    li.textContent = line;
    list.append(li);
  }
  const actions = document.createElement("div");
  actions.className = "actions";
  const buttons = {};
  for (const action of shown) {
    const style = { edit: "secondary", respond: "secondary", reject: "danger" }[action];
    buttons[action] = button(t(`tasklist.${action}`), style);
    actions.append(buttons[action]);
  }
  item.append(list, actions);
  closer(entry, actions);
  ui.messages.append(item);
  scrollToEnd();
  (buttons.approve ?? actions.firstElementChild)?.focus();

  let editor = null;
  buttons.approve?.addEventListener("click", () =>
    resumeWith(entry, t("tasklist.approved"), decide({ type: "approve" })));
  buttons.reject?.addEventListener("click", () =>
    resumeWith(entry, t("tasklist.rejected"), decide({ type: "reject" })));
  let revision = null;
  buttons.respond?.addEventListener("click", () => {
    // The planner redrafts with this instruction and asks for review again.
    revision ??= textForm(t("tasklist.whatShouldChange"), t("tasklist.sendRequest"), (text) => {
      if (isBusy()) return showError(WAIT_FOR_ANSWER);
      resumeWith(entry, t("tasklist.askedForChanges", { text }), decide({ type: "reject", message: text }));
    });
    if (!revision.form.isConnected) actions.before(revision.form);
    revision.input.focus();
  });
  buttons.edit?.addEventListener("click", () => {
    if (!editor) {
      // The same text a stock card edits: one task per line, the server reads it back.
      editor = document.createElement("textarea");
      editor.value = lines.join("\n");
      editor.rows = Math.max(lines.length + 1, 3);
      editor.setAttribute("aria-label", t("tasklist.tasksLabel"));
      list.replaceWith(editor);
      buttons.edit.textContent = t("tasklist.sendEdits");
      if (buttons.approve) buttons.approve.disabled = true;
      if (buttons.respond) buttons.respond.disabled = true;
      editor.focus();
      return;
    }
    resumeWith(entry, t("tasklist.edited"), decide({
      type: "edit",
      edited_action: { name: request.name, args: { ...request.args, tasks: editor.value } },
    }));
  });
}

function renderClarification(entry, value, request) {
  const item = card(t("tasklist.asks"));
  entry.item = item;
  const question = request.args?.question ?? value?.question;
  item.append(paragraph(String(question || t("tasklist.sayMore"))));
  const { form, input } = textForm(t("tasklist.yourAnswer"), t("tasklist.answer"), (text) =>
    resumeWith(entry, t("tasklist.answered", { text }), decide({
      type: "edit",
      edited_action: { name: request.name, args: { ...request.args, answer: text } },
    })));
  const stop = button(t("tasklist.stop"), "danger");
  form.append(stop);
  item.append(form);
  closer(entry, form);
  ui.messages.append(item);
  scrollToEnd();
  input.focus();
  stop.addEventListener("click", () =>
    resumeWith(entry, t("tasklist.stopped"), decide({ type: "reject" })));
}
