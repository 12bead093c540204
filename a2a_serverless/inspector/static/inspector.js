// The A2A inspector: plain JavaScript, no build step. It talks to the agent through the app's
// own JSON-RPC endpoint, exactly as a client does, plus the inspector API for push deliveries.
// It speaks A2A 1.0 (the A2A-Version header, 1.0's methods and shapes) or 0.3, as chosen; what
// it receives is turned into one shape for display (0.3's), and shown as sent in the JSON views.
"use strict";

const STATES = ["submitted", "working", "input-required", "auth-required", "completed",
  "canceled", "failed", "rejected", "unknown"];
const TERMINAL = new Set(["completed", "canceled", "failed", "rejected"]);
// The states a stream of events stops at: a v1.0 status update has no `final`, its stream ends.
const STREAM_ENDS = new Set([...TERMINAL, "input-required", "auth-required"]);
// Timeline events rendered at once (each with its buttons): a long log is paged.
const TIMELINE_PAGE = 100;
// Events listed by a replay; more are counted, not rendered.
const REPLAY_SHOWN = 100;
const V10 = "1.0";
const METHODS = {
  send: { "0.3": "message/send", "1.0": "SendMessage" },
  stream: { "0.3": "message/stream", "1.0": "SendStreamingMessage" },
  list: { "0.3": "tasks/list", "1.0": "ListTasks" },
  get: { "0.3": "tasks/get", "1.0": "GetTask" },
  cancel: { "0.3": "tasks/cancel", "1.0": "CancelTask" },
  subscribe: { "0.3": "tasks/resubscribe", "1.0": "SubscribeToTask" },
};
const ROOT = location.pathname.slice(0, location.pathname.indexOf("/_inspector/"));
const API = ROOT + "/_inspector/api";
const $ = (id) => document.getElementById(id);

const state = {
  info: null,
  version: V10,
  contextId: null,
  taskId: null,
  selected: null,
  timelineAbort: null,
  replayAbort: null,
  timeline: { events: [], page: 0, follow: true },
  files: [],
  busy: false,
  // What each panel last showed (its JSON): refreshing unchanged content leaves it alone.
  shown: { tasks: null, task: null, push: null, calls: null },
};

// --- DOM helpers -------------------------------------------------------------------------------

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function badge(value) {
  return el("span", { class: "state " + value, "data-state": value }, value);
}

function short(id) {
  return id ? id.slice(0, 8) : "";
}

function showError(error) {
  const banner = $("banner");
  banner.textContent = error instanceof Error ? error.message : String(error);
  banner.hidden = false;
}

function clearError() {
  $("banner").hidden = true;
}

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// --- HTTP --------------------------------------------------------------------------------------

function authHeaders() {
  const value = sessionStorage.getItem("a2a-inspector-cred-value");
  const name = sessionStorage.getItem("a2a-inspector-cred-header") || "Authorization";
  return value ? { [name]: value } : {};
}

async function getJson(path) {
  const response = await fetch(path, { headers: authHeaders() });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${body.error || ""}`);
  return body;
}

async function postJson(path, payload) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...authHeaders() },
    body: JSON.stringify(payload),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(`${path}: HTTP ${response.status} ${body.error || body.reason || ""}`);
  }
  return body;
}

function rpcUrl() {
  return ROOT + (state.info ? state.info.rpcPath : "/");
}

function versionHeaders(version) {
  return version === V10 ? { "A2A-Version": V10 } : {};
}

// One call of operation `op` (a key of METHODS) in the chosen version, `params` built for it:
// {value, wire}, the result in the page's shape and as the server sent it.
async function rpc(op, params) {
  const version = state.version;
  const method = METHODS[op][version];
  const response = await fetch(rpcUrl(), {
    method: "POST",
    headers: { "Content-Type": "application/json", ...versionHeaders(version), ...authHeaders() },
    body: JSON.stringify({ jsonrpc: "2.0", id: uuid(), method, params: params(version) }),
  });
  const body = await response.json().catch(() => ({}));
  if (body.error && body.error.message !== undefined) {
    throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
  }
  // Refused before JSON-RPC (e.g. 401): the body's error is a plain string, if any.
  if (!response.ok) throw new Error(`${method}: HTTP ${response.status} ${body.error || ""}`);
  return { value: version === V10 ? fromV1(op, body.result) : body.result, wire: body.result };
}

// A JSON-RPC streaming call: yields {id, data, wire} for each SSE event (id is the event log
// seq; data the event in the page's shape, wire as sent).
async function* rpcStream(op, params, { lastEventId, signal } = {}) {
  const version = state.version;
  const method = METHODS[op][version];
  const headers = { "Content-Type": "application/json", Accept: "text/event-stream",
    ...versionHeaders(version), ...authHeaders() };
  if (lastEventId !== undefined && lastEventId !== null) headers["Last-Event-ID"] = String(lastEventId);
  const response = await fetch(rpcUrl(), {
    method: "POST",
    headers,
    signal,
    body: JSON.stringify({ jsonrpc: "2.0", id: uuid(), method, params: params(version) }),
  });
  const type = response.headers.get("content-type") || "";
  if (!type.startsWith("text/event-stream")) {
    const body = await response.json().catch(() => ({}));
    const error = body.error ? `${body.error.message} (${body.error.code})` : `HTTP ${response.status}`;
    throw new Error(`${method}: ${error}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let id = null;
      const data = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "id") id = text;
        else if (field === "data") data.push(text);
      }
      if (!data.length) continue;
      const message = JSON.parse(data.join("\n"));
      if (message.error) throw new Error(`${method}: ${message.error.message} (${message.error.code})`);
      const event = version === V10 ? eventFromV1(message.result) : message.result;
      yield { id, data: event, wire: message.result };
    }
  }
}

