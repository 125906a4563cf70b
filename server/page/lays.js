// "Best lays" on the auto-route page: POST /v1/lays with the board and company of the solve or suggestion
// shown, each of the best hexes marked on the map with its gain (the best run with the lay, less the best
// run without it); a click on a mark lays that hex's best tile on the board, redraws it, and draws the
// best run it makes (POST /v1/solve). Uses app.js's page state and map helpers (loaded before it).
"use strict";

const LAYS_TOP = 10;            // the lays asked for, best first
const LAYS_DEADLINE_MS = 10000; // for the whole valuation when the options set no deadline

const bestLays = {
  request: null,    // the SolveRequest the lays were valued on
  byHex: new Map(), // hex -> its best lay
  answer: null,     // the LaysResponse
};

$("best-lays").addEventListener("click", findBestLays);

// The SolveRequest of the solve or suggestion shown: the suggestion's board, else the request box's.
function shownRequest() {
  const request = page.solved || page.request;
  return request && boardOf(request) && request.company && !isEvaluate(request) ? request : null;
}

async function findBestLays() {
  const request = shownRequest();
  if (!request) {
    setStatus("best lays: show a solve or a suggestion first", "error");
    return;
  }
  if (page.controller) page.controller.abort();
  const controller = page.controller = new AbortController();
  $("best-lays").disabled = true;
  try {
    const deadline = Number($("deadline").value) || LAYS_DEADLINE_MS;
    const body = {board: request.board, company: request.company, top: LAYS_TOP, deadline_ms: deadline};
    setStatus("valuing every legal lay…");
    const answer = await call("POST", "/v1/lays", body, controller.signal);
    bestLays.request = request;
    bestLays.answer = answer;
    bestLays.byHex = new Map();
    for (const lay of answer.lays || []) {
      if (!bestLays.byHex.has(lay.hex)) bestLays.byHex.set(lay.hex, lay);
    }
    await drawBoard(request);
    markLays();
    const best = (answer.lays || [])[0];
    setStatus(`${answer.legal} legal lays (${answer.valued} valued${answer.complete ? "" : ", the deadline passed"});` +
              ` best run now ${answer.revenue}` +
              (best ? `; best lay ${best.hex} #${best.tile} (${signed(best.gain)}): click a mark to lay it` : ""),
              "");
  } catch (e) {
    if (e.name === "AbortError") setStatus("stopped: the valuation was cancelled", "error");
    else showError(e);
  } finally {
    if (page.controller === controller) page.controller = null;
    $("best-lays").disabled = false;
  }
}

function signed(n) { return (n >= 0 ? "+" : "") + n; }

// A label on each hex of the best lays: its best lay's gain; a click lays it.
function markLays() {
  const g = page.geometry;
  const map = $("map");
  if (!g || !map) return;
  const old = document.getElementById("layer-lays");
  if (old) old.remove();
  const layer = el("g", {id: "layer-lays"}, map);
  for (const [hex, lay] of bestLays.byHex) {
    const h = g.hexAt.get(hex);
    if (!h) continue;
    const [x, y] = h.centre;
    const mark = el("g", {class: "lay-mark", "data-hex": hex, "data-gain": lay.gain, cursor: "pointer"}, layer);
    el("rect", {x: x - 11, y: y - 22, width: 22, height: 10, rx: 3, fill: lay.gain > 0 ? "#2e7d32" : "#777",
                "fill-opacity": 0.9}, mark);
    const text = el("text", {x, y: y - 14.5, "font-size": 7, fill: "#fff", "text-anchor": "middle",
                             "font-weight": 600}, mark);
    text.textContent = signed(lay.gain);
    const title = el("title", {}, mark);
    title.textContent = `${hex}: tile ${lay.tile} rotation ${lay.rotation}, cost ${lay.cost}, run ${lay.revenue_after}`;
    mark.addEventListener("click", () => showLay(hex));
  }
}

// The request with `lay` on its board (the hex's tile replaced).
function withLay(request, lay) {
  const board = Object.assign({}, request.board);
  board.tiles = (board.tiles || []).filter((t) => t.hex !== lay.hex)
    .concat([{hex: lay.hex, tile: lay.tile, rotation: lay.rotation}]);
  return Object.assign({}, request, {board});
}

async function showLay(hex) {
  const lay = bestLays.byHex.get(hex);
  if (!lay || !bestLays.request) return;
  const request = withLay(bestLays.request, lay);
  if (page.controller) page.controller.abort();
  const controller = page.controller = new AbortController();
  try {
    setStatus(`laying ${hex} #${lay.tile}…`);
    page.drawing = drawBoard(request);
    await page.drawing;
    markLays();
    const body = {board: request.board, company: request.company};
    const deadline = Number($("deadline").value);
    if (deadline > 0) body.deadline_ms = deadline;
    const answer = await call("POST", "/v1/solve", body, controller.signal);
    drawRoutes(answer.routes || []);
    fillTable(answer.routes || [], answer.revenue);
    setStatus(`with ${hex} #${lay.tile} (rotation ${lay.rotation}, cost ${lay.cost}): best run ${answer.revenue}` +
              ` (${signed(answer.revenue - bestLays.answer.revenue)})` + (answer.optimal ? ", proved" : ""),
              answer.optimal ? "proved" : "");
    for (const m of document.querySelectorAll("#layer-lays .lay-mark")) {
      m.classList.toggle("shown", m.getAttribute("data-hex") === hex);
    }
  } catch (e) {
    if (e.name === "AbortError") setStatus("stopped: the search was cancelled", "error");
    else showError(e);
  } finally {
    if (page.controller === controller) page.controller = null;
  }
}
