// Drives our server with the official @a2a-js/sdk client, the way a JS user would, and prints
// one JSON object of observations per feature (tests/interop/test_js_sdk.py asserts on them).
//
// Usage: node client.mjs <interop server URL> <transport: JSONRPC | HTTP+JSON>
//
// The client is built from the agent card (ClientFactory.createFromUrl); `preferredTransports`
// picks the binding, and the factory takes the card's v1.0 interface for it. Each feature runs
// on its own so one failure does not hide the others; a failed feature reports its error.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { ListTasksRequest, Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";

const [, , baseUrl, transport] = process.argv;
const WEBHOOK = "http://127.0.0.1:9/a2a-webhook";

// What went over the wire: each HTTP call's method, path, A2A-Version header and JSON-RPC
// method, so the test can check the client spoke v1.0 on the binding it was asked for.
const wire = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : {}));
  let rpcMethod = null;
  if (typeof init.body === "string") {
    try {
      rpcMethod = JSON.parse(init.body).method ?? null;
    } catch {
      rpcMethod = null;
    }
  }
  wire.push({
    http: init.method ?? "GET",
    path: url.pathname,
    a2aVersion: headers.get("A2A-Version"),
    rpcMethod,
  });
  return realFetch(input, init);
};

function textMessage(text, extra = {}) {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, mediaType: "text/plain" }],
    ...extra,
  };
}

const stateName = (state) => TaskState[state];
const texts = (parts) =>
  (parts ?? []).filter((p) => p.content?.$case === "text").map((p) => p.content.value);

function describeTask(task) {
  return {
    id: task.id,
    contextId: task.contextId,
    state: stateName(task.status?.state),
    artifacts: (task.artifacts ?? []).map((a) => texts(a.parts).join("")),
    history: (task.history ?? []).map((m) => ({ role: Role[m.role], text: texts(m.parts).join("") })),
  };
}

function describeEvent(response) {
  const payload = response.payload;
  switch (payload?.$case) {
    case "task":
      return { kind: "task", state: stateName(payload.value.status?.state), id: payload.value.id };
    case "statusUpdate":
      return { kind: "statusUpdate", state: stateName(payload.value.status?.state) };
    case "artifactUpdate":
      return {
        kind: "artifactUpdate",
        text: texts(payload.value.artifact?.parts).join(""),
        append: payload.value.append,
        lastChunk: payload.value.lastChunk,
      };
    case "message":
      return { kind: "message", text: texts(payload.value.parts).join("") };
    default:
      return { kind: String(payload?.$case) };
  }
}

async function collect(stream) {
  const events = [];
  for await (const response of stream) events.push(describeEvent(response));
  return events;
}

async function startSlowTask(client, spec) {
  const result = await client.sendMessage({
    message: textMessage(spec),
    configuration: { returnImmediately: true },
  });
  return result;
}

function errorOf(error) {
  return { name: error?.constructor?.name, message: String(error?.message ?? error) };
}

const features = {
  async card(client) {
    const card = await client.getAgentCard();
    return {
      name: card.name,
      clientProtocolVersion: client.protocolVersion,
      interfaces: card.supportedInterfaces.map((i) => ({
        url: i.url,
        binding: i.protocolBinding,
        version: i.protocolVersion,
      })),
    };
  },

  async send(client) {
    const task = await client.sendMessage({ message: textMessage("hello from js") });
    return describeTask(task);
  },

  async stream(client) {
    return { events: await collect(client.sendMessageStream({ message: textMessage("stream me") })) };
  },

  async get(client) {
    const sent = await client.sendMessage({ message: textMessage("get me") });
    const full = await client.getTask({ id: sent.id });
    const none = await client.getTask({ id: sent.id, historyLength: 0 });
    return { sentId: sent.id, task: describeTask(full), historyWhenZero: (none.history ?? []).length };
  },

  async list(client) {
    const contextId = randomUUID();
    const ids = [];
    for (const text of ["first", "second"]) {
      const task = await client.sendMessage({ message: textMessage(text, { contextId }) });
      ids.push(task.id);
    }
    // fromJSON fills the proto defaults (status UNSPECIFIED, empty tenant and token) that a
    // bare object literal leaves undefined, which the SDK would send as "UNRECOGNIZED".
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 10 }));
    const completed = await client.listTasks(
      ListTasksRequest.fromJSON({ contextId, status: "TASK_STATE_COMPLETED" }),
    );
    return {
      completedInContext: completed.tasks.map((t) => t.id),
      sentIds: ids,
      listedIds: listed.tasks.map((t) => t.id),
      totalSize: listed.totalSize,
      pageSize: listed.pageSize,
      nextPageToken: listed.nextPageToken,
    };
  },

  async cancel(client) {
    const started = await startSlowTask(client, "slow 100 0.2");
    const canceled = await client.cancelTask({ id: started.id });
    return { startedState: stateName(started.status?.state), canceled: describeTask(canceled) };
  },

  async subscribe(client) {
    const started = await startSlowTask(client, "slow 3 0.3");
    const events = await collect(client.resubscribeTask({ id: started.id }));
    return { events };
  },

  async pushConfigs(client) {
    const started = await startSlowTask(client, "slow 100 0.2");
    const created = await client.createTaskPushNotificationConfig({
      taskId: started.id,
      url: WEBHOOK,
      token: "js-token",
    });
    const got = await client.getTaskPushNotificationConfig({ taskId: started.id, id: created.id });
    const listed = await client.listTaskPushNotificationConfig({ taskId: started.id });
    await client.deleteTaskPushNotificationConfig({ taskId: started.id, id: created.id });
    const after = await client.listTaskPushNotificationConfig({ taskId: started.id });
    await client.cancelTask({ id: started.id });
    return {
      created: { url: created.url, token: created.token, taskId: created.taskId, hasId: !!created.id },
      got: { url: got.url, id: got.id === created.id },
      listed: listed.configs.map((c) => c.url),
      afterDelete: after.configs.length,
    };
  },

  async unknownTask(client) {
    try {
      await client.getTask({ id: randomUUID() });
      return { raised: null };
    } catch (error) {
      return { raised: errorOf(error) };
    }
  },
};

const version = JSON.parse(
  readFileSync(new URL("./node_modules/@a2a-js/sdk/package.json", import.meta.url), "utf8"),
).version;
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }),
);
const client = await factory.createFromUrl(baseUrl);
const results = { sdkVersion: version };
for (const [name, run] of Object.entries(features)) {
  try {
    results[name] = await run(client);
  } catch (error) {
    results[name] = { error: errorOf(error), stack: String(error?.stack ?? "") };
  }
}
results.wire = wire;
process.stdout.write(JSON.stringify(results, null, 1) + "\n");
