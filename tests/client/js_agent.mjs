// An agent served by the official @a2a-js/sdk 1.x server core (A2A 1.0 over JSON-RPC) on
// node:http, for tests/client/test_client_js.py: `node tests/client/js_agent.mjs PORT`.
// It echoes (`echo: <text>`, one artifact, completed); `slow N` works N x 0.2 s first (for
// cancel). The SDK's express adapter is not installed, so the HTTP plumbing (the card, one
// JSON-RPC endpoint, SSE for streams) is written here around its JsonRpcTransportHandler.
import http from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "interop", "js", "package.json"));
const server = require("@a2a-js/sdk/server");
const {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
} = server;

const port = Number(process.argv[2]);
const base = `http://127.0.0.1:${port}`;
const COMPLETED = 3;
const WORKING = 2;
const CANCELED = 5;
const SUBMITTED = 1;

const card = {
  name: "JS SDK Echo",
  description: "Echoes text (official @a2a-js/sdk server).",
  version: "1.0.0",
  supportedInterfaces: [
    { url: `${base}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
  ],
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes.", tags: ["test"], examples: [],
             inputModes: [], outputModes: [], securityRequirements: [] }],
  signatures: [],
};

const text = (value) => ({ content: { $case: "text", value }, metadata: undefined,
                           filename: "", mediaType: "" });
const status = (state) => ({ state, message: undefined, timestamp: new Date().toISOString() });
const canceled = new Set();

const executor = {
  async execute(ctx, bus) {
    const input = ctx.userMessage.parts
      .map((p) => (p.content && p.content.$case === "text" ? p.content.value : ""))
      .join("");
    const common = { taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined };
    if (!ctx.task) {
      bus.publish(AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId,
        status: status(SUBMITTED), artifacts: [], history: [ctx.userMessage],
        metadata: undefined }));
    }
    bus.publish(AgentEvent.statusUpdate({ ...common, status: status(WORKING) }));
    const slow = /^slow (\d+)$/.exec(input.trim());
    for (let i = 0; slow && i < Number(slow[1]); i++) {
      if (canceled.has(ctx.taskId)) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (canceled.has(ctx.taskId)) return;
    bus.publish(AgentEvent.artifactUpdate({ ...common, append: false, lastChunk: true,
      artifact: { artifactId: `a-${ctx.taskId}`, name: "echo", description: "",
                  parts: [text(`echo: ${input}`)], metadata: undefined, extensions: [] } }));
    bus.publish(AgentEvent.statusUpdate({ ...common, status: status(COMPLETED) }));
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    canceled.add(taskId);
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: "", metadata: undefined,
                                          status: status(CANCELED) }));
    bus.finished();
  },
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const jsonrpc = new JsonRpcTransportHandler(handler);

http.createServer(async (req, res) => {
  if (req.method === "GET" && req.url === "/health") {
    res.writeHead(200).end("ok");
    return;
  }
  if (req.method === "GET" && req.url === "/.well-known/agent-card.json") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(card));
    return;
  }
  if (req.method !== "POST" || req.url !== "/") {
    res.writeHead(404).end();
    return;
  }
  let body = "";
  for await (const chunk of req) body += chunk;
  const version = req.headers["a2a-version"] || "0.3";
  const context = new ServerCallContext({ requestedVersion: version });
  const result = await jsonrpc.handle(body, context);
  if (result && typeof result[Symbol.asyncIterator] === "function") {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for await (const event of result) res.write(`data: ${JSON.stringify(event)}\n\n`);
    res.end();
    return;
  }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
}).listen(port, "127.0.0.1");
