// The pegsearch dashboard: plain JavaScript over the JSON API, no build step, nothing fetched
// from outside this server. Views: #/ (submit form and the list of searches), #/search/ID, and the
// Play page (play.js): #/play/ID (the board played from the search's start, each jump marked by a
// hint), #/play-board/NAME[/HOLE] (a shipped board played from its own start, or from HOLE empty,
// hinted by the depth-first solver).
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
let boards = [];            // board documents from /api/boards (plus an uploaded one)
let chosen = null;          // { board, boardFile, start: Set }
let listTimer = null;
let stream = null;          // AbortController of the open event stream
let current = null;         // the search shown: { id, document }
let solution = null;        // { document, step }

// ----- the API, with the bearer token asked for once when the server wants one
async function api(path, options = {}) {
  const token = sessionStorage.getItem("pegsearch-token");
  const headers = { ...(options.headers || {}) };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401) {
    const given = prompt("This pegsearch server needs its access token:");
    if (given) {
      sessionStorage.setItem("pegsearch-token", given.trim());
      return api(path, options);
    }
  }
  if (!response.ok) {
    const reason = await response.json().catch(() => ({ error: response.statusText }));
    throw new Error(reason.error || response.statusText);
  }
  return response;
}
// Counts past 2^53 (path counts, solutions) would lose digits as JavaScript numbers: they are kept
// as their digits (a string), which `number` writes exactly.
const BIG = /(:\s*)(\d{16,})(?=\s*[,}\]])/g;
const getJSON = async (path, options) => JSON.parse((await (await api(path, options)).text()).replace(BIG, '$1"$2"'));
const postJSON = async (path, body) => (await api(path, {
  method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) })).json();

function say(text) { $("message").textContent = text || ""; }
const number = (n) => (typeof n === "string" ? BigInt(n) : Number(n)).toLocaleString("en-US");
const plural = (n, noun, nouns) => `${number(n)} ${n === 1 ? noun : nouns || `${noun}s`}`;

// ----- drawing a board: holes on the text grid of the board file (two columns apart)
function drawBoard(container, board, pegs, options = {}) {
  const cols = board.cells.map((c) => c[0]), rows = board.cells.map((c) => c[1]);
  const dx = 20, dy = board.grid === "triangle" ? 34.6 : 40, r = 15, pad = 20;
  const minC = Math.min(...cols), minR = Math.min(...rows);
  const width = (Math.max(...cols) - minC) * dx + 2 * pad, height = (Math.max(...rows) - minR) * dy + 2 * pad;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  if (!options.fill) svg.setAttribute("width", Math.min(width * 1.2, 460));  // else as wide as its box
  board.cells.forEach(([c, row], index) => {
    const hole = index + 1;
    const circle = document.createElementNS(SVG, "circle");
    circle.setAttribute("cx", (c - minC) * dx + pad);
    circle.setAttribute("cy", (row - minR) * dy + pad);
    circle.setAttribute("r", r);
    const classes = ["hole"];
    if (pegs.has(hole)) classes.push("peg");
    if (options.onPick) classes.push("pick");
    for (const role of ["from", "over", "to"]) if (options.jump && options.jump[role] === hole) classes.push(role);
    if (options.marks && options.marks.has(hole)) classes.push(options.marks.get(hole));
    circle.setAttribute("class", classes.join(" "));
    circle.dataset.hole = hole;
    if (options.onPick) circle.addEventListener("click", () => options.onPick(hole));
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", (c - minC) * dx + pad);
    label.setAttribute("y", (row - minR) * dy + pad);
    label.setAttribute("class", "number");
    label.textContent = hole;
    svg.append(circle, label);
  });
  container.replaceChildren(svg);
}

// ----- the home view: submit form and list
async function loadBoards() {
  boards = await getJSON("/api/boards");
  const select = $("board-select");
  select.replaceChildren(...boards.map((b) => new Option(`${b.name} (${b.holes} holes)`, b.name)),
    new Option("upload a board file…", ""));
  select.value = boards.some((b) => b.name === "triangle-5") ? "triangle-5" : boards[0].name;
  onBoardSelect();
}

