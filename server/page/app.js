// The auto-route page: load a request, draw its board, call the service's HTTP API (/v1/solve:stream,
// /v1/evaluate) and draw the routes as they arrive; or open a game of 18xx.games (/v1/replay: each
// operating turn's board with the run played and the best run; /v1/suggest: the next run to submit). Plain JavaScript, no build step, nothing fetched
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
  solved: null,      // the SolveRequest of the suggestion shown (moves.js values its lays and tokens)
};

const game = {
  turns: [],         // the ReplayTurns of the game replayed, in order
  shown: -1,         // the index of the turn on the map
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

// POST /v1/solve:stream, /v1/replay: calls onMessage with each message of the Server-Sent Events.
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
  $("game-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) $("game").value = await file.text();
  });
  $("replay").addEventListener("click", replay);
  $("suggest").addEventListener("click", suggestRun);
  $("turn").addEventListener("input", () => showTurn(Number($("turn").value)));
  $("copy").addEventListener("click", copyRun);
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
  page.solved = null;
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
  $("suggestion").hidden = true;
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

// Each route in its train's colour, replacing those drawn; `played`: the run a player made, drawn over
// them as a thin dashed line (class played-route), beside those drawn.
function drawRoutes(routes, played) {
  const g = page.geometry;
  const layer = document.getElementById("layer-routes");
  if (!g || !layer) return;
  if (!played) layer.innerHTML = "";
  routes.forEach((route, i) => {
    const colour = played ? "#222" : COLOURS[i % COLOURS.length];
    const group = el("g", {class: played ? "played-route" : "route", "data-train": route.train, stroke: colour,
                           "stroke-width": played ? 2.5 : 5, "stroke-opacity": played ? 0.9 : 0.8,
                           "stroke-linecap": "round"}, layer);
    if (played) group.setAttribute("stroke-dasharray", "5 4");
    else if (route.error && route.error.rule) group.setAttribute("stroke-dasharray", "6 4");
    for (const t of routeTrack(g, route)) el("path", {d: curve(g.track[t].d)}, group);
    for (const name of route.nodes || []) {
      const n = g.nodeAt.get(name);
      if (n && !played) el("circle", {cx: n.x, cy: n.y, r: 9, fill: "none", "stroke-width": 1.5}, group);
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

// ---- a game of 18xx.games ----------------------------------------------------------------------------------

function gameExport() {
  const text = $("game").value.trim();
  if (!text) throw new CallError({message: "open or paste the export of a game first"}, 0);
  let data;
  try { data = JSON.parse(text); } catch (e) {
    throw new CallError({message: "the game export is not JSON: " + e.message}, 0);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new CallError({message: "the game export is not a JSON object"}, 0);
  }
  return data;
}

function gameBody() {
  const body = {export: gameExport()};
  const deadline = Number($("deadline").value);
  if (deadline > 0) body.deadline_ms = deadline;
  return body;
}

// Run `work(signal)` as the page's one call, with the Stop button.
async function gameCall(work) {
  if (page.controller) page.controller.abort();
  const controller = page.controller = new AbortController();
  clearResult();
  for (const id of ["run", "replay", "suggest"]) $(id).disabled = true;
  $("stop").disabled = false;
  try {
    await work(controller.signal);
  } catch (e) {
    if (e.name === "AbortError") setStatus("stopped: the call was cancelled", "error");
    else showError(e);
  } finally {
    if (page.controller === controller) page.controller = null;
    for (const id of ["run", "replay", "suggest"]) $(id).disabled = false;
    $("stop").disabled = true;
  }
}

// POST /v1/replay: each turn joins the slider as it comes; the first is shown at once.
async function replay() {
  await gameCall(async (signal) => {
    const body = gameBody();
    game.turns = [];
    game.shown = -1;
    $("turn").max = 0;
    $("turn-info").textContent = "";
    $("left-chart").innerHTML = "";
    $("replay-view").hidden = true;
    setStatus("replaying…");
    await stream("/v1/replay", body, signal, (turn) => {
      game.turns.push(turn);
      $("turn").max = game.turns.length - 1;
      $("turn-count").textContent = `${game.shown + 1} of ${game.turns.length}`;
      $("replay-view").hidden = false;
      if (game.turns.length === 1) showTurn(0);
      drawChart();
      setStatus(`replaying… ${game.turns.length} operating turns`);
    });
    const left = game.turns.reduce((sum, t) => sum + (t.left || 0), 0);
    const unproved = game.turns.filter((t) => !t.best.optimal).length;
    setStatus(`replayed ${game.turns.length} operating turns: ${left} left on the table` +
              (unproved ? ` (${unproved} best runs not proved)` : ""), unproved ? "" : "proved");
  });
}

// The board of turn i, its best run and the run played.
async function showTurn(i) {
  const turn = game.turns[i];
  if (!turn) return;
  game.shown = i;
  $("turn").value = i;
  $("turn-count").textContent = `${i + 1} of ${game.turns.length}`;
  const text = JSON.stringify(turn.request, null, 1);
  $("request").value = page.text = text;      // "Find the best routes" solves this turn again
  page.request = turn.request;
  $("run").textContent = "Find the best routes";
  page.drawing = drawBoard(turn.request);
  await page.drawing;
  if (game.shown !== i) return;               // the slider moved on meanwhile
  const best = turn.best;
  const played = turn.played;
  drawRoutes(best.routes || []);
  if (played) drawRoutes(played.routes || [], true);
  fillTable(best.routes || [], best.revenue);
  $("bound").textContent = best.optimal ? "proved" : `bound ${best.upper_bound}`;
  const playedText = played ? `played ${played.revenue}${played.legal ? "" : " (illegal)"}` : "played run unreadable";
  $("turn-info").textContent = `${turn.round} ${turn.company}: ${playedText}, best ${best.revenue}` +
    (turn.left !== null && turn.left !== undefined ? `, left ${turn.left}` : "") +
    (turn.dividend ? ` (${turn.dividend})` : "");
  markRound();
}

function markRound() {
  const turn = game.turns[game.shown];
  for (const bar of document.querySelectorAll("#left-chart rect.bar")) {
    bar.classList.toggle("current", Boolean(turn) && bar.dataset.round === turn.round);
  }
}

// The revenue left per operating round, a bar each; a bar shows the round's first turn.
function drawChart() {
  const chart = $("left-chart");
  chart.innerHTML = "";
  const rounds = [];
  game.turns.forEach((t, i) => {
    const last = rounds[rounds.length - 1];
    if (last && last.round === t.round) last.left += t.left || 0;
    else rounds.push({round: t.round, left: t.left || 0, first: i});
  });
  const width = 320, height = 120, top = 14, base = 100;
  chart.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const most = Math.max(1, ...rounds.map((r) => r.left));
  const step = width / Math.max(1, rounds.length);
  const title = el("text", {x: 4, y: 10, "font-size": 8, fill: "#333"}, chart);
  title.textContent = `revenue left per operating round (most ${most})`;
  rounds.forEach((r, i) => {
    const h = (base - top) * r.left / most;
    const bar = el("rect", {class: "bar", x: i * step + step * 0.15, y: base - h, width: step * 0.7,
                            height: Math.max(h, 0.5), "data-round": r.round, "data-left": r.left}, chart);
    const tip = el("title", {}, bar);
    tip.textContent = `${r.round}: ${r.left} left`;
    bar.addEventListener("click", () => showTurn(r.first));
    if (rounds.length <= 24 || i % Math.ceil(rounds.length / 24) === 0) {
      const label = el("text", {x: i * step + step / 2, y: base + 9, "font-size": 6, fill: "#555",
                                "text-anchor": "middle"}, chart);
      label.textContent = r.round.replace(/^OR /, "");
    }
  });
  el("line", {x1: 0, y1: base, x2: width, y2: base, stroke: "#888", "stroke-width": 0.5}, chart);
  markRound();
}

// POST /v1/suggest: the best run of the company about to run, as the action to submit.
async function suggestRun() {
  await gameCall(async (signal) => {
    const body = gameBody();
    setStatus("looking for the next run…");
    const answer = await call("POST", "/v1/suggest", body, signal);
    if (!answer.company) {
      setStatus(`no run to suggest: the game waits for ${answer.waiting_for}${builderMoves(answer)}`, "");
      return;
    }
    const best = answer.best;
    setStatus(`${answer.round} ${answer.company}: best run ${best.revenue}` +
              (best.optimal ? " (proved)" : ` (not proved; bound ${best.upper_bound})`), best.optimal ? "proved" : "");
    if (answer.request && answer.request.board) {     // the board of that moment, when the server gives it
      $("request").value = page.text = JSON.stringify(answer.request, null, 1);   // to solve it again
      page.request = answer.request;
      page.solved = answer.request;
      page.drawing = drawBoard(answer.request);
      await page.drawing;
      drawRoutes(best.routes || []);
    }
    fillTable(best.routes || [], best.revenue);
    $("run-routes").value = JSON.stringify(answer.run_routes, null, 1);
    $("suggestion").hidden = false;
  });
}

// The best lays and tokens of the company that may build, when the suggestion lists them.
function builderMoves(answer) {
  if (!answer.builder) return "";
  const gain = (m) => (m.gain >= 0 ? "+" : "") + m.gain;
  const lays = ((answer.lays || {}).lays || []).map((m) => `${m.hex} #${m.tile} (${gain(m)})`);
  const tokens = ((answer.tokens || {}).tokens || []).map((m) => `${m.hex} city ${m.city} (${gain(m)})`);
  const cash = answer.builder_cash === undefined ? "" : ` (cash ${answer.builder_cash})`;
  return `. ${answer.builder}${cash}: best lays ${lays.join(", ") || "none"}` +
         (answer.tokens ? `; best tokens ${tokens.join(", ") || "none"}` : "");
}

async function copyRun() {
  const box = $("run-routes");
  try {
    await navigator.clipboard.writeText(box.value);
  } catch (e) {      // no clipboard API (an insecure origin): select it for the user to copy
    box.select();
    document.execCommand("copy");
  }
}

start();
