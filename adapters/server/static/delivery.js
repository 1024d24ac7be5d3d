// /delivery: delivery-chain runs on a thread of its own and reports {type:
// "workflow-progress", stage, status, index (1-based), total}; review stages run in
// parallel, so the bar counts finished stages rather than the index.

import { commandThreadMetadata } from "./chat_thread.js";
import { EMPTY_ANSWER, HumanError, requestJson, threadPath } from "./http.js";
import { t } from "./i18n.js";
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
  progress.label.textContent = t("delivery.starting");
  progress.box.hidden = false;
  return new Set();
}

function showProgress(event, finished) {
  const total = Math.max(1, Number(event.total) || 1);
  const stage = String(event.stage ?? t("delivery.stageName"));
  const index = Number(event.index) || 0;
  if (event.status === "succeeded") finished.add(stage);
  progress.bar.max = total;
  progress.bar.value = Math.min(total, finished.size);
  const what = { started: "running", succeeded: "done", failed: "failed" }[event.status];
  progress.label.textContent = t("delivery.stage", {
    done: finished.size, total, index, stage, what: what ? t(`delivery.${what}`) : String(event.status),
  });
}

export function hideProgress() {
  progress.box.hidden = true;
}

/** The report of a delivery thread's values as the page shows it, or null. */
export function showDeliveryReport(values, { append = true } = {}) {
  const report = values?.report || lastAiAnswer(values);
  if (!report) return null;
  return addReport(report, {
    state: values?.status === "failed" ? "failed" : "done",
    append,
    id: typeof values?.report_message_id === "string" ? values.report_message_id : "",
  });
}

/** Run the chain on ``requirement``, the user's message ``messageId`` (the page shows it
 *  already), on a thread of its own that names the conversation it belongs to. */
export async function runDelivery(requirement, messageId) {
  const finished = startProgress();
  const thread = await requestJson("POST", "/threads", { metadata: await commandThreadMetadata() });
  const result = await streamRun(`${threadPath(thread.thread_id)}/runs/stream`, {
    assistant_id: DELIVERY_GRAPH,
    input: { messages: [{ type: "human", content: requirement, id: messageId }] },
  }, {
    onCustom(event) {
      if (event?.type === "workflow-progress") showProgress(event, finished);
    },
  });
  if (!showDeliveryReport(result.values)) throw new HumanError(EMPTY_ANSWER);
  progress.label.textContent = result.values?.status === "failed"
    ? t("delivery.stopped")
    : t("delivery.finished", { done: finished.size, total: progress.bar.max });
}