function chooseBoard(board, boardFile) {
  chosen = { board, boardFile, start: new Set(board.empty) };
  $("board-description").textContent = `${board.description} — ${plural(board.holes, "hole")}, ${plural(board.jumps, "jump")}, ${plural(board.symmetries, "symmetry", "symmetries")}`;
  drawStartPicker();
}

function drawStartPicker() {
  const { board } = chosen;
  const surveying = $("survey").checked;
  const start = surveying ? new Set() : chosen.start;
  for (const id of ["start-hint", "start-line", "symmetry-label"]) $(id).hidden = surveying;
  const pegs = new Set(board.cells.map((_, i) => i + 1).filter((h) => !start.has(h)));
  drawBoard($("board-picture"), board, pegs, {
    onPick: surveying ? null : (hole) => {
      if (start.has(hole)) start.delete(hole); else start.add(hole);
      drawStartPicker();
    },
  });
  $("start-holes").textContent = [...start].sort((a, b) => a - b).join(", ") || "none";
  $("submit").disabled = start.size === 0 && !surveying;
}

async function onBoardSelect() {
  const name = $("board-select").value;
  $("upload-label").hidden = name !== "";
  $("play-board-link").hidden = name === "";
  $("play-board-link").href = `#/play-board/${encodeURIComponent(name)}`;
  if (name) chooseBoard(boards.find((b) => b.name === name), null);
}

async function onUpload() {
  const file = $("board-file").files[0];
  if (!file) return;
  try {
    const text = await file.text();
    const board = await postJSON("/api/boards/check", { board_file: text });
    chooseBoard(board, text);
    say("");
  } catch (error) { say(error.message); }
}

// The engine settings given as numbers (driver_below, batch_size), as the server's API description
// says (GET /api/openapi.json), asked once: typed digits of one are sent as a number, anything
// else as text, which the server refuses in its own words.
let numberSettings = null;
async function numbersAmongSettings() {
  if (!numberSettings) {
    const described = await getJSON("/api/openapi.json");
    const fields = described.components.schemas.SearchRequest.properties.settings.properties;
    numberSettings = new Set(Object.keys(fields).filter((key) => fields[key].type === "integer"));
  }
  return numberSettings;
}

async function settingsTyped(text) {
  const numbers = await numbersAmongSettings(), settings = {};
  for (const pair of text.split(",").map((each) => each.trim()).filter(Boolean)) {
    const [key, ...rest] = pair.split("=");
    const value = rest.join("=").trim();
    settings[key.trim()] = numbers.has(key.trim()) && /^\d+$/.test(value) ? Number(value) : value;
  }
  return settings;
}

async function onSubmit(event) {
  event.preventDefault();
  const request = { count_paths: $("count-paths").checked, fewest_moves: $("fewest-moves").checked,
    engine: $("engine").value };
  if ($("survey").checked) {
    request.survey = true;
  } else {
    request.start = [...chosen.start].sort((a, b) => a - b);
    request.symmetry = $("symmetry").value;
  }
  if (chosen.boardFile) request.board_file = chosen.boardFile; else request.board = chosen.board.name;
  try {
    request.settings = await settingsTyped($("settings").value);
    const { id } = await postJSON("/api/searches", request);
    location.hash = `#/search/${id}`;
  } catch (error) { say(error.message); }
}

async function refreshList() {
  try {
    const searches = await getJSON("/api/searches");
    $("searches").tBodies[0].replaceChildren(...searches.map((s) => {
      const row = document.createElement("tr");
      const link = document.createElement("a");
      link.href = `#/search/${s.id}`;
      link.textContent = s.id;
      const surveying = s.kind === "survey";
      // A damaged run whose manifest cannot be read has no board or start to show.
      const start = surveying ? "every hole" : (s.start || []).join(", ") || "-";
      // A survey is many searches: its levels and states are its runs', not one table's.
      const cells = [link, s.board || "-", start, badge(s.status), surveying ? "-" : s.levels,
        surveying ? "-" : number(s.states), s.verdict || ""];
      row.append(...cells.map((content) => {
        const cell = document.createElement("td");
        cell.append(content);
        return cell;
      }));
      return row;
    }));
  } catch (error) { say(error.message); }
}

function badge(status) {
  const span = document.createElement("span");
  span.className = `status ${status}`;
  span.textContent = status;
  return span;
}

