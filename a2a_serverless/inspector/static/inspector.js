// The A2A inspector: plain JavaScript, no build step. It talks to the agent through the app's
// own JSON-RPC endpoint, exactly as a client does, plus the inspector API for push deliveries.
"use strict";

const STATES = ["submitted", "working", "input-required", "auth-required", "completed",
  "canceled", "failed", "rejected", "unknown"];
const ROOT = location.pathname.slice(0, location.pathname.indexOf("/_inspector/"));
const API = ROOT + "/_inspector/api";
const $ = (id) => document.getElementById(id);

const state = {
  info: null,
  contextId: null,
  taskId: null,
  selected: null,
  timelineAbort: null,
  replayAbort: null,
  files: [],
  busy: false,
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

async function rpc(method, params) {
  const body = await postJson(rpcUrl(), { jsonrpc: "2.0", id: uuid(), method, params });
  if (body.error) throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
  return body.result;
}

// A JSON-RPC streaming call: yields {id, data} for each SSE event (id is the event log seq).
async function* rpcStream(method, params, { lastEventId, signal } = {}) {
  const headers = { "Content-Type": "application/json", Accept: "text/event-stream", ...authHeaders() };
  if (lastEventId !== undefined && lastEventId !== null) headers["Last-Event-ID"] = String(lastEventId);
  const response = await fetch(rpcUrl(), {
    method: "POST",
    headers,
    signal,
    body: JSON.stringify({ jsonrpc: "2.0", id: uuid(), method, params }),
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
      yield { id, data: message.result };
    }
  }
}

// --- parts -------------------------------------------------------------------------------------

function partsText(parts) {
  return (parts || []).map((part) => {
    if (part.kind === "text") return part.text;
    if (part.kind === "file") return `[file ${part.file.name || part.file.uri || ""}]`;
    return JSON.stringify(part.data);
  }).join(" ");
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
  return (parts || []).map((part) => {
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
    const params = { message, configuration: { blocking: true } };
    const webhook = $("webhook").value.trim();
    if (webhook) params.configuration.pushNotificationConfig = { url: webhook, id: "inspector" };
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
  const result = await rpc("message/send", params);
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
  for await (const { id, data } of rpcStream("message/stream", params)) {
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
      bubble.append(...renderParts(artifact.parts));
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
    const params = { pageSize: 50, historyLength: 0 };
    const filterState = $("filter-state").value;
    const filterContext = $("filter-context").value.trim();
    if (filterState) params.status = filterState;
    if (filterContext) params.contextId = filterContext;
    const result = await rpc("tasks/list", params);
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
    if (state.selected) await refreshSelected();
  } catch (error) {
    showError(error);
  } finally {
    refreshing = false;
  }
}

async function refreshSelected() {
  const id = state.selected;
  const task = await rpc("tasks/get", { id, historyLength: 100 });
  if (id !== state.selected) return;
  const badgeNode = $("task-state");
  badgeNode.className = "state " + task.status.state;
  badgeNode.dataset.state = task.status.state;
  badgeNode.textContent = task.status.state;
  const artifacts = task.artifacts || [];
  $("artifacts").replaceChildren(...(artifacts.length ? artifacts.map((artifact) => el("section", { class: "artifact" },
    el("h4", {}, artifact.name || "artifact", " ", el("code", {}, short(artifact.artifactId))),
    artifact.description ? el("p", { class: "muted" }, artifact.description) : null,
    ...renderParts(artifact.parts))) : [el("p", { class: "muted" }, "No artifacts.")]));
  $("history").replaceChildren(...(task.history || []).map((message) => el("li", {},
    el("span", { class: "muted" }, `${message.role} · ${short(message.messageId)}`),
    el("div", { class: "bubble " + (message.role === "user" ? "user" : "agent") }, ...renderParts(message.parts)))));
  await refreshPush();
}

async function selectTask(id) {
  state.selected = id;
  for (const row of $("tasks").tBodies[0].rows) row.classList.toggle("selected", row.dataset.taskId === id);
  $("task").hidden = false;
  $("task-id").textContent = id;
  closeReplay();
  try {
    await refreshSelected();
  } catch (error) {
    showError(error);
  }
  followTimeline(id);
}

// The event log, replayed from the start (Last-Event-ID: 0) and followed live until it ends.
async function followTimeline(id) {
  if (state.timelineAbort) state.timelineAbort.abort();
  const abort = new AbortController();
  state.timelineAbort = abort;
  const list = $("timeline");
  list.replaceChildren();
  try {
    for await (const item of rpcStream("tasks/resubscribe", { id }, { lastEventId: 0, signal: abort.signal })) {
      list.append(eventItem(item, true));
    }
  } catch (error) {
    if (!abort.signal.aborted) list.append(el("li", { class: "reason" }, error.message));
  }
  if (!abort.signal.aborted && id === state.selected) refreshSelected().catch(showError);
}

function eventItem({ id, data }, replayable) {
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
    replayable && seq > 0 ? el("button", { type: "button", class: "small", onclick: () => replay(seq - 1) }, "Replay from here") : null);
}

async function replay(after) {
  if (state.replayAbort) state.replayAbort.abort();
  const abort = new AbortController();
  state.replayAbort = abort;
  $("replay").hidden = false;
  $("replay-from").textContent = String(after);
  const list = $("replay-events");
  list.replaceChildren();
  try {
    for await (const item of rpcStream("tasks/resubscribe", { id: state.selected }, { lastEventId: after, signal: abort.signal })) {
      list.append(eventItem(item, false));
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

// --- the agent card, per protocol version ------------------------------------------------------

async function showCard(version) {
  for (const button of $("card-versions").children) button.classList.toggle("active", button.dataset.version === version.version);
  const target = $("card");
  try {
    const response = await fetch(ROOT + version.path, { headers: authHeaders() });
    if (!response.ok) throw new Error(`${version.path}: HTTP ${response.status}`);
    const card = await response.json();
    const caps = card.capabilities || {};
    target.replaceChildren(
      el("dl", { class: "card-head" },
        ...[["name", card.name], ["description", card.description], ["version", card.version],
          ["protocol", card.protocolVersion], ["url", card.url],
          ["transport", card.preferredTransport],
          ["interfaces", (card.additionalInterfaces || []).map((i) => `${i.transport} ${i.url}`).join(", ")],
          ["streaming", String(!!caps.streaming)], ["push", String(!!caps.pushNotifications)],
          ["input", (card.defaultInputModes || []).join(", ")], ["output", (card.defaultOutputModes || []).join(", ")],
          ["security", JSON.stringify(card.security || [])]]
          .flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v ?? "")])),
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