// --- A2A 1.0 <-> the page's shape (0.3's) -------------------------------------------------------

function stateToV1(value) {
  return value === "unknown" ? "TASK_STATE_UNSPECIFIED" : "TASK_STATE_" + value.toUpperCase().replace(/-/g, "_");
}

function stateFromV1(value) {
  if (!value || value === "TASK_STATE_UNSPECIFIED") return "unknown";
  return String(value).replace(/^TASK_STATE_/, "").toLowerCase().replace(/_/g, "-");
}

function partToV1(part) {
  if (part.kind === "text") return { text: part.text };
  if (part.kind === "data") return { data: part.data };
  const file = part.file;
  const out = file.bytes !== undefined ? { raw: file.bytes } : { url: file.uri };
  if (file.mimeType) out.mediaType = file.mimeType;
  if (file.name) out.filename = file.name;
  return out;
}

function partFromV1(part) {
  if (part.text !== undefined) return { kind: "text", text: part.text };
  if (part.raw !== undefined || part.url !== undefined) {
    const file = part.raw !== undefined ? { bytes: part.raw } : { uri: part.url };
    if (part.mediaType) file.mimeType = part.mediaType;
    if (part.filename) file.name = part.filename;
    return { kind: "file", file };
  }
  return { kind: "data", data: part.data };
}

function messageToV1(message) {
  const out = { messageId: message.messageId, role: message.role === "agent" ? "ROLE_AGENT" : "ROLE_USER",
    parts: message.parts.map(partToV1) };
  if (message.contextId) out.contextId = message.contextId;
  if (message.taskId) out.taskId = message.taskId;
  return out;
}

function messageFromV1(message) {
  return { ...message, kind: "message", role: message.role === "ROLE_AGENT" ? "agent" : "user",
    parts: (message.parts || []).map(partFromV1) };
}

function statusFromV1(status) {
  const out = { ...status, state: stateFromV1(status.state) };
  if (status.message) out.message = messageFromV1(status.message);
  return out;
}

function artifactFromV1(artifact) {
  return { ...artifact, parts: (artifact.parts || []).map(partFromV1) };
}

function taskFromV1(task) {
  return { ...task, kind: "task", status: statusFromV1(task.status),
    artifacts: task.artifacts && task.artifacts.map(artifactFromV1),
    history: task.history && task.history.map(messageFromV1) };
}

// A v1.0 StreamResponse (or SendMessageResponse): exactly one of its members is set.
function eventFromV1(result) {
  if (result.task) return taskFromV1(result.task);
  if (result.message) return messageFromV1(result.message);
  if (result.statusUpdate) {
    const status = statusFromV1(result.statusUpdate.status);
    return { ...result.statusUpdate, kind: "status-update", status, final: STREAM_ENDS.has(status.state) };
  }
  if (result.artifactUpdate) {
    return { ...result.artifactUpdate, kind: "artifact-update", artifact: artifactFromV1(result.artifactUpdate.artifact) };
  }
  return result;
}