// ----- the search view: table and chart filled in from the event stream
async function showSearch(id) {
  solution = null;
  $("solution-card").hidden = true;
  $("solution-steps").hidden = true;
  $("solution-note").textContent = "";
  try {
    const document_ = await getJSON(`/api/searches/${id}`);
    current = { id, document: { ...document_, levels: [] } };
    renderHeading();
    renderLevels();
    follow(id);
  } catch (error) { say(error.message); }
}

function renderHeading() {
  const d = current.document;
  const surveying = d.kind === "survey";
  $("search-title").textContent = surveying ? `survey of ${d.board}, every start hole`
    : d.board ? `${d.board}, start: hole${d.start.length > 1 ? "s" : ""} ${d.start.join(", ")}`
    : `${current.id}: ${d.error}`;
  $("search-settings").textContent = `${current.id} · ${surveying ? "" : `symmetry ${d.symmetry} · `}${d.count_paths ? "paths counted · " : ""}${d.fewest_moves ? "fewest moves · " : ""}${d.by === "depth-first" ? "by the depth-first solver, pair by pair" : `engine ${d.engine}${settingsText(d.settings)}`}`;
  $("level-cards").hidden = surveying;
  $("survey-card").hidden = !(surveying && d.starts);
  if (surveying && d.starts) renderStarts(d);
  $("status").textContent = d.status;
  $("status").className = `status ${d.status}`;
  // A level made in passes: how far its committed passes (checkpoints) go.
  $("in-progress").textContent = d.in_progress ? d.in_progress.note : "";
  $("verdict").textContent = d.verdict || "";
  $("error").textContent = d.error || "";
  $("cancel").disabled = !["queued", "running"].includes(d.status);
  $("resume").disabled = !["interrupted", "failed"].includes(d.status);
  $("play-link").hidden = d.status !== "complete" || surveying;
  $("play-link").href = `#/play/${current.id}`;
}

// Inside the level being made: parents expanded so far out of the total (all passes).
function showProgress(data) {
  $("progress").hidden = false;
  $("progress-bar").max = data.total;
  $("progress-bar").value = data.done;
  $("progress-text").textContent =
    `making level ${data.level} (${data.pegs} pegs): ${number(data.done)} of ${number(data.total)} parents`;
}

function renderLevels() {
  const levels = current.document.levels;
  const counted = current.document.count_paths, moved = current.document.fewest_moves;
  document.querySelectorAll("#levels .paths").forEach((cell) => { cell.hidden = !counted; });
  document.querySelectorAll("#levels .moves").forEach((cell) => { cell.hidden = !moved; });
  $("levels").tBodies[0].replaceChildren(...levels.map((level) => {
    const row = document.createElement("tr");
    const download = document.createElement("a");
    download.href = "#";
    download.className = "download";
    download.textContent = "download";
    download.addEventListener("click", (event) => { event.preventDefault(); downloadLevel(level.level); });
    const cells = [[level.level], [level.pegs], [number(level.states)],
      [level.paths === undefined ? "" : number(level.paths), "paths", !counted],
      [level.moves === undefined ? "" : level.moves, "moves", !moved],
      [level.engine === undefined ? "" : level.engine, "engine"], [download]];
    for (const [content, kind, hidden] of cells) {
      const cell = document.createElement("td");
      cell.append(content);
      if (kind) cell.className = kind;
      cell.hidden = Boolean(hidden);
      row.append(cell);
    }
    return row;
  }));
  $("total").textContent = number(levels.reduce((sum, level) => sum + level.states, 0));
  drawChart($("chart"), levels);
}

function settingsText(settings) {
  const pairs = Object.entries(settings || {}).map(([key, value]) => `${key}=${value}`);
  return pairs.length ? ` (${pairs.join(", ")})` : "";
}

