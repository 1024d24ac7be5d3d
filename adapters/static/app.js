// AI Mind chat page: hydrates from /api/chat/thread, streams runs over the LangGraph REST API.
// Model output only ever reaches the page through textContent or the DOM-building markdown
// renderer; nothing here assigns HTML strings.

import { renderMarkdown } from "./markdown.js";
import { readEvents } from "./sse.js";

const HYDRATE_PATH = "/api/chat/thread";
const STREAM_MODES = ["messages-tuple", "custom", "values"];
const GRAPH = { chat: "chat", tasklist: "tasklist-agent", delivery: "delivery-chain" };
const FINAL_TURN_NODE = "final_turn";
const REPORT_START = /^#{1,2} \S/;
const ROLE_LABEL = { user: "You", assistant: "Assistant" };

const $ = (id) => document.getElementById(id);
const ui = {
  messages: $("messages"),
  form: $("composer-form"),
  composer: $("composer"),
  send: $("send"),
  reset: $("new-conversation"),
  status: $("memory-status"),
  error: $("error"),
  restored: $("restored-note"),
  summary: $("summary-preview"),
  pins: $("pins"),
  pinsEmpty: $("pins-empty"),
  memoryCount: $("memory-count"),
  progress: $("progress"),
  progressBar: $("progress-bar"),
  progressLabel: $("progress-label"),
};

/** An error whose message is a sentence fit to show a person. */
class HumanError extends Error {}

const NETWORK_ERROR = "Could not reach the chat server. Check that it is running and try again.";
const RUN_ERROR = "The server hit an error while answering, so this message has no answer. Try again.";
const EMPTY_ANSWER = "The assistant finished without an answer. Try asking again.";

function httpError(status) {
  if (status === 401 || status === 403) {
    return new HumanError(
      "Your session was not accepted. Reload the page; if this keeps happening, clear this site’s cookies.",
    );
  }
  if (status === 404) {
    return new HumanError("The server could not find that conversation. Start a new conversation and try again.");
  }
  if (status === 409) {
    return new HumanError("The server is still busy with your previous message. Wait a moment and try again.");
  }
  if (status === 400 || status === 413 || status === 422) {
    return new HumanError("The server could not accept that message. Try shortening or rephrasing it.");
  }
  return new HumanError("The chat server had a problem. Try again in a moment.");
}

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// --- HTTP ------------------------------------------------------------------------------

async function request(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined
        ? { Accept: "application/json" }
        : { Accept: "application/json", "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new HumanError(NETWORK_ERROR);
  }
  if (!response.ok) throw httpError(response.status);
  return response;
}

async function requestJson(method, path, body) {
  const response = await request(method, path, body);
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/**
 * POST a streaming run and dispatch its events. Resolves with the last `values` state and
 * any interrupts; rejects with a HumanError when the run could not start or failed.
 */
async function streamRun(path, body, { onToken, onCustom } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ stream_mode: STREAM_MODES, ...body }),
    });
  } catch {
    throw new HumanError(NETWORK_ERROR);
  }
  if (!response.ok) throw httpError(response.status);
  const result = { values: null, interrupts: [], failed: false };
  try {
    await readEvents(response, (event, data) => {
      if (event === "messages" && Array.isArray(data)) {
        const [chunk, meta] = data;
        if (meta?.langgraph_node === FINAL_TURN_NODE) return;
        const piece = aiText(chunk);
        if (piece !== null && onToken) onToken(chunk.id ?? "", piece, isChunk(chunk));
      } else if (event === "custom") {
        onCustom?.(data);
        if (data?.type === "thread-memory-status") showMemoryStatus(data);
      } else if (event === "values" && data && typeof data === "object") {
        if (Array.isArray(data.__interrupt__) && data.__interrupt__.length) {
          result.interrupts = data.__interrupt__;
        }
        const { __interrupt__: _ignored, ...state } = data;
        if (Object.keys(state).length) result.values = state;
      } else if (event === "error") {
        result.failed = true;
      }
    });
  } catch {
    throw new HumanError("The connection dropped before the answer finished. Try again.");
  }
  if (result.failed) throw new HumanError(RUN_ERROR);
  return result;
}

/** The text of an AI message or chunk from the messages stream, or null for anything else. */
function aiText(message) {
  if (!message || typeof message !== "object") return null;
  const type = String(message.type ?? "");
  if (type !== "ai" && type !== "AIMessageChunk") return null;
  return contentText(message.content);
}

