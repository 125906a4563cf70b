// The auto-route page: load a request, draw its board, call the service's HTTP API (/v1/solve:stream,
// /v1/evaluate) and draw the routes as they arrive. Plain JavaScript, no build step, nothing fetched
// from elsewhere. The board's geometry (hexes, track, nodes, the track of every chain) comes from
// POST /page/geometry; a route is drawn on the track of the chains its connections name.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#e377c2", "#8c564b"];
const $ = (id) => document.getElementById(id);

const page = {
  examples: [],      // {name, title, kind}
  request: null,     // the parsed request of the textarea
  text: "",          // the text it was parsed from
  geometry: null,    // the drawn board, with chain indexes
  geometryKey: "",   // the board JSON the geometry is for
  controller: null,  // AbortController of the running call
  drawing: null,     // the board being drawn (a promise)
};

// ---- calls --------------------------------------------------------------------------------------------

function headers() {
  const h = {"content-type": "application/json"};
  const token = $("token").value.trim();
  if (token) h.authorization = "Bearer " + token;
  return h;
}

class CallError extends Error {
  constructor(status, httpStatus) {
    super(status.message || ("HTTP " + httpStatus));
    this.status = status;
    this.httpStatus = httpStatus;
  }
}

async function failure(response) {
  let status;
  try { status = await response.json(); } catch (e) { status = {message: "HTTP " + response.status}; }
  return new CallError(status, response.status);
}

async function call(method, path, body, signal) {
  const response = await fetch(path, {method, headers: headers(), body: body === undefined ? undefined :
    JSON.stringify(body), signal});
  if (!response.ok) throw await failure(response);
  return response.json();
}

// POST /v1/solve:stream: calls onMessage with each SolveResponse of the Server-Sent Events.
async function stream(path, body, signal, onMessage) {
  const response = await fetch(path, {method: "POST", headers: headers(), body: JSON.stringify(body), signal});
  if (!response.ok) throw await failure(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, {stream: true});
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let kind = "message", data = "";
      for (const line of event.split("\n")) {
        if (line.startsWith("event:")) kind = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      if (!data) continue;
      if (kind === "error") throw new CallError(JSON.parse(data), 200);
      onMessage(JSON.parse(data));
    }
  }
}

// ---- titles, examples, the request ----------------------------------------------------------------------

async function start() {
  $("title").addEventListener("change", () => { fillExamples(); loadExample(); });
  $("example").addEventListener("change", loadExample);
  $("file").addEventListener("change", loadFile);
  $("request").addEventListener("change", () => useText($("request").value));
  $("run").addEventListener("click", run);
  $("stop").addEventListener("click", () => page.controller && page.controller.abort());
  // A server with --auth-token answers 401 until the token is given (kept for this tab only).
  $("token").value = sessionStorage.getItem("revenue-token") || "";
  $("token").addEventListener("change", () => {
    sessionStorage.setItem("revenue-token", $("token").value.trim());
    if (!$("title").options.length) loadLists();    // they were refused without the token
  });
  await loadLists();
}

// The titles and the examples, then the first example of the chosen title.
async function loadLists() {
  try {
    const titles = await call("GET", "/v1/titles");
    const chosen = $("title").value;
    $("title").innerHTML = "";
    for (const t of titles.titles) $("title").add(new Option(t.name + (t.description ? " — " + t.description : ""), t.name));
    if (chosen) $("title").value = chosen;
    page.examples = (await call("GET", "/page/examples")).examples;
  } catch (e) {
    if (e.httpStatus === 401) $("options-box").open = true;
    showError(e);
    return;
  }
  page.geometryKey = "";
  fillExamples();
  await loadExample();
}

function fillExamples() {
  const select = $("example");
  select.innerHTML = "";
  select.add(new Option("(none)", ""));
  for (const e of page.examples.filter((e) => e.title === $("title").value)) {
    select.add(new Option(`${e.kind}: ${e.name}`, e.name));
  }
  if (select.options.length > 1) select.selectedIndex = 1;
}

async function loadExample() {
  const name = $("example").value;
  if (!name) return;
  const response = await fetch("/page/examples/" + encodeURIComponent(name));
  await useText(await response.text());
}

async function loadFile(event) {
  const file = event.target.files[0];
  if (file) await useText(await file.text());
}

