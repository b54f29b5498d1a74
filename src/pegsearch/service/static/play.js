// The Play page: a board played from a search's start, each legal jump marked by a hint of the
// run (#/play/ID); or a shipped board from its own start or a single empty hole, each jump marked
// by the depth-first solver (#/play-board/NAME[/HOLE]). Loaded after app.js, whose helpers it uses.
//
// A solver's hint may be undecided (its time bound reached). The page then asks again by itself,
// each time with twice the bound (up to the server's 60 s), while the position stands, and the
// player may ask it to think longer at once; a request for a position left is aborted, which stops
// its solver on the server.
"use strict";

const FIRST_SECONDS = 3;    // the solver's bound on a position's first hint (the server's default)
const MOST_SECONDS = 60;    // the server's most
const AGAIN_AFTER = 400;    // ms before an undecided position is asked again
let play = null;            // { hints, board, start, line: [{ jump, pegs }], hint, selected, ... }

async function showPlay(id) {
  try {
    const d = await getJSON(`/api/searches/${id}`);
    const board = await getJSON(`/api/searches/${id}/board`);
    startPlay(board, d.start, `/api/searches/${id}/hint`, `#/search/${id}`, null);
    await askHint();
  } catch (error) { say(error.message); }
}

// A shipped board from the holes it draws empty, or from `hole` alone empty.
async function showBoardPlay(name, hole) {
  try {
    const board = await getJSON(`/api/boards/${encodeURIComponent(name)}`);
    const starts = `/api/boards/${encodeURIComponent(name)}/starts`;
    startPlay(board, hole ? [hole] : board.empty, `/api/boards/${encodeURIComponent(name)}/hint`, "#/", starts);
    await askHint();
  } catch (error) { say(error.message); }
}

function startPlay(board, start, hints, back, starts) {
  leavePlay();
  const all = board.cells.map((_, i) => i + 1);
  play = { hints, board, start: new Set(all.filter((h) => !start.includes(h))), line: [], hint: null,
    selected: null, starts, asked: null, again: null };
  $("play-title").textContent = `Play ${board.name}, start: hole${start.length > 1 ? "s" : ""} ${start.join(", ")}`;
  $("play-back").href = back;
  $("play-finish").replaceChildren(new Option("one peg anywhere", ""));
  $("play-starts").hidden = true;
}

// Leaving the page (or its position): the request in flight aborted, no asking again.
function leavePlay() {
  if (!play) return;
  clearTimeout(play.again);
  if (play.asked) play.asked.controller.abort();
  play.asked = null;
}

const pegsNow = () => (play.line.length ? play.line[play.line.length - 1].pegs : play.start);

// While an answer is pending the page says so and takes no move: a click then would act on the
// marks of the position before. An answer asked again in the background keeps the page playable.
function working(pending) {
  play.pending = pending;
  $("play").classList.toggle("working", pending);
  for (const id of ["play-finish", "play-undo", "play-restart"]) $(id).disabled = pending;
}

// Whether a hint leaves the position's verdict or a jump's undecided (a finishing hole undecided
// alone does not ask again: the jumps are what a player needs).
const undecided = (hint) => hint.winnable === null || hint.jumps.some((j) => j.winnable === null);