function isChunk(message) {
  return String(message?.type ?? "").endsWith("Chunk");
}

function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "string" ? part : part?.type === "text" ? part.text ?? "" : ""))
      .join("");
  }
  return "";
}

/** The last AI message with text in a graph state's `messages`, or null. */
function lastAiAnswer(state) {
  const messages = Array.isArray(state?.messages) ? state.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const text = aiText(messages[i]);
    if (text && text.trim()) return text;
  }
  return null;
}

// --- rendering -------------------------------------------------------------------------

function scrollToEnd() {
  ui.messages.lastElementChild?.scrollIntoView({ block: "end" });
}

function addMessage(role, text, { streaming = false } = {}) {
  const item = document.createElement("li");
  item.className = `message ${role}`;
  item.dataset.role = role;
  const label = document.createElement("span");
  label.className = "role";
  label.textContent = ROLE_LABEL[role] ?? role;
  const body = document.createElement("div");
  body.className = "text";
  body.textContent = text;
  item.append(label, body);
  if (streaming) {
    item.classList.add("streaming");
    item.setAttribute("aria-busy", "true");
  }
  ui.messages.append(item);
  scrollToEnd();
  return item;
}

/** An assistant message rendered from markdown (DOM nodes only, see markdown.js). */
function addReport(markdown, state = "done") {
  const item = addMessage("assistant", "");
  item.classList.add("report");
  item.querySelector(".text").replaceChildren(renderMarkdown(markdown));
  finishMessage(item, state);
  return item;
}

function setText(item, text) {
  item.querySelector(".text").textContent = text;
}

function finishMessage(item, state = "done") {
  item.classList.remove("streaming");
  item.removeAttribute("aria-busy");
  item.dataset.state = state;
}

function showError(message) {
  ui.error.textContent = message;
  ui.error.hidden = false;
}

function clearError() {
  ui.error.textContent = "";
  ui.error.hidden = true;
}

function showStatus(text, status = "") {
  ui.status.textContent = text;
  if (status) ui.status.dataset.status = status;
  else delete ui.status.dataset.status;
}

function showMemoryStatus(event) {
  const pins = Number(event.pinnedDecisionCount ?? 0);
  const chars = Number(event.summaryLength ?? 0);
  if (event.status === "started") {
    showStatus("Compacting memory…", "started");
  } else if (event.status === "succeeded") {
    showStatus(
      `Memory compacted: older turns summarised (${chars} characters), ` +
        `${pins} pinned decision${pins === 1 ? "" : "s"}.`,
      "succeeded",
    );
  } else if (event.status === "failed") {
    showStatus("Memory unavailable: this turn may not be remembered after a reload.", "failed");
  }
}

function renderMemory(dto) {
  const summary = typeof dto?.summaryPreview === "string" ? dto.summaryPreview : "";
  ui.summary.textContent = summary || "Nothing summarised yet.";
  ui.summary.classList.toggle("muted", !summary);
  const pins = Array.isArray(dto?.pinnedDecisions) ? dto.pinnedDecisions : [];
  ui.pins.replaceChildren(
    ...pins.map((pin) => {
      const li = document.createElement("li");
      li.textContent = String(pin);
      return li;
    }),
  );
  ui.pinsEmpty.hidden = pins.length > 0;
  ui.memoryCount.textContent = pins.length
    ? `(${pins.length} pinned decision${pins.length === 1 ? "" : "s"})`
    : "";
}

async function refreshMemory() {
  try {
    renderMemory(await requestJson("GET", HYDRATE_PATH));
  } catch {
    // The panel keeps its last contents; the conversation itself is unaffected.
  }
}

// --- busy state ------------------------------------------------------------------------

let busy = false;
let actionsDone = 0;

function setBusy(value) {
  busy = value;
  ui.send.disabled = value;
  ui.reset.disabled = value;
  if (value) document.body.dataset.busy = "true";
  else delete document.body.dataset.busy;
}

// --- chat ------------------------------------------------------------------------------