// Take `text` as the request: show it, draw its board, and say what running it will do.
async function useText(text) {
  $("request").value = text;
  page.text = text;
  clearResult();
  let request;
  try {
    request = JSON.parse(text);
    if (request === null || typeof request !== "object" || Array.isArray(request)) throw new Error("not a JSON object");
  } catch (e) {
    page.request = null;
    showError(new CallError({message: "the request is not JSON: " + e.message}, 0));
    return;
  }
  page.request = request;
  $("run").textContent = isEvaluate(request) ? "Check these routes" : "Find the best routes";
  const title = request.board && request.board.title;
  if (title && [...$("title").options].some((o) => o.value === title) && $("title").value !== title) {
    $("title").value = title;
    fillExamples();
  }
  page.drawing = drawBoard(request);   // run() waits for it: a board drawn later would wipe the routes
  await page.drawing;
}

function isEvaluate(request) {
  return Boolean((request.routes && request.routes.length) || request.run_routes || request.runRoutes);
}

// ---- running --------------------------------------------------------------------------------------------

async function run() {
  if ($("request").value !== page.text) {
    await useText($("request").value);
  }
  const request = page.request;
  if (!request) return;
  await page.drawing;
  if (page.controller) page.controller.abort();
  const controller = page.controller = new AbortController();
  clearResult();
  $("run").disabled = true;
  $("stop").disabled = false;
  try {
    if (!page.geometry) await drawBoard(request);
    if (isEvaluate(request)) {
      setStatus("checking…");
      showEvaluate(await call("POST", "/v1/evaluate", request, controller.signal));
    } else {
      const body = Object.assign({}, request);
      const deadline = Number($("deadline").value);
      if (deadline > 0 && !body.deadline_ms && !body.deadlineMs) body.deadline_ms = deadline;
      setStatus("searching…");
      let count = 0;
      await stream("/v1/solve:stream", body, controller.signal, (answer) => {
        count += 1;
        showSolve(answer, count);
      });
    }
  } catch (e) {
    if (e.name === "AbortError") setStatus("stopped: the search was cancelled", "error");
    else showError(e);
  } finally {
    if (page.controller === controller) page.controller = null;
    $("run").disabled = false;
    $("stop").disabled = true;
  }
}

function showSolve(answer, count) {
  const final = answer.optimal || Boolean(answer.stats);   // improvements carry no stats
  drawRoutes(answer.routes || []);
  fillTable(answer.routes || [], answer.revenue);
  if (answer.optimal) {
    setStatus(`proved optimal: ${answer.revenue}` + (answer.note ? ` (${answer.note})` : ""), "proved");
    $("bound").textContent = `bound ${answer.upper_bound}`;
  } else if (final) {
    const why = answer.stats && answer.stats.timed_out ? "the deadline passed" : "the search stopped";
    setStatus(`not proved (${why}): best found ${answer.revenue}, no run earns more than ${answer.upper_bound}`, "");
    $("bound").textContent = `bound ${answer.upper_bound}`;
  } else {
    setStatus(`searching… best so far ${answer.revenue} (improvement ${count})`, "");
    $("bound").textContent = "";
  }
}

function showEvaluate(answer) {
  const routes = answer.routes || [];
  drawRoutes(routes);
  fillTable(routes, answer.revenue);
  const broken = routes.filter((r) => r.error && r.error.rule);
  if (answer.legal) {
    setStatus(`legal: ${answer.revenue}`, "proved");
  } else {
    const rules = broken.map((r) => r.error.rule);
    if (answer.run_error && answer.run_error.rule) rules.push(answer.run_error.rule);
    setStatus(`illegal: ${rules.join(", ") || "see the routes"}`, "error");
    for (const r of broken) markError(r.error, r.nodes || []);
    if (answer.run_error && answer.run_error.rule) markError(answer.run_error, []);
  }
}

// ---- the result ------------------------------------------------------------------------------------------

function clearResult() {
  $("errors").hidden = true;
  $("errors").innerHTML = "";
  $("routes").hidden = true;
  $("routes").tBodies[0].innerHTML = "";
  $("total").textContent = "";
  $("bound").textContent = "";
  const layer = document.getElementById("layer-routes");
  if (layer) layer.innerHTML = "";
  const marks = document.getElementById("layer-marks");
  if (marks) marks.innerHTML = "";
  setStatus("", "");
}

function setStatus(text, kind) {
  $("status").textContent = text;
  $("status").className = kind || "";
}

function showError(e) {
  const status = e.status || {message: String(e.message || e)};
  setStatus(`error${e.httpStatus ? " " + e.httpStatus : ""}: ${status.message || ""}`, "error");
  const box = $("errors");
  box.innerHTML = "";
  const violations = [];
  for (const d of status.details || []) {
    for (const v of d.field_violations || d.fieldViolations || []) violations.push(v);
  }
  if (!violations.length) return;
  const list = document.createElement("ul");
  for (const v of violations) {
    const item = document.createElement("li");
    const field = document.createElement("code");
    field.textContent = v.field || "(request)";
    item.append(field, ": " + v.description);
    list.append(item);
  }
  box.append("The request is not valid:", list);
  box.hidden = false;
}

