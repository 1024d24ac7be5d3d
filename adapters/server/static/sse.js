// Server-sent events over fetch + ReadableStream: EventSource cannot POST a run body.
// langgraph_api frames events as "event: <name>\r\ndata: <json>\r\n\r\n" and sends
// ": heartbeat" comments while a run is quiet.

/** Split one raw event block into {event, data}; null for comments-only blocks. */
export function parseBlock(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return null;
  const text = data.join("\n");
  try {
    return { event, data: JSON.parse(text) };
  } catch {
    return { event, data: text };
  }
}

/** Read a streaming response and call onEvent(name, data) for each event, in order. */
export async function readEvents(response, onEvent) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer = (buffer + decoder.decode(value, { stream: true })).replace(/\r\n/g, "\n");
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const parsed = parseBlock(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (parsed) onEvent(parsed.event, parsed.data);
      end = buffer.indexOf("\n\n");
    }
  }
  buffer = (buffer + decoder.decode()).replace(/\r\n/g, "\n");
  const tail = parseBlock(buffer.trim());
  if (tail) onEvent(tail.event, tail.data);
}