async function sendChat(text) {
  addMessage("user", text);
  const bubble = addMessage("assistant", "", { streaming: true });
  const texts = new Map();
  let current = "";
  try {
    const result = await streamRun(
      "/runs/stream",
      {
        assistant_id: GRAPH.chat,
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

// --- /tasklist -------------------------------------------------------------------------
// tasklist-agent pauses with an interrupt in LangChain v1's human-in-the-loop shape:
// {action_requests: [{name, args, description}], review_configs: [{action_name,
// allowed_decisions}], ...project keys}. The action "review_tasklist" (args {tasks}) is the
// review; "answer_question" (args {answer}) is a clarifying question. The page resumes with
// {decisions: [decision]}: {type: "approve"}, {type: "edit", edited_action: {name, args}},
// {type: "reject", message} (a revision request) or a bare {type: "reject"} (the end).

const ACTION_LABEL = { approve: "Approve", edit: "Edit", respond: "Ask for changes", reject: "Reject" };
const ACTION_VERB = { approve: "approve", edit: "edit", respond: "ask for changes", reject: "reject" };
const REVIEW_ACTIONS = ["approve", "edit", "respond", "reject"];
const CLARIFY_ACTION = "answer_question";

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

function tasksOf(request) {
  const tasks = request?.args?.tasks;
  return Array.isArray(tasks) ? tasks.filter((task) => task && typeof task === "object") : [];
}

async function currentInterrupts(threadId) {
  const state = await requestJson("GET", `/threads/${encodeURIComponent(threadId)}/state`);
  if (Array.isArray(state?.interrupts) && state.interrupts.length) return state.interrupts;
  return (state?.tasks ?? []).flatMap((task) => task.interrupts ?? []);
}

/** Run (or resume) tasklist-agent on its thread until it finishes or pauses for the user. */
async function driveTasklist(threadId, body) {
  showStatus("Planning tasks…");
  const result = await streamRun(`/threads/${encodeURIComponent(threadId)}/runs/stream`, {
    assistant_id: GRAPH.tasklist,
    ...body,
  });
  const interrupts = result.interrupts.length ? result.interrupts : await currentInterrupts(threadId);
  const pending = interrupts[0]?.value;
  const request = hitlRequest(pending);
  if (request?.name === CLARIFY_ACTION) {
    showStatus("The planner has a question.");
    renderClarification(threadId, pending, request);
    return;
  }
  if (request) {
    showStatus("Review the proposed tasks.");
    renderReview(threadId, pending, request);
    return;
  }
  if (ui.status.dataset.status === undefined) showStatus("");
  const answer = lastAiAnswer(result.values) ?? result.values?.summary;
  if (!answer) throw new HumanError(EMPTY_ANSWER);
  finishMessage(addMessage("assistant", answer));
  const artifact = result.values?.artifact;
  if (typeof artifact === "string" && artifact.trim()) addReport(artifact);
}

async function runTasklist(goal) {
  addMessage("user", `/tasklist ${goal}`);
  const thread = await requestJson("POST", "/threads", {});
  await driveTasklist(thread.thread_id, {
    input: { messages: [{ type: "human", content: goal, id: uuid() }] },
  });
}

function card(title) {
  const item = document.createElement("li");
  item.className = "message assistant review";
  item.dataset.role = "review";
  const heading = document.createElement("span");
  heading.className = "role";
  heading.textContent = title;
  item.append(heading);
  return item;
}

function button(label, className) {
  const el = document.createElement("button");
  el.type = "button";
  el.textContent = label;
  if (className) el.className = className;
  return el;
}

function paragraph(text, className) {
  const p = document.createElement("p");
  p.textContent = text;
  if (className) p.className = className;
  return p;
}

/** A one-line form: ``onText(text)`` on submit with a non-empty answer. */
function textForm(inputLabel, submitLabel, onText) {
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

/** Replace a card's buttons with the decision taken, then resume the run with it. */
function resumeWith(threadId, actions, label, resume) {
  if (busy) {
    showError("Wait for the current answer to finish, then try again.");
    return;
  }
  actions.replaceChildren(paragraph(label, "decided"));
  runAction(() => driveTasklist(threadId, { command: { resume } }));
}

function renderReview(threadId, value, request) {
  const tasks = tasksOf(request);
  // "Ask for changes" is a reject with a message: a revision, while any are left.
  const canRevise = request.allowed.includes("reject") && Number(value?.revisionsLeft ?? 1) > 0;
  const shown = REVIEW_ACTIONS.filter((a) => (a === "respond" ? canRevise : request.allowed.includes(a)));
  const verbs = shown.map((a) => ACTION_VERB[a]);
  const choice = verbs.length > 1 ? `${verbs.slice(0, -1).join(", ")} or ${verbs.at(-1)}` : verbs[0];
  const item = card(choice ? `Proposed tasks: ${choice}` : "Proposed tasks");
  for (const note of Array.isArray(value?.notes) ? value.notes : []) {
    item.append(paragraph(`Note: ${note}`, "task-detail"));
  }
  const list = document.createElement("ol");
  const titles = tasks.map((task) => {
    const li = document.createElement("li");
    const title = document.createElement("span");
    title.className = "task-title";
    title.textContent = String(task.title ?? "");
    li.append(title);
    const after = Array.isArray(task.depends_on) && task.depends_on.length
      ? ` (after ${task.depends_on.join(", ")})`
      : "";
    if (task.acceptance || after) {
      const detail = document.createElement("span");
      detail.className = "task-detail";
      detail.textContent = `${task.id ? `${task.id}: ` : ""}${task.acceptance ?? ""}${after}`;
      li.append(detail);
    }
    list.append(li);
    return title;
  });
  const actions = document.createElement("div");
  actions.className = "actions";
  const buttons = {};
  for (const action of shown) {
    const style = { edit: "secondary", respond: "secondary", reject: "danger" }[action];
    buttons[action] = button(ACTION_LABEL[action], style);
    actions.append(buttons[action]);
  }
  item.append(list, actions);
  ui.messages.append(item);
  scrollToEnd();
  (buttons.approve ?? actions.firstElementChild)?.focus();

  let inputs = null;
  buttons.approve?.addEventListener("click", () =>
    resumeWith(threadId, actions, "Approved.", decide({ type: "approve" })));
  buttons.reject?.addEventListener("click", () =>
    resumeWith(threadId, actions, "Rejected.", decide({ type: "reject" })));
  let revision = null;
  buttons.respond?.addEventListener("click", () => {
    // The planner redrafts with this instruction and asks for review again.
    revision ??= textForm("What should change", "Send request", (text) => {
      if (busy) return showError("Wait for the current answer to finish, then try again.");
      revision.form.remove();
      resumeWith(
        threadId, actions, `You asked for changes: ${text}`, decide({ type: "reject", message: text }),
      );
    });
    if (!revision.form.isConnected) actions.before(revision.form);
    revision.input.focus();
  });
  buttons.edit?.addEventListener("click", () => {
    if (!inputs) {
      inputs = titles.map((title, index) => {
        const input = document.createElement("input");
        input.type = "text";
        input.value = title.textContent;
        input.setAttribute("aria-label", `Title of task ${index + 1}`);
        title.replaceWith(input);
        return input;
      });
      buttons.edit.textContent = "Send edits";
      if (buttons.approve) buttons.approve.disabled = true;
      if (buttons.respond) buttons.respond.disabled = true;
      inputs[0]?.focus();
      return;
    }
    const edited = tasks.map((task, index) => ({
      ...task,
      title: inputs[index].value.trim() || String(task.title ?? ""),
    }));
    resumeWith(threadId, actions, "Edited and sent back.", decide({
      type: "edit",
      edited_action: { name: request.name, args: { ...request.args, tasks: edited } },
    }));
  });
}

function renderClarification(threadId, value, request) {
  const item = card("The planner asks");
  item.append(paragraph(String(value?.question ?? "Could you say more about the goal?")));
  const { form, input } = textForm("Your answer", "Answer", (text) =>
    resumeWith(threadId, form, `You answered: ${text}`, decide({
      type: "edit",
      edited_action: { name: request.name, args: { ...request.args, answer: text } },
    })));
  const stop = button("Stop planning", "danger");
  form.append(stop);
  item.append(form);
  ui.messages.append(item);
  scrollToEnd();
  input.focus();
  stop.addEventListener("click", () =>
    resumeWith(threadId, form, "Planning stopped.", decide({ type: "reject" })));
}

// --- /delivery -------------------------------------------------------------------------
// delivery-chain reports {type: "workflow-progress", stage, status, index (1-based), total};
// review stages run in parallel, so the bar counts finished stages rather than the index.

function startProgress() {
  ui.progressBar.max = 1;
  ui.progressBar.value = 0;
  ui.progressLabel.textContent = "Delivery: starting…";
  ui.progress.hidden = false;
  return new Set();
}

function showProgress(event, finished) {
  const total = Math.max(1, Number(event.total) || 1);
  const stage = String(event.stage ?? "stage");
  const index = Number(event.index) || 0;
  if (event.status === "succeeded") finished.add(stage);
  ui.progressBar.max = total;
  ui.progressBar.value = Math.min(total, finished.size);
  const what = { started: "running", succeeded: "done", failed: "failed" }[event.status] ?? event.status;
  ui.progressLabel.textContent =
    `Delivery: ${finished.size} of ${total} stages done — stage ${index} “${stage}” ${what}.`;
}

async function runDelivery(requirement) {
  addMessage("user", `/delivery ${requirement}`);
  const finished = startProgress();
  const thread = await requestJson("POST", "/threads", {});
  const result = await streamRun(`/threads/${encodeURIComponent(thread.thread_id)}/runs/stream`, {
    assistant_id: GRAPH.delivery,
    input: { messages: [{ type: "human", content: requirement, id: uuid() }] },
  }, {
    onCustom(event) {
      if (event?.type === "workflow-progress") showProgress(event, finished);
    },
  });
  const report = result.values?.report || lastAiAnswer(result.values);
  if (!report) throw new HumanError(EMPTY_ANSWER);
  addReport(report, result.values?.status === "failed" ? "failed" : "done");
  ui.progressLabel.textContent = result.values?.status === "failed"
    ? "Delivery stopped: a stage failed."
    : `Delivery finished: ${finished.size} of ${ui.progressBar.max} stages done.`;
}

// --- composer and wiring ---------------------------------------------------------------

const COMMANDS = [
  ["/tasklist", runTasklist, "Add a goal after /tasklist, for example: /tasklist plan the launch."],
  ["/delivery", runDelivery, "Add a requirement after /delivery, for example: /delivery a login page."],
];

/** Run one user action with the page marked busy; errors become a sentence on the page. */
async function runAction(action, { refresh = true } = {}) {
  clearError();
  setBusy(true);
  try {
    await action();
  } catch (error) {
    showError(error instanceof HumanError ? error.message : "Something went wrong on this page. Reload and try again.");
    if (!(error instanceof HumanError)) console.error(error);
  } finally {
    setBusy(false);
    if (refresh) await refreshMemory();
    scrollToEnd();
    document.body.dataset.actions = String(++actionsDone);
    if (!document.activeElement || document.activeElement === document.body || document.activeElement.disabled) {
      ui.composer.focus();
    }
  }
}

function dispatch(text) {
  for (const [prefix, run, usage] of COMMANDS) {
    if (text === prefix || text.startsWith(`${prefix} `) || text.startsWith(`${prefix}\n`)) {
      const argument = text.slice(prefix.length).trim();
      if (!argument) {
        showError(usage);
        return null;
      }
      return () => run(argument);
    }
  }
  return () => sendChat(text);
}

function submit() {
  if (busy) return;
  const text = ui.composer.value.trim();
  if (!text) {
    ui.composer.focus();
    return;
  }
  const action = dispatch(text);
  if (!action) return;
  ui.composer.value = "";
  showStatus("");
  runAction(action);
}

async function newConversation() {
  if (busy) return;
  await runAction(async () => {
    await request("DELETE", HYDRATE_PATH);
    ui.messages.replaceChildren();
    ui.restored.hidden = true;
    ui.progress.hidden = true;
    renderMemory({});
    showStatus("Started a new conversation; memory was cleared.");
  }, { refresh: false });
  ui.composer.focus();
}

async function hydrate() {
  await runAction(async () => {
    const dto = await requestJson("GET", HYDRATE_PATH);
    const messages = Array.isArray(dto?.messages) ? dto.messages : [];
    ui.messages.replaceChildren();
    for (const message of messages) {
      const role = message?.role === "user" ? "user" : "assistant";
      const text = String(message?.text ?? "");
      // Reports (delivery-chain) are stored as markdown that opens with a heading.
      const item = role === "assistant" && REPORT_START.test(text)
        ? addReport(text)
        : addMessage(role, text);
      if (message?.id) item.dataset.messageId = String(message.id);
      finishMessage(item);
    }
    ui.restored.hidden = !(dto?.restored && messages.length);
    renderMemory(dto);
  }, { refresh: false });
  document.body.dataset.ready = "true";
}

ui.form.addEventListener("submit", (event) => {
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
$("memory-panel").addEventListener("toggle", scrollToEnd);

hydrate();