function fillTable(routes, total) {
  const body = $("routes").tBodies[0];
  body.innerHTML = "";
  routes.forEach((r, i) => {
    const row = body.insertRow();
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = COLOURS[i % COLOURS.length];
    row.insertCell().append(swatch);
    row.insertCell().textContent = r.train;
    const stops = row.insertCell();
    if (r.error && r.error.rule) {
      const rule = document.createElement("span");
      rule.className = "rule";
      rule.textContent = r.error.rule;
      stops.append(rule, ": " + (r.error.message || "") + (r.error.where ? ` (${r.error.where})` : ""));
    } else {
      const list = document.createElement("span");
      list.className = "stops";
      list.textContent = (r.stops && r.stops.length ? r.stops : (r.nodes || []).map((n) => ({node: n, paid: true})))
        .map((s) => s.paid === false ? `(${s.node})` : `${s.node}${s.value !== undefined ? " " + s.value : ""}`)
        .join(" – ");
      stops.append(list);
      for (const b of r.bonuses || []) stops.append(document.createElement("br"), `+${b.amount} ${b.name}`);
    }
    const revenue = row.insertCell();
    revenue.className = "revenue";
    revenue.textContent = r.revenue || 0;
  });
  $("total").textContent = total || 0;
  $("routes").hidden = routes.length === 0;
}

// ---- the map -----------------------------------------------------------------------------------------------

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

function boardOf(request) {
  return request && typeof request.board === "object" ? request.board : null;
}

async function drawBoard(request) {
  const board = boardOf(request);
  if (!board) return;
  const key = JSON.stringify(board);
  if (key === page.geometryKey && page.geometry) return;
  let geometry;
  try {
    geometry = await call("POST", "/page/geometry", {board});
  } catch (e) {
    page.geometry = null;
    page.geometryKey = "";
    $("map").innerHTML = "";
    showError(e);
    return;
  }
  page.geometry = index(geometry);
  page.geometryKey = key;
  render(geometry);
}

function chainKey(hexes) { return hexes.join("|"); }

function index(geometry) {
  geometry.byHexes = new Map();
  geometry.byEnds = new Map();
  geometry.nodeAt = new Map(geometry.nodes.map((n) => [n.name, n]));
  geometry.hexAt = new Map(geometry.hexes.map((h) => [h.hex, h]));
  for (const c of geometry.chains) {
    for (const k of [chainKey(c.connection), chainKey([...c.connection].reverse())]) {
      if (!geometry.byHexes.has(k)) geometry.byHexes.set(k, []);
      geometry.byHexes.get(k).push(c);
    }
    for (const k of [c.a + ">" + c.b, c.b + ">" + c.a]) {
      if (!geometry.byEnds.has(k)) geometry.byEnds.set(k, []);
      geometry.byEnds.get(k).push(c);
    }
  }
  return geometry;
}

function render(g) {
  const map = $("map");
  map.innerHTML = "";
  map.setAttribute("viewBox", g.view_box.join(" "));
  const hexes = el("g", {id: "layer-hexes"}, map);
  for (const h of g.hexes) {
    el("polygon", {points: h.points.map((p) => p.join(",")).join(" "), fill: h.fill, stroke: "#888",
                   "stroke-width": 0.8, "data-hex": h.hex}, hexes);
  }
  const track = el("g", {id: "layer-track", fill: "none", stroke: "#333", "stroke-width": 3}, map);
  for (const t of g.track) el("path", {d: curve(t.d)}, track);
  el("g", {id: "layer-routes", fill: "none"}, map);
  const nodes = el("g", {id: "layer-nodes"}, map);
  for (const n of g.nodes) drawNode(n, nodes);
  const labels = el("g", {id: "layer-labels"}, map);
  for (const h of g.hexes) {
    const [x, y] = h.centre;
    const text = el("text", {x, y: y + g.size * 0.78, "font-size": 5.5, fill: "#666", "text-anchor": "middle"}, labels);
    text.textContent = h.hex + (h.tile ? " #" + h.tile : "");
    if (h.location) {
      const loc = el("text", {x, y: y - g.size * 0.62, "font-size": 5.5, fill: "#333", "text-anchor": "middle"}, labels);
      loc.textContent = h.location.length > 18 ? h.location.slice(0, 17) + "…" : h.location;
    }
  }
  el("g", {id: "layer-marks"}, map);
}