function fromV1(op, result) {
  if (op === "send") return eventFromV1(result);
  if (op === "get" || op === "cancel") return taskFromV1(result);
  if (op === "list") return { ...result, tasks: (result.tasks || []).map(taskFromV1) };
  return result;
}

// --- parts -------------------------------------------------------------------------------------

function partsText(parts) {
  return (parts || []).map((part) => {
    if (part.kind === "text") return part.text;
    if (part.kind === "file") return `[file ${part.file.name || part.file.uri || ""}]`;
    return JSON.stringify(part.data);
  }).join(" ");
}

// Consecutive text parts read as one text: streamed chunks (tokens) make up flowing text.
function joinText(parts) {
  const out = [];
  for (const part of parts || []) {
    const last = out[out.length - 1];
    if (part.kind === "text" && last && last.kind === "text") {
      out[out.length - 1] = { kind: "text", text: last.text + part.text };
    } else {
      out.push(part);
    }
  }
  return out;
}

// A file's URI is a link only if it is a web address: a `javascript:` (or any other scheme's)
// URI an agent or client sent is shown as text, never made something to click.
function webHref(uri) {
  try {
    const url = new URL(uri, location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

function renderParts(parts) {
  return joinText(parts).map((part) => {
    if (part.kind === "text") return el("div", { class: "part text" }, part.text);
    if (part.kind === "file") {
      const file = part.file;
      const href = file.uri ? webHref(file.uri)
        : `data:${file.mimeType || "application/octet-stream"};base64,${file.bytes}`;
      const label = file.name || file.uri || "file";
      return el("div", { class: "part file" }, "📎 ",
        href ? el("a", { href, download: file.name || "file", target: "_blank", rel: "noopener" }, label)
          : el("span", { class: "uri", title: file.uri }, label),
        file.mimeType ? el("span", { class: "muted" }, ` (${file.mimeType})`) : null);
    }
    return el("pre", { class: "part data" }, JSON.stringify(part.data, null, 2));
  });
}

// Parts added to what `container` shows: text continuing its last text part flows on in it.
function appendParts(container, parts) {
  const nodes = renderParts(parts);
  const last = container.lastElementChild;
  if (nodes.length && last && last.matches(".part.text") && nodes[0].matches(".part.text")) {
    last.append(nodes.shift().textContent);
  }
  container.append(...nodes);
}

// The JSON as it came, as text in a collapsed <pre>, made when first opened.
function rawJson(value, label) {
  const pre = el("pre", { class: "json" });
  return el("details", {
    class: "raw",
    ontoggle: (event) => {
      if (event.target.open && !pre.textContent) pre.textContent = JSON.stringify(value, null, 2);
    },
  }, el("summary", {}, label || "JSON"), pre);
}

function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

// --- chat --------------------------------------------------------------------------------------

function say(kind, who, ...content) {
  const item = el("li", { class: "bubble " + kind }, el("span", { class: "who" }, who), ...content);
  $("transcript").append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

function setConversation(contextId, taskId) {
  state.contextId = contextId || null;
  state.taskId = taskId || null;
  $("chat-context").textContent = state.contextId || "new";
  $("chat-task").textContent = state.taskId || "new";
}

async function send(event) {
  event.preventDefault();
  if (state.busy) return;
  const text = $("message").value.trim();
  if (!text && !state.files.length) return;
  clearError();
  state.busy = true;
  $("send").disabled = true;
  try {
    const parts = [];
    if (text) parts.push({ kind: "text", text });
    for (const file of state.files) {
      parts.push({ kind: "file", file: { name: file.name, mimeType: file.type || "application/octet-stream", bytes: await readFile(file) } });
    }
    const message = { role: "user", kind: "message", messageId: uuid(), parts };
    if (state.contextId) message.contextId = state.contextId;
    if (state.taskId) message.taskId = state.taskId;
    const webhook = $("webhook").value.trim();
    const params = (version) => {
      if (version !== V10) {
        const configuration = { blocking: true };
        if (webhook) configuration.pushNotificationConfig = { url: webhook, id: "inspector" };
        return { message, configuration };
      }
      // v1.0 blocks unless told to return immediately; its push config is flat.
      const configuration = {};
      if (webhook) configuration.taskPushNotificationConfig = { url: webhook, id: "inspector" };
      return { message: messageToV1(message), configuration };
    };
    say("user", "you", ...renderParts(parts));
    $("message").value = "";
    state.files = [];
    $("files").value = "";
    $("attached").textContent = "";
    if ($("stream").checked) await streamTurn(params);
    else await sendTurn(params);
  } catch (error) {
    say("error", "error", error.message);
  } finally {
    state.busy = false;
    $("send").disabled = false;
    refreshTasks();
  }
}

async function sendTurn(params) {
  const { value: result } = await rpc("send", params);
  if (result.kind === "message") {
    setConversation(result.contextId, null);
    say("agent", "agent", ...renderParts(result.parts));
    return;
  }
  showTaskTurn(result);
}

function showTaskTurn(task) {
  const status = task.status;
  for (const artifact of task.artifacts || []) {
    say("artifact", `artifact ${artifact.name || short(artifact.artifactId)}`, ...renderParts(artifact.parts));
  }
  const text = status.message ? renderParts(status.message.parts) : [];
  say("agent", `agent · ${status.state}`, badge(status.state), " ", ...text);
  endTurn(task.contextId, task.id, status.state);
}

function endTurn(contextId, taskId, taskState) {
  // An interrupted task continues with the next message; a finished one starts a new task in
  // the same context (multi-turn).
  const open = taskState === "input-required" || taskState === "auth-required";
  setConversation(contextId, open ? taskId : null);
}

async function streamTurn(params) {
  const log = el("ol", { class: "stream-log", "data-testid": "stream-log" });
  $("transcript").append(el("li", {}, log));
  const artifacts = new Map();
  let last = null;
  for await (const { id, data } of rpcStream("stream", params)) {
    const kind = data.kind;
    let line = `${id ?? "-"} ${kind}`;
    if (kind === "task") {
      setConversation(data.contextId, data.id);
      line += ` ${data.status.state}`;
      last = data;
    } else if (kind === "status-update") {
      line += ` ${data.status.state}${data.final ? " (final)" : ""}`;
      last = { id: data.taskId, contextId: data.contextId, status: data.status };
      if (data.status.message) {
        say("agent", `agent · ${data.status.state}`, badge(data.status.state), " ",
          ...renderParts(data.status.message.parts));
      }
    } else if (kind === "artifact-update") {
      const artifact = data.artifact;
      line += ` ${artifact.name || short(artifact.artifactId)}${data.append ? " +" : ""}${data.lastChunk ? " last" : ""}`;
      let bubble = artifacts.get(artifact.artifactId);
      if (!bubble || !data.append) {
        bubble = say("artifact", `artifact ${artifact.name || short(artifact.artifactId)}`);
        bubble.dataset.artifactId = artifact.artifactId;
        artifacts.set(artifact.artifactId, bubble);
      }
      appendParts(bubble, artifact.parts);
    } else if (kind === "message") {
      say("agent", "agent", ...renderParts(data.parts));
      setConversation(data.contextId, null);
    }
    log.append(el("li", {}, line));
    log.scrollIntoView({ block: "end" });
  }
  if (last) {
    if (!last.status.message) say("agent", `agent · ${last.status.state}`, badge(last.status.state));
    endTurn(last.contextId, last.id, last.status.state);
  }
}

// --- tasks -------------------------------------------------------------------------------------

let refreshing = false;

async function refreshTasks(event) {
  if (event) event.preventDefault();
  if (refreshing) return;
  refreshing = true;
  try {
    const filterState = $("filter-state").value;
    const filterContext = $("filter-context").value.trim();
    const { value: result } = await rpc("list", (version) => {
      const params = { pageSize: 50, historyLength: 0 };
      if (filterState) params.status = version === V10 ? stateToV1(filterState) : filterState;
      if (filterContext) params.contextId = filterContext;
      return params;
    });
    const shown = JSON.stringify(result);
    if (shown !== state.shown.tasks) {
      // Rebuilt only when the list changed: a row stays the same element between refreshes.
      state.shown.tasks = shown;
      const body = $("tasks").tBodies[0];
      body.replaceChildren(...result.tasks.map((task) => el("tr", {
        "data-task-id": task.id,
        class: task.id === state.selected ? "selected" : null,
        onclick: () => selectTask(task.id),
      },
      el("td", {}, el("code", { title: task.id }, short(task.id))),
      el("td", {}, badge(task.status.state)),
      el("td", {}, el("code", { title: task.contextId }, short(task.contextId))),
      el("td", { class: "muted" }, task.status.timestamp ? new Date(task.status.timestamp).toLocaleTimeString() : ""))));
      $("tasks-total").textContent = `${result.tasks.length} of ${result.totalSize} task(s)`;
    }
    if (state.selected) await refreshSelected();
  } catch (error) {
    showError(error);
  } finally {
    refreshing = false;
  }
}

async function refreshSelected() {
  const id = state.selected;
  const { value: task, wire } = await rpc("get", () => ({ id, historyLength: 100 }));
  if (id !== state.selected) return;
  const shown = JSON.stringify(wire);
  if (shown !== state.shown.task) {
    state.shown.task = shown;
    showTask(task, wire);
  }
  await refreshPush();
  await refreshCalls();
}

function showTask(task, wire) {
  const badgeNode = $("task-state");
  badgeNode.className = "state " + task.status.state;
  badgeNode.dataset.state = task.status.state;
  badgeNode.textContent = task.status.state;
  $("task-cancel").hidden = TERMINAL.has(task.status.state);
  const artifacts = task.artifacts || [];
  $("artifacts").replaceChildren(...(artifacts.length ? artifacts.map((artifact) => el("section", { class: "artifact" },
    el("h4", {}, artifact.name || "artifact", " ", el("code", {}, short(artifact.artifactId))),
    artifact.description ? el("p", { class: "muted" }, artifact.description) : null,
    ...renderParts(artifact.parts))) : [el("p", { class: "muted" }, "No artifacts.")]));
  $("history").replaceChildren(...(task.history || []).map((message) => el("li", {},
    el("span", { class: "muted" }, `${message.role} · ${short(message.messageId)}`),
    el("div", { class: "bubble " + (message.role === "user" ? "user" : "agent") }, ...renderParts(message.parts)))));
  // As the server sent it (this version's shape), as text.
  $("task-json").textContent = JSON.stringify(wire, null, 2);
}

async function selectTask(id) {
  state.selected = id;
  state.shown.task = state.shown.push = state.shown.calls = null;
  for (const row of $("tasks").tBodies[0].rows) row.classList.toggle("selected", row.dataset.taskId === id);
  $("task").hidden = false;
  $("task-id").textContent = id;
  $("task-cancel").hidden = true;
  closeReplay();
  try {
    await refreshSelected();
  } catch (error) {
    showError(error);
  }
  followTimeline(id);
}

async function cancelTask() {
  const id = state.selected;
  clearError();
  try {
    const { value: task, wire } = await rpc("cancel", () => ({ id }));
    if (id === state.selected) {
      state.shown.task = JSON.stringify(wire);
      showTask(task, wire);
    }
    // The chat was continuing this task: its next message starts a new one.
    if (state.taskId === id) setConversation(task.contextId, null);
  } catch (error) {
    showError(error);
  }
  refreshTasks();
}

// The event log, replayed from the start (Last-Event-ID: 0) and followed live until it ends.
async function followTimeline(id) {
  if (state.timelineAbort) state.timelineAbort.abort();
  const abort = new AbortController();
  state.timelineAbort = abort;
  state.timeline = { events: [], page: 0, follow: true };
  const list = $("timeline");
  list.replaceChildren();
  showTimelinePager();
  try {
    const events = rpcStream("subscribe", () => ({ id }), { lastEventId: 0, signal: abort.signal });
    for await (const item of events) addTimelineEvent(item);
  } catch (error) {
    if (!abort.signal.aborted) list.append(el("li", { class: "reason" }, error.message));
  }
  if (!abort.signal.aborted && id === state.selected) refreshSelected().catch(showError);
}

function timelinePages() {
  return Math.max(1, Math.ceil(state.timeline.events.length / TIMELINE_PAGE));
}

// One more event of the log: shown at once if it is on the page in view, which follows the
// newest events unless the reader went back to earlier ones.
function addTimelineEvent(item) {
  const timeline = state.timeline;
  timeline.events.push(item);
  const last = timelinePages() - 1;
  if (timeline.follow && timeline.page !== last) {
    timeline.page = last;
    showTimelinePage();
  } else if (timeline.page === last) {
    $("timeline").append(eventItem(item, true));
  }
  showTimelinePager();
}

function showTimelinePage() {
  const { events, page } = state.timeline;
  const start = page * TIMELINE_PAGE;
  $("timeline").replaceChildren(...events.slice(start, start + TIMELINE_PAGE).map((item) => eventItem(item, true)));
  showTimelinePager();
}

function showTimelinePager() {
  const { events, page } = state.timeline;
  const pages = timelinePages();
  $("timeline-pager").hidden = pages < 2;
  const start = page * TIMELINE_PAGE;
  const end = Math.min(events.length, start + TIMELINE_PAGE);
  $("timeline-range").textContent = `events ${start + 1}–${end} of ${events.length}`;
  $("timeline-earlier").disabled = page === 0;
  $("timeline-later").disabled = page >= pages - 1;
}

function turnTimelinePage(step) {
  const timeline = state.timeline;
  const last = timelinePages() - 1;
  timeline.page = Math.min(last, Math.max(0, timeline.page + step));
  timeline.follow = timeline.page === last;
  showTimelinePage();
}

function eventItem({ id, data, wire }, replayable) {
  const seq = Number(id);
  let kind = data.kind;
  let detail = "";
  let stamp = "";
  if (kind === "status-update") {
    kind = "status";
    detail = data.status.state + (data.final ? " (final)" : "") + (data.status.message ? ": " + partsText(data.status.message.parts) : "");
    stamp = data.status.timestamp ? new Date(data.status.timestamp).toLocaleTimeString() : "";
  } else if (kind === "artifact-update") {
    kind = "artifact";
    const a = data.artifact;
    detail = `${a.name || short(a.artifactId)}${data.append ? " (append)" : ""}${data.lastChunk ? " (last chunk)" : ""}: ${partsText(a.parts)}`;
  } else if (kind === "task") {
    detail = `task ${data.status.state}`;
  }
  const classes = [kind, data.final ? "final" : ""].join(" ");
  return el("li", { class: classes, "data-seq": id },
    el("span", { class: "seq" }, `#${id}`),
    el("strong", {}, kind), " ",
    stamp ? el("span", { class: "muted" }, stamp + " ") : null,
    el("span", { class: "detail" }, detail),
    replayable && seq > 0 ? el("button", { type: "button", class: "small", onclick: () => replay(seq - 1) }, "Replay from here") : null,
    rawJson(wire));
}

async function replay(after) {
  if (state.replayAbort) state.replayAbort.abort();
  const abort = new AbortController();
  state.replayAbort = abort;
  $("replay").hidden = false;
  $("replay-from").textContent = String(after);
  const list = $("replay-events");
  list.replaceChildren();
  let count = 0;
  const more = el("li", { class: "muted", hidden: true });
  try {
    const events = rpcStream("subscribe", () => ({ id: state.selected }), { lastEventId: after, signal: abort.signal });
    for await (const item of events) {
      count += 1;
      if (count <= REPLAY_SHOWN) {
        list.append(eventItem(item, false));
        continue;
      }
      // Counted, not listed: the timeline pages through them all.
      if (more.hidden) list.append(more);
      more.hidden = false;
      more.textContent = `and ${count - REPLAY_SHOWN} more, up to #${item.id}`;
    }
    list.append(el("li", { class: "muted" }, "end of stream"));
  } catch (error) {
    if (!abort.signal.aborted) list.append(el("li", { class: "reason" }, error.message));
  }
}

function closeReplay() {
  if (state.replayAbort) state.replayAbort.abort();
  $("replay").hidden = true;
}

// --- push configs and deliveries ---------------------------------------------------------------

async function refreshPush() {
  const id = state.selected;
  const push = await getJson(`${API}/tasks/${encodeURIComponent(id)}/push`);
  if (id !== state.selected) return;
  const shown = JSON.stringify(push);
  if (shown === state.shown.push) return;
  state.shown.push = shown;
  const out = [];
  if (!push.pushNotifications) out.push(el("p", { class: "muted" }, "Push notifications are not enabled on this deployment."));
  out.push(el("p", { class: "muted" }, `Notifies on: ${push.notifyOn} events. Event log at seq ${push.lastSeq}.`));
  if (!push.configs.length) out.push(el("p", { class: "muted" }, "No push configs for this task."));
  for (const config of push.configs) {
    out.push(el("h4", {}, "Config ", el("code", {}, config.id), " → ", el("code", {}, config.config.url)));
    out.push(el("pre", {}, JSON.stringify(config.config, null, 2)));
    out.push(el("table", { class: "deliveries" },
      el("thead", {}, el("tr", {}, el("th", {}, "Seq"), el("th", {}, "Status"), el("th", {}, "Attempts"), el("th", {}, "Detail"))),
      el("tbody", {}, config.deliveries.map((d) => el("tr", { "data-seq": d.seq },
        el("td", {}, `#${d.seq}`),
        el("td", {}, badge(d.status)),
        el("td", {}, d.attempts ?? ""),
        el("td", {}, d.reason ? el("span", { class: "reason" }, d.reason) : (d.lastError || (d.nextAt ? `next attempt ${new Date(d.nextAt).toLocaleTimeString()}` : "")))))),
    ));
  }
  out.push(el("h4", {}, `Dead letters (${push.deadLetters.length})`));
  if (push.deadLetters.length) {
    out.push(el("table", { class: "dead-letters" },
      el("thead", {}, el("tr", {}, ["Seq", "Notification", "Attempts", "At", "Reason", "Status", ""].map((h) => el("th", {}, h)))),
      el("tbody", {}, push.deadLetters.map((d) => el("tr", { "data-notification-id": d.notificationId },
        el("td", {}, `#${d.seq}`),
        el("td", {}, el("code", { title: d.notificationId }, short(d.notificationId))),
        el("td", {}, d.attempts),
        el("td", { class: "muted" }, d.at),
        el("td", { class: "reason" }, d.reason),
        el("td", {}, d.redrivenAt ? badge("redriven") : badge("dead-lettered"),
          d.redriveError ? el("div", { class: "reason" }, `redrive: ${d.redriveError}`) : null),
        el("td", {}, d.redrivenAt ? null : el("button", { type: "button", class: "small", onclick: () => redrive(id, d.notificationId) }, "Redrive")))))));
  }
  $("push").replaceChildren(...out);
}

async function redrive(taskId, notificationId) {
  try {
    const result = await postJson(`${API}/tasks/${encodeURIComponent(taskId)}/dead-letters/${encodeURIComponent(notificationId)}/redrive`, {});
    if (result.outcome === "failed") showError(`redrive failed: ${result.reason}`);
  } catch (error) {
    showError(error);
  }
  await refreshPush().catch(showError);
}

// --- durable calls: the operations of the task's current turn --------------------------------

async function refreshCalls() {
  const id = state.selected;
  const calls = await getJson(`${API}/tasks/${encodeURIComponent(id)}/calls`);
  if (id !== state.selected) return;
  const shown = JSON.stringify(calls);
  if (shown === state.shown.calls) return;
  state.shown.calls = shown;
  const durable = calls.durable;
  if (!durable) {
    $("calls").replaceChildren(el("p", { class: "muted" }, "This turn made no durable calls, sleeps or steps."));
    return;
  }
  const time = (ms) => (ms ? new Date(ms).toLocaleTimeString() : "");
  $("calls").replaceChildren(
    el("p", { class: "muted" }, `Turn ${durable.turn}: ${durable.suspended ? "suspended, waiting" : "not suspended"}; ${durable.suspensions} suspension(s).`),
    el("table", { class: "calls" },
      el("thead", {}, el("tr", {}, ["#", "Kind", "State", "Remote / what", "Remote task", "Started", "Ended", "Resumed by"].map((h) => el("th", {}, h)))),
      el("tbody", {}, durable.operations.map((op) => el("tr", { "data-position": op.position },
        el("td", {}, op.position),
        el("td", {}, op.kind),
        el("td", {}, badge(op.state)),
        el("td", {}, el("code", {}, op.remote || op.key)),
        el("td", {}, op.remoteTaskId ? el("code", { title: op.remoteTaskId }, short(op.remoteTaskId)) : ""),
        el("td", { class: "muted" }, time(op.startedAtMs)),
        el("td", { class: "muted" }, time(op.endedAtMs)),
        el("td", {}, op.resumedBy || ""))))));
}

// --- the agent card, per protocol version ------------------------------------------------------

async function showCard(version) {
  for (const button of $("card-versions").children) button.classList.toggle("active", button.dataset.version === version.version);
  const target = $("card");
  try {
    const response = await fetch(ROOT + version.path, { headers: authHeaders() });
    if (!response.ok) throw new Error(`${version.path}: HTTP ${response.status}`);
    const card = await response.json();
    const caps = card.capabilities || {};
    // One document serves both versions: v0.3's members, and v1.0's beside them.
    const fields = [["name", card.name], ["description", card.description], ["version", card.version],
      ["protocol", card.protocolVersion], ["url", card.url],
      ["transport", card.preferredTransport],
      ["interfaces", (card.additionalInterfaces || []).map((i) => `${i.transport} ${i.url}`).join(", ")],
      ["supported interfaces", (card.supportedInterfaces || [])
        .map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`).join(", ")],
      ["streaming", String(!!caps.streaming)], ["push", String(!!caps.pushNotifications)],
      ["input", (card.defaultInputModes || []).join(", ")], ["output", (card.defaultOutputModes || []).join(", ")],
      ["security", JSON.stringify(card.security || [])]];
    target.replaceChildren(
      el("dl", { class: "card-head" },
        ...fields.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v ?? "")])),
      el("h4", {}, `Skills (${(card.skills || []).length})`),
      el("ul", { class: "skills" }, (card.skills || []).map((s) => el("li", {}, el("strong", {}, s.name), " ", el("code", {}, s.id), " — ", s.description))),
      el("h4", {}, `As clients fetch it: GET ${version.path}`),
      el("pre", { "data-testid": "card-json" }, JSON.stringify(card, null, 2)));
  } catch (error) {
    target.replaceChildren(el("p", { class: "reason" }, error.message));
  }
}

// --- wiring ------------------------------------------------------------------------------------

function tabs(nav, prefix) {
  nav.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-tab]");
    if (!button) return;
    for (const b of nav.querySelectorAll("button[data-tab]")) {
      b.classList.toggle("active", b === button);
      $(prefix + b.dataset.tab).hidden = b !== button;
    }
  });
}

async function start() {
  for (const s of STATES) $("filter-state").append(el("option", { value: s }, s));
  tabs($("side-tabs"), "tab-");
  tabs($("task-tabs"), "tab-");
  $("cred-header").value = sessionStorage.getItem("a2a-inspector-cred-header") || "Authorization";
  $("credentials").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem("a2a-inspector-cred-header", $("cred-header").value);
    sessionStorage.setItem("a2a-inspector-cred-value", $("cred-value").value);
    $("cred-value").value = "";
    connect();
  });
  $("composer").addEventListener("submit", send);
  $("message").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) send(event);
  });
  $("files").addEventListener("change", () => {
    state.files = [...$("files").files];
    $("attached").textContent = state.files.map((f) => `${f.name} (${f.size} B)`).join(", ");
  });
  $("chat-reset").addEventListener("click", () => {
    setConversation(null, null);
    $("transcript").replaceChildren();
  });
  $("task-filters").addEventListener("submit", refreshTasks);
  $("filter-state").addEventListener("change", () => refreshTasks());
  $("replay-close").addEventListener("click", closeReplay);
  $("task-cancel").addEventListener("click", cancelTask);
  $("timeline-earlier").addEventListener("click", () => turnTimelinePage(-1));
  $("timeline-later").addEventListener("click", () => turnTimelinePage(1));
  $("protocol").addEventListener("change", () => {
    state.version = $("protocol").value;
    sessionStorage.setItem("a2a-inspector-version", state.version);
    state.shown.tasks = state.shown.task = null;
    refreshTasks();
  });
  await connect();
}

async function connect() {
  try {
    state.info = await getJson(`${API}/info`);
  } catch (error) {
    showError(`${error.message} — enter credentials above`);
    return;
  }
  clearError();
  $("agent-name").textContent = state.info.agent;
  document.title = `${state.info.agent} · A2A inspector`;
  $("stream").checked = state.info.streaming;
  // The versions the server speaks, newest first; the one chosen before in this tab, if any.
  const versions = state.info.protocolVersions || ["0.3"];
  const chosen = sessionStorage.getItem("a2a-inspector-version");
  state.version = versions.includes(chosen) ? chosen : versions[0];
  $("protocol").replaceChildren(...versions.map((v) => el("option", { value: v }, `A2A ${v}`)));
  $("protocol").value = state.version;
  $("card-versions").replaceChildren(...state.info.cards.map((version) => el("button", {
    type: "button", "data-version": version.version, onclick: () => showCard(version),
  }, `v${version.version}`)));
  if (state.info.cards.length) showCard(state.info.cards[0]);
  refreshTasks();
}

document.addEventListener("DOMContentLoaded", () => {
  start();
  setInterval(() => {
    if (state.info && $("auto-refresh").checked && !document.hidden) refreshTasks();
  }, 3000);
});
