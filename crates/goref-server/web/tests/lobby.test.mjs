// Browser test of players on the server (headless Chromium, as browser.test.mjs): a person
// creates an account on the page, a program (`goref connect` driving goref's built-in
// scripted engine) opens a challenge, the person accepts it in the lobby, is seated by the session
// token and plays the game to the end, reviews it move by move, finds both players on the
// players' pages, sees the messages for an unknown game and a wrong seat link, then opens
// a tournament (as the TD: creates it, joins it, starts it, watches a game and decides it).
// Screenshots of the lobby and the tournament page go to tests/screenshots/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { bin, launch, shots, startServer } from "./helpers.mjs";

const post = async (url, body, token) => {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const j = await r.json().catch(() => null);
  return { status: r.status, body: j };
};

// The board's stones as the page shows them: rows of 1, -1, 0.
async function shownBoard(page, width, height) {
  return page.evaluate(
    ([w, h]) =>
      Array.from({ length: h }, (_, y) =>
        Array.from({ length: w }, (_, x) => {
          const c = document.querySelector(`.shudan-vertex[data-x="${x}"][data-y="${y}"]`).className;
          return c.includes("shudan-sign_1") ? 1 : c.includes("shudan-sign_-1") ? -1 : 0;
        }),
      ),
    [width, height],
  );
}