function curve(d) {
  return `M${d[0]} ${d[1]} Q${d[2]} ${d[3]} ${d[4]} ${d[5]}`;
}

function drawNode(n, parent) {
  const group = el("g", {"data-node": n.name}, parent);
  if (n.kind === "city" || n.kind === "pass") {
    el("circle", {cx: n.x, cy: n.y, r: 7, fill: "#fff", stroke: "#000", "stroke-width": 1.2}, group);
    if (n.tokens.length) {
      el("circle", {cx: n.x, cy: n.y, r: 6, fill: "#f0e6c8", stroke: "#7a5c12", "stroke-width": 0.8}, group);
      const t = el("text", {x: n.x, y: n.y + 2, "font-size": n.tokens.length > 1 ? 3.5 : 4.5, "text-anchor": "middle"}, group);
      t.textContent = n.tokens.map((c) => c.slice(0, 4)).join(" ");
    }
  } else if (n.kind === "offboard") {
    el("rect", {x: n.x - 7, y: n.y - 5, width: 14, height: 10, fill: "#b22222", stroke: "#000", "stroke-width": 0.8}, group);
  } else {
    el("circle", {cx: n.x, cy: n.y, r: n.kind === "halt" ? 2.5 : 3.5, fill: "#000"}, group);
  }
  if (n.value) {
    const v = el("text", {x: n.x + 7, y: n.y - 6, "font-size": 7, "font-weight": 600}, group);
    v.textContent = n.value;
  }
}

// The track indices of a route: each connection's chain (either direction; among equal ones, one whose
// ends the route visits), or without connections the chain between consecutive nodes.
function routeTrack(g, route) {
  const nodes = new Set(route.nodes || []);
  const out = [];
  const connections = (route.connections || []).map((c) => Array.isArray(c) ? c : (c.hexes || []));
  if (connections.length) {
    for (const hexes of connections) {
      const found = g.byHexes.get(chainKey(hexes)) || [];
      const chain = found.find((c) => nodes.has(c.a) && nodes.has(c.b)) || found[0];
      if (chain) out.push(...chain.track);
    }
  } else {
    const list = route.nodes || [];
    for (let i = 0; i + 1 < list.length; i++) {
      const found = g.byEnds.get(list[i] + ">" + list[i + 1]);
      if (found) out.push(...found[0].track);
    }
  }
  return out;
}

function drawRoutes(routes) {
  const g = page.geometry;
  const layer = document.getElementById("layer-routes");
  if (!g || !layer) return;
  layer.innerHTML = "";
  routes.forEach((route, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const group = el("g", {class: "route", "data-train": route.train, stroke: colour, "stroke-width": 5,
                           "stroke-opacity": 0.8, "stroke-linecap": "round"}, layer);
    if (route.error && route.error.rule) group.setAttribute("stroke-dasharray", "6 4");
    for (const t of routeTrack(g, route)) el("path", {d: curve(g.track[t].d)}, group);
    for (const name of route.nodes || []) {
      const n = g.nodeAt.get(name);
      if (n) el("circle", {cx: n.x, cy: n.y, r: 9, fill: "none", "stroke-width": 1.5}, group);
    }
  });
}

// Show a broken rule on the map: a ring at the node or around the hex named (without one, at each node
// of the route), and the rule beside it.
function markError(error, nodes) {
  const g = page.geometry;
  const layer = document.getElementById("layer-marks");
  if (!g || !layer) return;
  const where = error.where || "";
  let x, y;
  const hex = g.hexAt.get(where) || g.hexAt.get(where.split("-")[0]);
  const at = (g.nodeAt.has(where) ? [where] : hex ? [] : nodes).map((n) => g.nodeAt.get(n)).filter(Boolean);
  if (at.length) {
    for (const node of at) el("circle", {cx: node.x, cy: node.y, r: 13, fill: "none", stroke: "#b00020", "stroke-width": 2.5}, layer);
    [x, y] = [at[0].x, at[0].y];
  } else if (hex) {
    [x, y] = hex.centre;
    el("polygon", {points: hex.points.map((p) => p.join(",")).join(" "), fill: "none", stroke: "#b00020",
                   "stroke-width": 2.5}, layer);
  } else {
    [x, y] = [g.view_box[0] + 8, g.view_box[1] + 14];
  }
  const label = el("text", {x: x + 14, y: y + 4, "font-size": 9, "font-weight": 700, fill: "#b00020",
                            stroke: "#fff", "stroke-width": 2.5, "paint-order": "stroke", class: "rule-mark"}, layer);
  label.textContent = error.rule;
}

start();
