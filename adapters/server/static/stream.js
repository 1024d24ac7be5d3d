// Streaming runs over the LangGraph REST API, and reading messages out of them.

import { HumanError, request } from "./http.js";
import { t } from "./i18n.js";
import { readEvents } from "./sse.js";

const STREAM_MODES = ["messages-tuple", "custom", "values"];
const FINAL_TURN_NODE = "final_turn";
const RUN_ERROR = t("error.run");

/** Every custom stream event, dispatched by its ``type`` (e.g. "thread-memory-status"). */
export const customEvents = new EventTarget();

/**
 * POST a streaming run and dispatch its events. Resolves with the last `values` state and
 * any interrupts; rejects with a HumanError when the run could not start or failed.
 */
export async function streamRun(path, body, { onToken, onCustom } = {}) {
  const response = await request(
    "POST", path, { stream_mode: STREAM_MODES, ...body }, "text/event-stream",
  );
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
        if (typeof data?.type === "string") {
          customEvents.dispatchEvent(new CustomEvent(data.type, { detail: data }));
        }
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
    throw new HumanError(t("error.dropped"));
  }
  if (result.failed) throw new HumanError(RUN_ERROR);
  return result;
}

/** The text of an AI message or chunk from the messages stream, or null for anything else. */
export function aiText(message) {
  if (!message || typeof message !== "object") return null;
  const type = String(message.type ?? "");
  if (type !== "ai" && type !== "AIMessageChunk") return null;
  return contentText(message.content);
}

function isChunk(message) {
  return String(message?.type ?? "").endsWith("Chunk");
}

/** The text of a message's content: a string, or the text parts of a list. */
export function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "string" ? part : part?.type === "text" ? part.text ?? "" : ""))
      .join("");
  }
  return "";
}

/** ``{id, text}`` of the last AI message with text in a graph state's `messages` (after
 *  the message ``afterId``, when given and found), or null. */
export function lastAiMessage(state, afterId = null) {
  const messages = Array.isArray(state?.messages) ? state.messages : [];
  const start = afterId ? messages.findIndex((m) => m?.id === afterId) + 1 : 0;
  for (let i = messages.length - 1; i >= start; i--) {
    const text = aiText(messages[i]);
    if (text && text.trim()) return { id: String(messages[i].id ?? ""), text };
  }
  return null;
}

/** The text of the last AI message with text in a graph state's `messages`, or null. */
export function lastAiAnswer(state) {
  return lastAiMessage(state)?.text ?? null;
}