// Ask for the position on the board now: a new position is asked at FIRST_SECONDS, greyed until
// it comes; the same position again (`seconds` given) in the background, its marks kept.
async function askHint(seconds) {
  leavePlay();
  const again = seconds !== undefined;
  const pegs = [...pegsNow()].sort((a, b) => a - b);
  const finish = $("play-finish").value;
  const bound = again ? seconds : FIRST_SECONDS;
  const asked = { controller: new AbortController(), seconds: bound };
  play.asked = asked;
  if (!again) {
    $("play-verdict").textContent = "asking…";
    $("play-verdict").className = "verdict";
    // Nothing said of the position before stays while this one is asked: its proof of loss
    // (a new start's page kept the last start's "Why" some 3 s) or its thinking longer.
    for (const id of ["play-note", "play-why", "play-thinking"]) $(id).textContent = "";
    $("play-think").hidden = true;
    working(true);
    // The jump just played is shown at once, greyed (the "working" class) until its answer comes.
    drawBoard($("play-board"), play.board, pegsNow(), { marks: new Map(), onPick: () => {}, fill: true });
    $("play-jumps").replaceChildren();
  } else {  // the player may still ask for the most at once
    $("play-think").hidden = bound >= MOST_SECONDS;
    $("play-think").textContent = "think longer now";
    $("play-thinking").textContent = `Undecided so far: thinking longer (up to ${bound} s)…`;
  }
  try {
    const query = `position=${pegs.join(",")}${finish ? `&finish=${finish}` : ""}&seconds=${bound}`;
    const hint = await getJSON(`${play.hints}?${query}`, { signal: asked.controller.signal });
    if (play.asked !== asked) return;  // the position changed meanwhile
    play.asked = null;
    play.hint = hint;
    if (!again) play.selected = null;
    working(false);
    offerFinishes(finish);
    renderPlay();
    if (undecided(hint)) thinkLonger(bound);
    else settled();
  } catch (error) {
    if (error.name === "AbortError" || play.asked !== asked) return;
    play.asked = null;
    working(false);
    if (!again) $("play-verdict").textContent = "";
    $("play-thinking").textContent = "";
    $("play-think").hidden = !play.hint || !undecided(play.hint);
    say(error.message);
  }
}

// An undecided answer: ask again by itself with twice the bound while the position stands, and
// let the player ask for the most at once.
function thinkLonger(bound) {
  $("play-thinking").textContent = "";
  $("play-think").hidden = false;
  $("play-think").textContent = bound < MOST_SECONDS ? "think longer now" : "think again";
  if (bound < MOST_SECONDS) {
    play.again = setTimeout(() => askHint(Math.min(2 * bound, MOST_SECONDS)), AGAIN_AFTER);
    $("play-thinking").textContent = `Undecided so far: asking again with ${Math.min(2 * bound, MOST_SECONDS)} s…`;
  }
}

// Everything decided: nothing more is being thought about (the message "thinking longer (up to
// 6 s)" and its button stayed for minutes after an answer asked again had decided every jump).
function settled() {
  $("play-thinking").textContent = "";
  $("play-think").hidden = true;
}

// "Won means" offers the holes the last peg can still end on from here, found or not yet decided
// (the same holes at every jump, not only those a line has reached so far), and the one chosen,
// while it is chosen, even once it cannot be reached any more.
function offerFinishes(chosen) {
  const found = play.hint.finishes, open = play.hint.finishes_undecided || [];
  const holes = new Set([...found, ...open].map(String));
  if (chosen) holes.add(chosen);
  const label = (h) => (found.includes(Number(h)) ? "" : open.includes(Number(h)) ? " (not yet decided)"
    : " (no longer possible)");
  $("play-finish").replaceChildren(new Option("one peg anywhere", ""),
    ...[...holes].sort((a, b) => a - b).map((h) => new Option(`one peg on hole ${h}${label(h)}`, h)));
  $("play-finish").value = chosen;
  // A chosen hole out of reach: say which holes still are, each a button choosing it.
  const possible = [...found, ...open].sort((a, b) => a - b);
  const lost = chosen && label(chosen) === " (no longer possible)" && play.hint.winnable !== null;
  $("play-offer").hidden = !lost || possible.length === 0;
  if (lost) {
    $("play-offer-text").textContent = `One peg on hole ${chosen} is no longer possible; the last peg can still end on:`;
    $("play-offer-holes").replaceChildren(...possible.map((h) => button(`hole ${h}`, () => {
      $("play-finish").value = String(h);
      askHint();
    })));
  }
}

function button(text, onClick) {
  const made = document.createElement("button");
  made.type = "button";
  made.textContent = text;
  made.addEventListener("click", onClick);
  return made;
}

// A start that can never be won (diamond-41's drawn start): why, and the starts that can be.
async function offerStarts() {
  const lostStart = play.line.length === 0 && play.hint.winnable === false && play.starts;
  $("play-starts").hidden = !lostStart;
  if (!lostStart) return;
  try {
    const { starts } = await getJSON(play.starts);
    const name = encodeURIComponent(play.board.name);
    $("play-starts-text").textContent = "This start can never be won. Start from one empty hole instead:";
    $("play-starts-holes").replaceChildren(...starts.map((h) => button(`hole ${h}`, () => {
      location.hash = `#/play-board/${name}/${h}`;
    })));
  } catch (error) { say(error.message); }
}

