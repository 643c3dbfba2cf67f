// recorder: a dshhost plugin (docs/plugin-protocol.md) that appends every
// observation to a JSONL file. Erasable TypeScript only: Node 22 runs it as is.
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

interface Message {
  jsonrpc: "2.0";
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
}

interface Target {
  path: string;
  key: string | null;
  rel: string | null;
}

interface Observed {
  target: Target;
  kind: "present" | "absent";
  version: string | null;
  actor: { conversation: string | null; principal: string; tool: string; call: string } | null;
}

let file = "observations.jsonl";

function reply(id: number, result: unknown): void {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n");
}

function record(o: Observed): void {
  const line = { time: new Date().toISOString(), ...o };
  appendFileSync(file, JSON.stringify(line) + "\n");
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line: string) => {
  const msg = JSON.parse(line) as Message;
  if (msg.method === "initialize" && msg.id !== undefined) {
    const settings = (msg.params?.settings ?? {}) as { path?: string };
    file = settings.path ?? file;
    reply(msg.id, { name: "recorder", version: "1.0.0", events: ["fs/observed"], tools: [] });
  } else if (msg.method === "fs/observed") {
    record(msg.params as unknown as Observed);
  } else if (msg.id !== undefined) {
    const error = { code: -32601, message: `method not found: ${msg.method}` };
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error }) + "\n");
  }
});