test("a person accepts a program's challenge, plays it out, reviews it; players and tournaments", { timeout: 240000 }, async (t) => {
  mkdirSync(shots, { recursive: true });
  const server = await startServer(["--pairing-interval", "off"]);
  const browser = await launch();
  let bot = null;
  const botLog = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));

    // Ann creates her account from the lobby (the first account: the tournament director).
    await page.goto(server.url + "/lobby");
    await page.locator('[data-testid="login-name"]').fill("Ann");
    await page.locator('[data-testid="login-password"]').fill("pw-ann-secret");
    await page.locator('[data-testid="login-submit"]').click();
    // "Log in" with a name nobody has says how to create the account.
    assert.match(await page.locator('[data-testid="login-error"]').textContent(), /Create account/);
    await page.locator('[data-testid="login-create"]').click();
    await page.locator('main.lobby[data-connected="yes"]').waitFor();
    assert.equal(await page.locator('[data-testid="account-name"]').textContent(), "Ann");
    assert.equal(await page.locator("nav.top .badge.td").count(), 1);
    await page.locator('[data-testid="online"] li', { hasText: "Ann" }).waitFor();

    // The program logs in (its account is created) and opens its challenge.
    bot = spawn(
      bin,
      [
        "connect", server.url,
        // goref's scripted engine: three stones, then passes; it answers `final_status_list
        // dead` with none, so that it can take part in Tromp's marking. (The random engine
        // does not know final_status_list, and `goref connect` then passes in marking, which
        // the referee refuses: the game would never end.)
        "--engine", `${bin} engine scripted --moves c3,d4,b2 --dead ""`,
        "--name", "bot", "--password", "pw-bot",
        "--no-pairing",
        "--challenge", '{"width":5,"rules":"tromp-taylor","end":"tromp"}',
        "--games", "1",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    bot.stdout.on("data", (d) => botLog.push(String(d)));
    bot.stderr.on("data", (d) => botLog.push(String(d)));
    const row = page.locator('[data-testid="challenge-bot"]');
    await row.waitFor({ timeout: 20000 });
    assert.equal(await row.locator(".badge.program").count(), 1, "the program is marked");
    assert.match(await row.textContent(), /5×5 · Tromp-Taylor/);
    await page.locator('[data-testid="online"] li', { hasText: "bot" }).locator(".badge.program").waitFor();

    // Ann opens a challenge of her own, sees it with Cancel, and cancels it.
    const form = page.locator('[data-testid="challenge-form"]');
    await form.locator('select[name="time"]').selectOption("byo_yomi");
    assert.equal(await form.locator('input[name="increment_s"]').count(), 0, "only byo-yomi's fields");
    assert.equal(await form.locator('input[name="periods"]').count(), 1);
    await form.locator('select[name="time"]').selectOption("fischer");
    await form.locator('input[name="max_min"]').fill("20");
    await form.locator('select[name="color"]').selectOption("black");
    await form.locator('button[type="submit"]').click();
    const mine = page.locator('[data-testid="challenge-Ann"]');
    await mine.waitFor();
    assert.match(await mine.textContent(), /10 min \+ 10 s Fischer \(at most 20 min\)/);
    assert.match(await mine.textContent(), /plays Black/);
    await page.screenshot({ path: join(shots, "6-lobby.png") });
    await mine.locator('[data-testid="cancel"]').click();
    await mine.waitFor({ state: "detached" });

    // Ann accepts the program's challenge: the page goes to the game, seated by her token.
    await row.locator('[data-testid="accept"]').click();
    await page.waitForURL(/\/g\/[0-9a-f]+$/, { timeout: 10000 });
    const id = page.url().split("/g/")[1];
    await page.locator('main.game[data-seat="B"], main.game[data-seat="W"]').waitFor();
    const seat = await page.locator("main.game").getAttribute("data-seat");
    assert.match(await page.locator('[data-testid="seat"]').textContent(), new RegExp(`You play ${seat === "B" ? "Black" : "White"} \\(as Ann\\)`));
    assert.equal(await page.locator(`[data-testid="player-${seat}"] .you`).count(), 1);
    // The record can be downloaded during play.
    assert.equal(await page.locator('[data-testid="sgf"]').getAttribute("href"), `/api/games/${id}/sgf`);
    const during = await fetch(`${server.url}/api/games/${id}/sgf`);
    assert.equal(during.status, 200);
    assert.match(await during.text(), /PB\[(Ann|bot)\]/);

    // Ann passes whenever it is her turn and says done in marking: the program plays on
    // until it passes too; the game ends by Tromp's protocol.
    const deadline = Date.now() + 60000;
    for (;;) {
      assert.ok(Date.now() < deadline, `the game did not end; the program said: ${botLog.join("")}`);
      // One read of the state the page shows (read attribute by attribute, the program's
      // pass could fall between them: "move" from before it, Ann's turn from after it, in
      // marking, where there is no pass button).
      const { phase, need, color, version } = await page.locator("main.game").evaluate((m) => ({
        phase: m.dataset.phase,
        need: m.dataset.need,
        color: m.dataset.needColor,
        version: Number(m.dataset.version),
      }));
      if (phase === "over") break;
      const button = need === "move" ? "pass" : need === "marking" ? "done" : null;
      if (color === seat && button) {
        await page.locator(`[data-testid="${button}"]`).click();
        await page.waitForFunction(
          (v) => Number(document.querySelector("main.game").dataset.version) > v,
          version,
          { timeout: 20000 },
        );
      } else {
        await page.waitForTimeout(100);
      }
    }
    const status = await page.locator('[data-testid="status"]').textContent();
    assert.match(status, /^Game over: (B|W)\+\d+(\.\d)? \(agreement\)$/);
    const final = await (await fetch(`${server.url}/api/games/${id}`)).json();
    assert.ok(final.moves.some((m) => m.point), "the program played stones");

    // Review: the start is empty; each step shows its move's stone; the last step is the end.
    const n = final.moves.length;
    await page.locator('[data-testid="review-first"]').click();
    await page.locator('main.game[data-shown="0"]').waitFor();
    assert.equal(await page.locator(".shudan-vertex.shudan-sign_1, .shudan-vertex.shudan-sign_-1").count(), 0);
    assert.match(await page.locator('[data-testid="review-at"]').textContent(), /start/);
    for (let i = 0; i < n; i++) {
      await page.locator('[data-testid="review-next"]').click();
      await page.locator(`main.game[data-shown="${i + 1}"]`).waitFor();
      const m = final.moves[i];
      if (m.point) {
        const [x, y] = m.point;
        const cls = await page.locator(`.shudan-vertex[data-x="${x}"][data-y="${y}"]`).getAttribute("class");
        assert.ok(cls.includes(m.color === "B" ? "shudan-sign_1" : "shudan-sign_-1"), `move ${i + 1} (${m.name}) shown`);
        assert.ok(cls.includes("shudan-marker_point"), `move ${i + 1} marked as the last`);
      }
      if (i === 2) await page.screenshot({ path: join(shots, "8-review.png") });
      if (i === n - 2) {
        // One move before the end, the replayed board is the game's board without the last move.
        await page.locator('[data-testid="review-next"]').click();
        await page.locator(`main.game[data-shown="${n}"]`).waitFor();
        assert.deepEqual(await shownBoard(page, 5, 5), final.board, "the replay ends on the game's board");
        break;
      }
    }
    await page.keyboard.press("Home");
    await page.locator('main.game[data-shown="0"]').waitFor();
    await page.keyboard.press("End");
    await page.locator(`main.game[data-shown="${n}"]`).waitFor();
    assert.match(await page.locator('[data-testid="review-at"]').textContent(), /end/);

    // The lobby was told of the game's end; the players' pages list both and the game.
    await page.locator('nav.top a[href="/players"]').click();
    await page.locator('[data-testid="players"]').waitFor();
    for (const name of ["Ann", "bot"]) {
      await page.locator(`[data-testid="player-row-${name}"]`).waitFor();
    }
    assert.equal(await page.locator('[data-testid="player-row-bot"] .badge.program').count(), 1);
    const rated = await page.locator('[data-testid="player-row-bot"] td').nth(2).textContent();
    assert.match(rated, /^\d+\?$/, "the rated game gave the program a rating, provisional after one game");
    await page.locator('[data-testid="player-row-bot"] a.player-link').click();
    await page.locator('[data-testid="player-name"]').waitFor();
    assert.match(await page.locator('[data-testid="player-name"]').textContent(), /^botprogram$/);
    assert.equal(await page.locator(`[data-testid="player-games"] a[href="/g/${id}"]`).count(), 1);
    // Its crosstable: the one rated game, against Ann.
    const cross = page.locator('[data-testid="cross-Ann"] td');
    await cross.first().waitFor();
    assert.equal(await cross.nth(2).textContent(), "1");
    const byColour = [await cross.nth(3).textContent(), await cross.nth(4).textContent()];
    assert.equal(byColour.filter((t) => t !== "0–0–0").length, 1, `one colour played: ${byColour}`);

    // An unknown game and a wrong seat link say so (instead of "Connecting…" forever).
    await page.goto(`${server.url}/g/0123456789ab`);
    assert.match(await page.locator('[data-testid="fatal"]').textContent(), /no game with this id/);
    await page.goto(`${server.url}/g/${id}#seat=00000000000000000000000000000000`);
    assert.match(await page.locator('[data-testid="fatal"]').textContent(), /seat link is not valid/);
    await page.locator('[data-testid="watch-link"]').click();
    await page.locator('main.game[data-phase="over"]').waitFor();

    // Tournaments: as the TD, Ann creates one, joins it, three more join, she starts it.
    await page.locator('nav.top a[href="/tournaments"]').click();
    const tform = page.locator('[data-testid="tournament-form"]');
    await tform.locator('input[name="name"]').fill("Friday <b>night</b>");
    await tform.locator('select[name="format"]').selectOption("round-robin");
    assert.equal(await tform.locator('input[name="rounds"]').count(), 0, "a round-robin has no rounds to give");
    await tform.locator('input[name="games_per_pair"]').fill("1");
    await tform.locator('input[name="width"]').fill("5");
    await tform.locator('input[name="height"]').fill("5");
    await tform.locator('select[name="time"]').selectOption("none");
    await tform.locator('button[type="submit"]').click();
    await page.waitForURL(/\/t\/[^/]+$/, { timeout: 10000 });
    const tid = page.url().split("/t/")[1];
    assert.equal(await page.locator('[data-testid="tournament-name"]').textContent(), "Friday <b>night</b>");
    assert.match(await page.locator('[data-testid="tournament-info"]').textContent(), /round-robin, 1 game per pair · open/);
    await page.locator('[data-testid="join"]').click();
    await page.locator('[data-testid="tournament-players"]', { hasText: "Ann" }).waitFor();
    // Three more players join over the API (the program's account among them).
    for (const [name, password] of [["bot", "pw-bot"], ["carl", "pw-carl"], ["dora", "pw-dora"]]) {
      const login = await post(`${server.url}/api/login`, { name, password, program: false, create: true });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const joined = await post(`${server.url}/api/tournaments/${tid}/join`, {}, login.body.token);
      assert.equal(joined.status, 200, JSON.stringify(joined.body));
    }
    // The page asks again while the tournament is open: the others appear.
    await page.locator('[data-testid="tournament-players"]', { hasText: "dora" }).waitFor({ timeout: 10000 });
    await page.locator('[data-testid="start"]').click();
    await page.locator('main.tournament[data-state="running"]').waitFor({ timeout: 10000 });
    await page.locator('[data-testid="round-1"]').waitFor({ timeout: 10000 });
    assert.equal(await page.locator('[data-testid="round-1"] li').count(), 2);
    await page.locator('[data-testid="crosstable"]').waitFor();
    assert.equal(await page.locator('[data-testid="standings"] tbody tr').count(), 4);

    // Ann's own game opens with her seat (by her token).
    const own = page.locator('[data-testid="round-1"] li').filter({ hasText: "Ann" }).first();
    await own.locator('a[href^="/g/"]').click();
    await page.locator('main.game[data-phase]').waitFor();
    assert.match(await page.locator("main.game").getAttribute("data-seat"), /^[BW]$/);
    await page.goBack();

    // A game Ann does not play opens for her as a spectator; as the TD she decides it.
    const other = page.locator('[data-testid="round-1"] li').filter({ hasNotText: "Ann" }).first();
    await other.locator('a[href^="/g/"]').click();
    await page.locator("main.game[data-phase]").waitFor();
    assert.equal(await page.locator("main.game").getAttribute("data-seat"), "");
    assert.match(await page.locator(".watching").textContent(), /watching/);
    await page.locator('[data-testid="td-panel"] summary').click();
    const decide = page.locator('[data-testid="td-decide"]');
    await decide.locator('input[name="result"]').fill("W+R");
    await decide.locator('input[name="reason"]').fill("Black's operator left");
    await decide.locator('button[type="submit"]').click();
    await page.locator('main.game[data-phase="over"]').waitFor();
    assert.match(await page.locator('[data-testid="status"]').textContent(), /Game over: W\+R/);
    assert.match(await page.locator('[data-testid="notes"]').textContent(), /Black's operator left/);
    assert.equal(await page.locator('[data-testid="td-panel"]').count(), 0, "no actions on a finished game");

    // Back on the tournament page: the decided game scores in the standings and crosstable.
    await page.goBack();
    await page.locator('[data-testid="round-1"] li', { hasText: "W+R" }).waitFor({ timeout: 10000 });
    assert.match(await page.locator('[data-testid="crosstable"]').textContent(), /1/);
    assert.match(await page.locator('[data-testid="standings"] tbody tr').first().textContent(), /1/);
    await page.screenshot({ path: join(shots, "7-tournament.png"), fullPage: true });

    // Logging out forgets the session; the lobby asks to log in.
    await page.goto(server.url + "/lobby");
    await page.locator('[data-testid="logout"]').click();
    await page.locator('[data-testid="login-form"]').waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem("goref.session")), null);
    assert.deepEqual(errors, []);
  } finally {
    if (bot && bot.exitCode === null) bot.kill("SIGTERM");
    await browser.close();
    server.stop();
  }
});

