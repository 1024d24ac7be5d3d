// /delivery: delivery-chain runs on a thread of its own and reports {type:
// "workflow-progress", stage, status, index (1-based), total}; review stages run in
// parallel, so the bar counts finished stages rather than the index.

import { EMPTY_ANSWER, HumanError, requestJson, threadPath, uuid } from "./http.js";
import { lastAiAnswer, streamRun } from "./stream.js";
import { addReport } from "./view.js";

export const DELIVERY_GRAPH = "delivery-chain";
export const DELIVERY_PREFIX = "/delivery";
/** The report's message id is the requirement's plus this (graphs/delivery_chain/nodes.py). */
export const REPORT_ID_SUFFIX = ":delivery-report";

const $ = (id) => document.getElementById(id);
const progress = { box: $("progress"), bar: $("progress-bar"), label: $("progress-label") };

function startProgress() {
  progress.bar.max = 1;
  progress.bar.value = 0;
  progress.label.textContent = "Delivery: starting…";
  progress.box.hidden = false;
  return new Set();
}

function showProgress(event, finished) {
  const total = Math.max(1, Number(event.total) || 1);
  const stage = String(event.stage ?? "stage");
  const index = Number(event.index) || 0;
  if (event.status === "succeeded") finished.add(stage);
  progress.bar.max = total;
  progress.bar.value = Math.min(total, finished.size);
  const what = { started: "running", succeeded: "done", failed: "failed" }[event.status] ?? event.status;
  progress.label.textContent =
    `Delivery: ${finished.size} of ${total} stages done — stage ${index} “${stage}” ${what}.`;
}

export function hideProgress() {
  progress.box.hidden = true;
}

/** Run the chain on ``requirement`` (the page has shown the user's message already). */
export async function runDelivery(requirement) {
  const finished = startProgress();
  const thread = await requestJson("POST", "/threads", {});
  const result = await streamRun(`${threadPath(thread.thread_id)}/runs/stream`, {
    assistant_id: DELIVERY_GRAPH,
    input: { messages: [{ type: "human", content: requirement, id: uuid() }] },
  }, {
    onCustom(event) {
      if (event?.type === "workflow-progress") showProgress(event, finished);
    },
  });
  const report = result.values?.report || lastAiAnswer(result.values);
  if (!report) throw new HumanError(EMPTY_ANSWER);
  addReport(report, { state: result.values?.status === "failed" ? "failed" : "done" });
  progress.label.textContent = result.values?.status === "failed"
    ? "Delivery stopped: a stage failed."
    : `Delivery finished: ${finished.size} of ${progress.bar.max} stages done.`;
}