function renderStarts(d) {
  document.querySelectorAll("#starts .paths").forEach((cell) => { cell.hidden = !d.count_paths; });
  document.querySelectorAll("#starts .moves").forEach((cell) => { cell.hidden = !d.fewest_moves; });
  $("starts").tBodies[0].replaceChildren(...d.starts.map((start) => {
    const row = document.createElement("tr");
    const finishes = start.finishes.map((hole) => (d.fewest_moves ? `${hole} (${start.moves_by_finish[hole]})` : hole));
    const cells = [start.start, start.solvable ? "yes" : "no", number(start.states),
      d.count_paths ? number(start.solutions) : null,
      d.fewest_moves ? (start.fewest_moves === null ? "-" : start.fewest_moves) : null,
      finishes.join(", ") || "-"];
    for (const content of cells.filter((cell) => cell !== null)) {
      const cell = document.createElement("td");
      cell.append(content);
      row.append(cell);
    }
    return row;
  }));
}

function drawChart(container, levels) {
  const width = 640, height = 260, left = 44, bottom = 30, top = 10;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const most = Math.max(10, ...levels.map((l) => l.states));
  const decades = Math.ceil(Math.log10(most));
  // The axis starts at 0.5, so a level of one state is a bar too, not a line on the axis.
  const floor = Math.log10(0.5);
  const y = (value) => top + (height - top - bottom) * (1 - (Math.log10(Math.max(value, 0.5)) - floor) / (decades - floor));
  const shown = Math.max(levels.length, 1);
  const step = (width - left - 10) / shown;
  const add = (tag, attributes, text) => {
    const element = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
    if (text !== undefined) element.textContent = text;
    svg.append(element);
  };
  for (let d = 0; d <= decades; d++) {
    add("line", { x1: left, x2: width - 10, y1: y(10 ** d), y2: y(10 ** d), class: "grid" });
    add("text", { x: left - 6, y: y(10 ** d) + 4, "text-anchor": "end", class: "tick" },
      ["1", "10", "100"][d % 3] + ["", "k", "M", "G", "T", "P"][Math.floor(d / 3)]);
  }
  levels.forEach((level, index) => {
    const x = left + index * step;
    add("rect", { x: x + step * 0.1, width: step * 0.8, y: y(level.states),
      height: height - bottom - y(level.states), class: "bar" }, undefined);
    svg.lastChild.append(Object.assign(document.createElementNS(SVG, "title"),
      { textContent: `level ${level.level}: ${number(level.states)} states` }));
    if (levels.length <= 20 || index % 2 === 0) {
      add("text", { x: x + step / 2, y: height - bottom + 16, "text-anchor": "middle", class: "tick" }, level.level);
    }
  });
  add("line", { x1: left, x2: width - 10, y1: height - bottom, y2: height - bottom, class: "axis" });
  add("line", { x1: left, x2: left, y1: top, y2: height - bottom, class: "axis" });
  container.replaceChildren(svg);
}

// Server-sent events read with fetch (so the bearer header goes along): `level`, `progress`, `status`.
async function follow(id) {
  if (stream) stream.abort();
  stream = new AbortController();
  try {
    const response = await api(`/api/searches/${id}/events`, { signal: stream.signal });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        onEvent(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
      }
    }
  } catch (error) {
    if (error.name !== "AbortError") say(error.message);
  }
}

function onEvent(block) {
  const kind = (block.match(/^event: (.*)$/m) || [])[1];
  const data = JSON.parse((block.match(/^data: (.*)$/m) || [])[1] || "{}");
  if (!current) return;
  if (kind === "level") {
    current.document.levels.push(data);
    $("progress").hidden = true;
    renderLevels();
  } else if (kind === "progress") {
    showProgress(data);
  } else if (kind === "status") {
    if (data.status !== "running") $("progress").hidden = true;
    if (data.status === "deleted") { location.hash = "#/"; return; }
    if (data.status === "complete" && current.document.kind === "survey" && !current.document.starts) {
      showSearch(current.id);  // the answers for every start hole come with the whole document
      return;
    }
    Object.assign(current.document, data);
    renderHeading();
    $("solution-card").hidden = data.status !== "complete" || current.document.kind === "survey";
  }
}

async function act(action) {
  try {
    if (action === "delete") {
      if (!confirm(`Delete ${current.id} and its run directory?`)) return;
      await api(`/api/searches/${current.id}`, { method: "DELETE" });
      location.hash = "#/";
      return;
    }
    await postJSON(`/api/searches/${current.id}/${action}`);
    showSearch(current.id);
  } catch (error) { say(error.message); }
}

