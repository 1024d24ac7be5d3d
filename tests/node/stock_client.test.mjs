// The official LangGraph JS SDK (@langchain/langgraph-sdk, what agent-chat-ui is built on)
// against our `langgraph dev`, unchanged: the session token is its `apiKey` (X-Api-Key).
// Run by tests/server/test_stock_clients.py, which starts the server and passes
// AIMIND_TEST_URL and two fresh session tokens.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import { Client } from "@langchain/langgraph-sdk";

const apiUrl = process.env.AIMIND_TEST_URL;
const tokenA = process.env.AIMIND_TEST_TOKEN_A;
const tokenB = process.env.AIMIND_TEST_TOKEN_B;
const GOAL = "Plan the launch of our new recipe app next month";

const client = (apiKey) => new Client({ apiUrl, apiKey, timeoutMs: 120_000 });
const human = (text, id = randomUUID()) => ({ messages: [{ type: "human", content: text, id }] });

/** What agent-chat-ui's review buttons do (useStream().submit({}, {command}), SDK
 *  react/stream.lgp.js): runs.stream with input {} and the command, read to the end. */
async function press(sdk, threadId, assistantId, command) {
  const events = [];
  for await (const part of sdk.runs.stream(threadId, assistantId, {
    input: {},
    command,
    streamMode: ["messages-tuple", "values", "custom"],
  })) {
    events.push(part);
  }
  const errors = events.filter((part) => part.event === "error");
  assert.deepEqual(errors, [], "the resume streams without an error");
  return (await sdk.threads.getState(threadId)).values;
}
const decide = (decision) => ({ resume: { decisions: [decision] } });

/** The one pending interrupt's value, read the way agent-chat-ui does: from the thread. */
async function pendingInterrupt(sdk, threadId) {
  const state = await sdk.threads.getState(threadId);
  const interrupts = state.tasks.flatMap((task) => task.interrupts ?? []);
  assert.equal(interrupts.length, 1, "one pending interrupt");
  return interrupts[0].value;
}

async function startReview(sdk) {
  const thread = await sdk.threads.create();
  await sdk.runs.wait(thread.thread_id, "tasklist-agent", { input: human(GOAL) });
  return thread.thread_id;
}

test("apiKey authenticates; a missing or malformed key is refused", async () => {
  const assistants = await client(tokenA).assistants.search({ graphId: "chat" });
  assert.ok(assistants.length >= 1);
  await assert.rejects(client(null).threads.search({}), /401/);
  await assert.rejects(client("short").threads.search({}), /401/);
});

test("three chat turns on one thread: getState shows all three, with stable ids", async () => {
  const sdk = client(tokenA);
  const thread = await sdk.threads.create();
  const answers = [];
  for (const n of [1, 2, 3]) {
    const out = await sdk.runs.wait(thread.thread_id, "chat", { input: human(`node turn ${n}`, `node-q${n}`) });
    const answer = out.messages.at(-1);
    assert.equal(answer.type, "ai");
    answers.push(answer.id);
  }
  const state = await sdk.threads.getState(thread.thread_id);
  const shown = state.values.messages.map((m) => [m.type, m.id]);
  for (const n of [1, 2, 3]) {
    const at = shown.findIndex(([, id]) => id === `node-q${n}`);
    assert.ok(at >= 0, `turn ${n}'s question is shown`);
    assert.deepEqual(shown[at + 1], ["ai", answers[n - 1]], `turn ${n}'s answer keeps its id`);
  }
  assert.equal(state.values.messages.length, 6, "the thread's whole conversation");
  assert.equal(state.values.memory_context.available, true);
});

test("tasklist review: the v1 interrupt from getState, approved through runs.stream", async () => {
  const sdk = client(tokenA);
  const threadId = await startReview(sdk);
  const value = await pendingInterrupt(sdk, threadId);
  const [request] = value.action_requests;
  assert.equal(request.name, "review_tasklist");
  assert.equal(typeof request.args.tasks, "string", "the tasks are readable text");
  assert.equal(request.args.tasks.split("\n").length, 3, "one task per line");
  assert.equal(typeof request.description, "string");
  assert.deepEqual(value.review_configs, [
    { action_name: "review_tasklist", allowed_decisions: ["approve", "edit", "reject"] },
  ]);
  const done = await press(sdk, threadId, "tasklist-agent", decide({ type: "approve" }));
  assert.equal(done.status, "final");
  assert.match(done.summary, /approved/);
});

test("tasklist review: an edited text box becomes the plan", async () => {
  const sdk = client(tokenA);
  const threadId = await startReview(sdk);
  const [request] = (await pendingInterrupt(sdk, threadId)).action_requests;
  const tasks = request.args.tasks.replace("Do the main work", "Pick the date");
  const done = await press(sdk, threadId, "tasklist-agent", decide({
    type: "edit", edited_action: { name: request.name, args: { ...request.args, tasks } },
  }));
  assert.equal(done.status, "final");
  assert.match(done.summary, /finalised with your edits/);
  assert.match(done.artifact, /Pick the date/);
});

test("tasklist review: reject with a reason gets a revised plan, Mark as Resolved ends it", async () => {
  const sdk = client(tokenA);
  const threadId = await startReview(sdk);
  const before = (await pendingInterrupt(sdk, threadId)).action_requests[0].args.tasks;
  await press(sdk, threadId, "tasklist-agent", decide({ type: "reject", message: "add a press kit" }));
  const revised = await pendingInterrupt(sdk, threadId);
  const tasks = revised.action_requests[0].args.tasks;
  assert.equal(tasks.split("\n").length, before.split("\n").length + 1);
  assert.match(tasks, /add a press kit/);
  const done = await press(sdk, threadId, "tasklist-agent", { goto: "__end__" });
  assert.equal(done.status, "rejected");
  assert.match(done.summary, /marked as resolved/);
  const state = await sdk.threads.getState(threadId);
  assert.deepEqual(state.next, [], "nothing waits any more");
});

test("clarifying question: its text in args, answered through runs.stream", async () => {
  const sdk = client(tokenA);
  const thread = await sdk.threads.create();
  await sdk.runs.wait(thread.thread_id, "tasklist-agent", { input: human("launch it") });
  const [request] = (await pendingInterrupt(sdk, thread.thread_id)).action_requests;
  assert.equal(request.name, "answer_question");
  assert.ok(request.args.question.length > 0 && request.description.startsWith(request.args.question));
  await press(sdk, thread.thread_id, "tasklist-agent", decide({
    type: "edit",
    edited_action: { name: request.name, args: { ...request.args, answer: "the recipe app, by June" } },
  }));
  const next = await pendingInterrupt(sdk, thread.thread_id);
  assert.equal(next.action_requests[0].name, "review_tasklist");
});

test("threads.search is owner-scoped", async () => {
  const mine = await client(tokenA).threads.search({ limit: 100 });
  assert.ok(mine.length >= 4, "A sees its own threads");
  const theirs = await client(tokenB).threads.search({ limit: 100 });
  const ids = new Set(theirs.map((t) => t.thread_id));
  assert.ok(mine.every((t) => !ids.has(t.thread_id)), "B sees none of A's threads");
  await assert.rejects(client(tokenB).threads.getState(mine[0].thread_id), /404/);
});
