// "Best lays" and "Best tokens" on the auto-route page: POST /v1/lays or /v1/tokens with the board and
// company of the solve or suggestion shown, each of the best hexes marked on the map with its gain (the best
// run with the move, less the best run without it); a click on a mark makes that hex's best move on the
// board, redraws it, and draws the best run it makes (POST /v1/solve). Uses app.js's page state and map
// helpers (loaded before it).
"use strict";

const MOVES_TOP = 10;            // the moves asked for, best first
const MOVES_DEADLINE_MS = 10000; // for the whole valuation when the options set no deadline

// What differs between the two kinds of move.
const MOVE_KINDS = {
  lays: {
    button: "best-lays", path: "/v1/lays", layer: "layer-lays", mark: "lay-mark", fill: "#2e7d32",
    noun: "lay", verb: "lay",
    name: (m) => `${m.hex} #${m.tile}`,
    detail: (m) => `tile ${m.tile} rotation ${m.rotation}`,
    // above the hex's centre
    at: (g, m) => g.hexAt.get(m.hex) && [g.hexAt.get(m.hex).centre[0], g.hexAt.get(m.hex).centre[1] - 17],
    applied: withLay,
  },
  tokens: {
    button: "best-tokens", path: "/v1/tokens", layer: "layer-tokens", mark: "token-mark", fill: "#1565c0",
    noun: "token", verb: "place",
    name: (m) => `${m.hex} city ${m.city}`,
    detail: (m) => `city ${m.city}`,
    // just above the city
    at: (g, m) => {
      const city = g.nodes.find((n) => n.name.split("-")[0] === m.hex && n.city === m.city);
      return city ? [city.x, city.y - 12] : g.hexAt.get(m.hex) && g.hexAt.get(m.hex).centre;
    },
    applied: withToken,
  },
};

// Per kind: the SolveRequest its moves were valued on, each hex's best move, and the answer.
const bestMoves = {};
for (const [kind, spec] of Object.entries(MOVE_KINDS)) {
  bestMoves[kind] = {request: null, byHex: new Map(), answer: null};
  $(spec.button).addEventListener("click", () => findBestMoves(kind));
}

// The SolveRequest of the solve or suggestion shown: the suggestion's board, else the request box's.
function shownRequest() {
  const request = page.solved || page.request;
  return request && boardOf(request) && request.company && !isEvaluate(request) ? request : null;
}

async function findBestMoves(kind) {
  const spec = MOVE_KINDS[kind];
  const request = shownRequest();
  if (!request) {
    setStatus(`best ${kind}: show a solve or a suggestion first`, "error");
    return;
  }
  if (page.controller) page.controller.abort();
  const controller = page.controller = new AbortController();
  $(spec.button).disabled = true;
  try {
    const deadline = Number($("deadline").value) || MOVES_DEADLINE_MS;
    const body = {board: request.board, company: request.company, top: MOVES_TOP, deadline_ms: deadline};
    setStatus(`valuing every legal ${spec.noun}…`);
    const answer = await call("POST", spec.path, body, controller.signal);
    const best = bestMoves[kind];
    best.request = request;
    best.answer = answer;
    best.byHex = new Map();
    for (const move of answer[kind] || []) {
      if (!best.byHex.has(move.hex)) best.byHex.set(move.hex, move);
    }
    await drawBoard(request);
    markMoves(kind);
    const first = (answer[kind] || [])[0];
    setStatus(`${answer.legal} legal ${kind} (${answer.valued} valued${answer.complete ? "" : ", the deadline passed"});` +
              ` best run now ${answer.revenue}` +
              (first ? `; best ${spec.noun} ${spec.name(first)} (${signed(first.gain)}): click a mark to ${spec.verb} it` : ""),
              "");
  } catch (e) {
    if (e.name === "AbortError") setStatus("stopped: the valuation was cancelled", "error");
    else showError(e);
  } finally {
    if (page.controller === controller) page.controller = null;
    $(spec.button).disabled = false;
  }
}

function signed(n) { return (n >= 0 ? "+" : "") + n; }

// A label on each hex of the kind's best moves: its best move's gain; a click makes it.
function markMoves(kind) {
  const spec = MOVE_KINDS[kind];
  const g = page.geometry;
  const map = $("map");
  if (!g || !map) return;
  const old = document.getElementById(spec.layer);
  if (old) old.remove();
  const layer = el("g", {id: spec.layer}, map);
  for (const [hex, move] of bestMoves[kind].byHex) {
    const at = spec.at(g, move);
    if (!at) continue;
    const [x, y] = at;
    const mark = el("g", {class: spec.mark, "data-hex": hex, "data-gain": move.gain, cursor: "pointer"}, layer);
    el("rect", {x: x - 11, y: y - 5, width: 22, height: 10, rx: 3, fill: move.gain > 0 ? spec.fill : "#777",
                "fill-opacity": 0.9}, mark);
    const text = el("text", {x, y: y + 2.5, "font-size": 7, fill: "#fff", "text-anchor": "middle",
                             "font-weight": 600}, mark);
    text.textContent = signed(move.gain);
    const title = el("title", {}, mark);
    title.textContent = `${hex}: ${spec.detail(move)}, cost ${move.cost}, run ${move.revenue_after}`;
    mark.addEventListener("click", () => showMove(kind, hex));
  }
}

// The request with `lay` on its board (the hex's tile replaced).
function withLay(request, lay) {
  const board = Object.assign({}, request.board);
  board.tiles = (board.tiles || []).filter((t) => t.hex !== lay.hex)
    .concat([{hex: lay.hex, tile: lay.tile, rotation: lay.rotation}]);
  return Object.assign({}, request, {board});
}

// The request with the company's station token placed.
function withToken(request, token) {
  const board = Object.assign({}, request.board);
  board.tokens = (board.tokens || []).concat([{hex: token.hex, city: token.city, company: request.company.id}]);
  return Object.assign({}, request, {board});
}

async function showMove(kind, hex) {
  const spec = MOVE_KINDS[kind];
  const best = bestMoves[kind];
  const move = best.byHex.get(hex);
  if (!move || !best.request) return;
  const request = spec.applied(best.request, move);
  if (page.controller) page.controller.abort();
  const controller = page.controller = new AbortController();
  try {
    setStatus(`${spec.verb === "lay" ? "laying" : "placing"} ${spec.name(move)}…`);
    page.drawing = drawBoard(request);
    await page.drawing;
    markMoves(kind);
    const body = {board: request.board, company: request.company};
    const deadline = Number($("deadline").value);
    if (deadline > 0) body.deadline_ms = deadline;
    const answer = await call("POST", "/v1/solve", body, controller.signal);
    drawRoutes(answer.routes || []);
    fillTable(answer.routes || [], answer.revenue);
    setStatus(`with ${spec.name(move)} (${spec.detail(move)}, cost ${move.cost}): best run ${answer.revenue}` +
              ` (${signed(answer.revenue - best.answer.revenue)})` + (answer.optimal ? ", proved" : ""),
              answer.optimal ? "proved" : "");
    for (const m of document.querySelectorAll(`#${spec.layer} .${spec.mark}`)) {
      m.classList.toggle("shown", m.getAttribute("data-hex") === hex);
    }
  } catch (e) {
    if (e.name === "AbortError") setStatus("stopped: the search was cancelled", "error");
    else showError(e);
  } finally {
    if (page.controller === controller) page.controller = null;
  }
}