async function downloadLevel(level) {
  try {
    const listing = await getJSON(`/api/searches/${current.id}/levels/${level}`);
    for (const part of listing.parts) {
      const blob = await (await api(part.url)).blob();
      const link = Object.assign(document.createElement("a"), { href: URL.createObjectURL(blob),
        download: `${current.id}-level-${String(level).padStart(3, "0")}-part-${part.index}.parquet` });
      link.click();
      URL.revokeObjectURL(link.href);
    }
  } catch (error) { say(error.message); }
}

// ----- a solution, step by step on the board
async function loadSolution() {
  $("solve").disabled = true;
  $("solution-note").textContent = "finding a solution…";
  try {
    const document_ = await getJSON(`/api/searches/${current.id}/solution`);
    solution = { document: document_, step: 0 };
    $("solution-steps").hidden = false;
    const moves = `${document_.moves} move${document_.moves === 1 ? "" : "s"}${document_.fewest_moves ? " (the fewest)" : ""}`;
    $("solution-title").textContent = document_.solved
      ? `A solution in ${document_.jumps.length} jumps, ${moves}` : `The best line of play, ${moves}`;
    $("solution-note").textContent = document_.note;
    $("solution-jumps").textContent = `jumps: ${document_.jumps.map((j) => `${j.from}-${j.over}-${j.to}`).join(" ")}`;
    $("solution-moves").textContent = `moves: ${groupedMoves(document_.jumps)}`;
    renderStep();
  } catch (error) {
    $("solution-note").textContent = "";
    say(error.message);
  } finally { $("solve").disabled = false; }
}

function renderStep() {
  const { document: d, step } = solution;
  const jump = step > 0 ? d.jumps[step - 1] : null;
  drawBoard($("solution-board"), d.board, new Set(d.positions[step]), { jump });
  $("solution-caption").textContent = jump
    ? `${step}. ${jump.from}-${jump.over}-${jump.to} (move ${jump.move} of ${d.moves})` : "start";
  $("solution-prev").disabled = $("solution-first").disabled = step === 0;
  $("solution-next").disabled = $("solution-last").disabled = step === d.jumps.length;
}

// A line's jumps with a move's jumps joined by commas, moves apart (as `pegsearch solve` prints).
function groupedMoves(jumps) {
  const moves = [];
  for (const j of jumps) {
    if (moves.length < j.move) moves.push([]);
    moves[moves.length - 1].push(`${j.from}-${j.over}-${j.to}`);
  }
  return moves.map((move) => move.join(",")).join(" ") || "-";
}

function goTo(step) {
  solution.step = Math.max(0, Math.min(step, solution.document.jumps.length));
  renderStep();
}

// ----- routing
function route() {
  const match = location.hash.match(/^#\/(search|play|play-board)\/([A-Za-z0-9_-]+)(?:\/(\d{1,3}))?$/);
  $("home").hidden = Boolean(match);
  $("search").hidden = !match || match[1] !== "search";
  $("play").hidden = !match || !match[1].startsWith("play");
  clearInterval(listTimer);
  if (stream) stream.abort();
  leavePlay();
  say("");
  if (match && match[1] === "play") {
    showPlay(match[2]);
  } else if (match && match[1] === "play-board") {
    showBoardPlay(match[2], match[3] ? Number(match[3]) : null);
  } else if (match) {
    showSearch(match[2]);
  } else {
    current = null;
    refreshList();
    listTimer = setInterval(refreshList, 2000);
  }
}

$("board-select").addEventListener("change", onBoardSelect);
$("board-file").addEventListener("change", onUpload);
$("survey").addEventListener("change", drawStartPicker);
$("search-form").addEventListener("submit", onSubmit);
for (const action of ["cancel", "resume", "delete"]) $(action).addEventListener("click", () => act(action));
$("solve").addEventListener("click", loadSolution);
$("solution-first").addEventListener("click", () => goTo(0));
$("solution-prev").addEventListener("click", () => goTo(solution.step - 1));
$("solution-next").addEventListener("click", () => goTo(solution.step + 1));
$("solution-last").addEventListener("click", () => goTo(solution.document.jumps.length));
window.addEventListener("hashchange", route);
loadBoards().catch((error) => say(error.message));
// After every script has run (the Play page's is play.js, loaded after this one).
document.addEventListener("DOMContentLoaded", route);