// A verdict as a mark: won, lost, or undecided (the solver's time bound reached).
const mark = (winnable) => (winnable === true ? "keeps" : winnable === false ? "loses" : "undecided");

function renderPlay() {
  const { hint } = play;
  const goal = $("play-finish").value ? `one peg on hole ${$("play-finish").value}` : "one peg";
  const left = pegsNow().size;
  const solutions = hint.solutions !== undefined ? `: ${plural(hint.solutions, "solution")} from here`
    : hint.moves_left !== undefined ? `: ${plural(hint.moves_left, "move")} at fewest from here` : "";
  $("play-verdict").textContent = left === 1 && hint.winnable ? `Solved: ${goal}.`
    : hint.winnable ? `Can still be won (${goal})${solutions}.`
    : hint.winnable === null ? `Undecided (${goal}) so far: the solver ran out of time on this position.`
    : `Cannot be won any more (${goal})${hint.jumps.length ? "" : ": no jump is left"}.`;
  $("play-verdict").className = `verdict ${mark(hint.winnable)}`;
  // Why it cannot be won: the proof (the position classes, a pagoda function, every line tried).
  $("play-why").textContent = hint.winnable === false && hint.note && hint.jumps.length ? why(hint.note) : "";
  $("play-count").textContent = `${plural(play.line.length, "jump")} played, ${plural(left, "peg")} left`;
  $("play-undo").disabled = $("play-restart").disabled = play.line.length === 0;
  const marks = new Map();
  for (const j of hint.jumps) {
    const [from, , to] = j.jump.split("-").map(Number);
    if (play.selected === null && !marks.has(from)) marks.set(from, "movable");
    if (play.selected === from) marks.set(to, mark(j.winnable));
  }
  if (play.selected !== null) marks.set(play.selected, "selected");
  drawBoard($("play-board"), play.board, pegsNow(), { marks, onPick: pickHole, fill: true });
  $("play-jumps").replaceChildren(...hint.jumps.map((j) => {
    const item = document.createElement("li");
    item.className = mark(j.winnable);
    item.dataset.jump = j.jump;
    const after = !j.winnable ? "" : j.solutions !== undefined ? ` (${plural(j.solutions, "solution")})`
      : j.moves_left !== undefined ? ` (${plural(j.moves_left, "move")} left)` : "";
    item.textContent = `${j.jump} ${{ keeps: "✓", loses: "✗", undecided: "?" }[mark(j.winnable)]}${after}`;
    item.title = { keeps: "keeps the game winnable", loses: "the game cannot be won after it",
      undecided: "undecided so far: the solver ran out of time" }[mark(j.winnable)];
    item.addEventListener("click", () => playJump(j));
    return item;
  }));
  $("play-line").textContent = play.line.length ? `played: ${play.line.map((s) => s.jump).join(" ")}` : "";
  offerStarts();
}

// The solver's note on a loss ("proved: the position classes rule it out (...)"), as a sentence.
const why = (note) => `Why: ${note.replace(/^proved: /, "")}.`;

function pickHole(hole) {
  if (play.pending) return;
  const jumps = play.hint.jumps.map((j) => ({ j, holes: j.jump.split("-").map(Number) }));
  const landing = jumps.find(({ holes }) => holes[0] === play.selected && holes[2] === hole);
  if (landing) { playJump(landing.j); return; }
  const movable = jumps.some(({ holes }) => holes[0] === hole);
  $("play-note").textContent = pegsNow().has(hole) && !movable
    ? `The peg on hole ${hole} has no jump from here.` : "";
  play.selected = hole !== play.selected && movable ? hole : null;
  renderPlay();
}

function playJump(j) {
  if (play.pending) return;
  play.line.push({ jump: j.jump, pegs: new Set(j.position) });
  askHint();
}

function undoJump(all) {
  play.line = all ? [] : play.line.slice(0, -1);
  askHint();
}

$("play-undo").addEventListener("click", () => undoJump(false));
$("play-restart").addEventListener("click", () => undoJump(true));
$("play-finish").addEventListener("change", () => askHint());
$("play-think").addEventListener("click", () => askHint(MOST_SECONDS));
