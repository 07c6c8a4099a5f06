// Browser test of the page in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core; no browser download): two browser contexts, one per player, play a short
// game on 5×5, mark a dead string, dispute once, play on, and finish with agreement.
// Screenshots of the board during marking go to tests/screenshots/.
//
//   GOREF_BIN=path/to/goref node --test tests/
//
// The script starts `goref serve` on a free port with a database in a temporary directory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch, shots, startServer } from "./helpers.mjs";

// Two players' pages, each in its own context, with page errors collected.
async function twoPlayers(browser) {
  const contexts = [await browser.newContext(), await browser.newContext()];
  const pages = await Promise.all(contexts.map((c) => c.newPage()));
  const errors = [];
  for (const p of pages) p.on("pageerror", (e) => errors.push(String(e)));
  return { contexts, pages, errors };
}

const vertex = (page, x, y) => page.locator(`.shudan-vertex[data-x="${x}"][data-y="${y}"]`);

async function version(page) {
  return Number(await page.locator("main.game").getAttribute("data-version"));
}

// Waits until the page shows at least version `v`.
async function atVersion(page, v) {
  await page.waitForFunction(
    (v) => Number(document.querySelector("main.game")?.dataset.version) >= v,
    v,
    { timeout: 10000 },
  );
}

test("two players play 5x5, mark, dispute, play on and agree", { timeout: 120000 }, async () => {
  mkdirSync(shots, { recursive: true });
  const server = await startServer();
  const browser = await launch();
  try {
    const { contexts, pages, errors } = await twoPlayers(browser);
    const [bp, wp] = pages;

    // Black creates the game on the home page; names with markup must show as text.
    await bp.goto(server.url + "/");
    const form = bp.locator('[data-testid="create-form"]');
    await form.locator('input[name="black"]').fill("<b>Ann</b>");
    await form.locator('input[name="white"]').fill('Bo "&" <i>Co</i>');
    await form.locator('input[name="width"]').fill("5");
    await form.locator('input[name="height"]').fill("5");
    await form.locator('input[name="komi"]').fill("0.5");
    await form.locator('select[name="end"]').selectOption("tromp");
    await form.locator('select[name="time"]').selectOption("fischer");
    await form.locator('input[name="main_min"]').fill("5");
    await form.locator('input[name="increment_s"]').fill("5");
    await form.locator('button[type="submit"]').click();
    const blackLink = await bp.locator('[data-testid="black-link"]').getAttribute("href");
    const whiteLink = await bp.locator('[data-testid="white-link"]').getAttribute("href");
    const spectatorLink = await bp.locator('[data-testid="spectator-link"]').getAttribute("href");
    assert.match(blackLink, /^\/g\/[0-9a-f]+#seat=[0-9a-f]{32}$/);

    await bp.goto(server.url + blackLink);
    await wp.goto(server.url + whiteLink);
    for (const p of [bp, wp]) await p.locator(".shudan-goban").waitFor();
    // Each sees the other connected.
    await bp.locator('[data-testid="player-W"] .online').waitFor();
    await wp.locator('[data-testid="player-B"] .online').waitFor();
    const name = bp.locator('[data-testid="player-B"] .name');
    assert.equal(await name.textContent(), "<b>Ann</b>");
    assert.equal(await bp.locator('[data-testid="player-B"] .name b').count(), 0);
    assert.equal(await wp.locator('[data-testid="player-W"] .name').textContent(), 'Bo "&" <i>Co</i>');

    let v = 0;
    const click = async (page, x, y) => {
      await atVersion(page, v);
      await vertex(page, x, y).click();
      v += 1;
      await atVersion(bp, v);
      await atVersion(wp, v);
    };
    const pass = async (page) => {
      await atVersion(page, v);
      await page.locator('[data-testid="pass"]').click();
      v += 1;
      await atVersion(bp, v);
      await atVersion(wp, v);
    };

    // Walls on columns c (Black) and d (White); Black adds b4; White drops a stone at a2.
    const moves = [
      [2, 0], [3, 0], [2, 1], [3, 1], [2, 2], [3, 2], [2, 3], [3, 3], [2, 4], [3, 4], [1, 1], [0, 3],
    ];
    for (const [i, [x, y]] of moves.entries()) {
      await click(i % 2 === 0 ? bp : wp, x, y);
      if (i === 1) {
        // The last move is marked; both clocks are shown and Black's runs.
        assert.equal(await vertex(bp, 3, 0).getAttribute("class").then((c) => c.includes("shudan-marker_point")), true);
        const before = await bp.locator('[data-testid="clock-B"]').textContent();
        await bp.waitForTimeout(1300);
        const after = await bp.locator('[data-testid="clock-B"]').textContent();
        assert.notEqual(before, after, "Black's clock ticks");
        assert.match(await bp.locator('[data-testid="clock-W"]').textContent(), /^5:0\d$/);
      }
      if (i === 4) {
        // An illegal click: White on an occupied point gets the rules' reason.
        await atVersion(wp, v);
        await vertex(wp, 2, 2).click();
        await wp.locator('[data-testid="message"]').waitFor();
        assert.match(await wp.locator('[data-testid="message"]').textContent(), /C3 is illegal: occupied/);
        assert.equal(await version(wp), v, "nothing changed");
      }
    }
    assert.equal(await bp.locator('[data-testid="moves"] li').count(), 12);
    await pass(bp);
    await pass(wp);

    // Marking: Black marks the white stone at a2; it is dimmed on both boards.
    await bp.locator('main[data-phase="marking"]').waitFor();
    await click(bp, 0, 3);
    for (const p of [bp, wp]) {
      await p.waitForSelector('.shudan-vertex.shudan-dimmed[data-x="0"][data-y="3"]');
      assert.match(await p.locator('[data-testid="score"]').textContent(), /Black 15, White 10 \+ 0.5 komi: B\+4.5/);
    }
    await bp.screenshot({ path: join(shots, "1-black-marked.png") });
    await wp.screenshot({ path: join(shots, "2-white-sees-mark.png") });

    // White disputes: the marks go and play resumes with Black (who passed first).
    await click(wp, 0, 3);
    await bp.locator('main[data-phase="play"]').waitFor();
    assert.equal(await bp.locator(".shudan-vertex.shudan-dimmed").count(), 0);
    assert.match(await bp.locator('[data-testid="notes"]').textContent(), /White disputes A2/);

    // Black plays on (b2), then both pass: marking again, White first.
    await click(bp, 1, 3);
    await pass(wp);
    await pass(bp);
    await wp.locator('main[data-phase="marking"]').waitFor();
    await wp.locator('[data-testid="done"]').click();
    v += 1;
    await atVersion(bp, v);
    await click(bp, 0, 3);
    await wp.waitForSelector('.shudan-vertex.shudan-dimmed[data-x="0"][data-y="3"]');
    await wp.screenshot({ path: join(shots, "3-marked-again.png") });
    await atVersion(wp, v);
    await wp.locator('[data-testid="done"]').click();
    v += 1;
    await atVersion(bp, v);
    await bp.locator('[data-testid="done"]').click();
    v += 1;

    for (const p of [bp, wp]) {
      await p.locator('main[data-phase="over"]').waitFor();
      assert.match(await p.locator('[data-testid="status"]').textContent(), /Game over: B\+4\.5 \(agreement\)/);
    }
    await bp.screenshot({ path: join(shots, "4-agreed.png") });

    // A spectator sees the finished game; the record downloads.
    const sp = await contexts[0].newPage();
    await sp.goto(server.url + spectatorLink);
    await sp.locator('main[data-phase="over"]').waitFor();
    assert.match(await sp.locator(".watching").textContent(), /watching/);
    const sgfHref = await sp.locator('[data-testid="sgf"]').getAttribute("href");
    const sgf = await (await fetch(server.url + sgfHref)).text();
    assert.match(sgf, /RE\[B\+4\.5\]/);
    assert.match(sgf, /White disputes A2/);
    assert.match(sgf, /Black marks A2 dead/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.stop();
  }
});

test("a handicap game under the Olympiad's rules and end protocol", { timeout: 120000 }, async () => {
  const server = await startServer();
  const browser = await launch();
  try {
    const { contexts, pages, errors } = await twoPlayers(browser);
    const [bp, wp] = pages;
    await bp.goto(server.url + "/");
    const form = bp.locator('[data-testid="create-form"]');
    await form.locator('input[name="komi"]').fill("0.5");
    await form.locator('select[name="rules"]').selectOption("olympiad");
    await form.locator('select[name="end"]').selectOption("olympiad");
    await form.locator('input[name="handicap"]').fill("2");
    await form.locator('select[name="time"]').selectOption("none");
    await form.locator('button[type="submit"]').click();
    const blackLink = await bp.locator('[data-testid="black-link"]').getAttribute("href");
    const whiteLink = await bp.locator('[data-testid="white-link"]').getAttribute("href");
    await bp.goto(server.url + blackLink);
    await wp.goto(server.url + whiteLink);
    for (const p of [bp, wp]) await p.locator(".shudan-goban").waitFor();
    // GTP's fixed points for two stones on 9x9 (C3, G7); White moves first.
    for (const [x, y] of [[2, 6], [6, 2]]) {
      assert.match(await vertex(bp, x, y).getAttribute("class"), /shudan-sign_1/);
    }
    assert.match(await wp.locator('[data-testid="status"]').textContent(), /White to play/);
    assert.match(await bp.locator("header .rules").textContent(), /handicap 2/);
    await wp.locator('[data-testid="pass"]').click();
    await atVersion(bp, 1);
    await bp.locator('[data-testid="pass"]').click();
    // 001 3.7.2: both programs (here people) give their dead stones.
    let v = 2;
    for (const p of [bp, wp]) {
      await atVersion(p, v);
      await p.locator('main[data-phase="dead_lists"]').waitFor();
      await p.locator('[data-testid="send-list"]').click();
      v += 1;
      await atVersion(bp, v);
      await atVersion(wp, v);
    }
    for (const p of [bp, wp]) {
      await p.locator('main[data-phase="over"]').waitFor();
      assert.match(await p.locator('[data-testid="status"]').textContent(), /Game over: B\+80\.5 \(agreement\)/);
    }
    await bp.screenshot({ path: join(shots, "5-handicap-olympiad.png") });
    const sgf = await (await fetch(server.url + (await bp.locator('[data-testid="sgf"]').getAttribute("href")))).text();
    assert.match(sgf, /HA\[2\]/);
    assert.match(sgf, /AB\[/);
    assert.match(sgf, /RE\[B\+80\.5\]/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.stop();
  }
});

test("a 3x3 game under the Olympiad's end protocol decided by perfect play", { timeout: 120000 }, async () => {
  // 001 3.7.4-3.7.5 and §3.9: each player calls the other's lone stone dead four times; the
  // third party chosen in the form (perfect play) plays the position out on the board.
  const server = await startServer();
  const browser = await launch();
  try {
    const { pages, errors } = await twoPlayers(browser);
    const [bp, wp] = pages;
    await bp.goto(server.url + "/");
    const form = bp.locator('[data-testid="create-form"]');
    await form.locator('input[name="width"]').fill("3");
    await form.locator('input[name="height"]').fill("3");
    await form.locator('input[name="komi"]').fill("0.5");
    await form.locator('select[name="rules"]').selectOption("olympiad");
    await form.locator('select[name="end"]').selectOption("olympiad");
    await form.locator('select[name="third_party"]').selectOption("perfect_play");
    await form.locator('input[name="nodes"]').fill("200000");
    await form.locator('select[name="time"]').selectOption("none");
    await form.locator('button[type="submit"]').click();
    const blackLink = await bp.locator('[data-testid="black-link"]').getAttribute("href");
    const whiteLink = await bp.locator('[data-testid="white-link"]').getAttribute("href");
    await bp.goto(server.url + blackLink);
    await wp.goto(server.url + whiteLink);
    for (const p of [bp, wp]) await p.locator(".shudan-goban").waitFor();
    assert.match(await bp.locator("header .rules").textContent(), /third party: perfect play, 200000 nodes/);
    let v = 0;
    const next = async (page, act) => {
      await atVersion(page, v);
      await act();
      v += 1;
      await atVersion(bp, v);
      await atVersion(wp, v);
    };
    const pass = (page) => next(page, () => page.locator('[data-testid="pass"]').click());
    await next(bp, () => vertex(bp, 0, 2).click());
    await next(wp, () => vertex(wp, 1, 0).click());
    await pass(bp);
    await pass(wp);
    for (let round = 0; round < 4; round++) {
      for (const [p, [x, y]] of [[bp, [1, 0]], [wp, [0, 2]]]) {
        await p.locator('main[data-phase="dead_lists"]').waitFor();
        await vertex(p, x, y).click();
        if (round < 3 || p === bp) {
          await next(p, () => p.locator('[data-testid="send-list"]').click());
        } else {
          // The last list: the server's third party decides at once (one event more).
          await p.locator('[data-testid="send-list"]').click();
          v += 2;
        }
      }
      if (round < 3) {
        await bp.locator('main[data-phase="play"]').waitFor();
        await pass(bp);
        await pass(wp);
      }
    }
    let result;
    for (const p of [bp, wp]) {
      await p.locator('main[data-phase="over"]').waitFor();
      const status = await p.locator('[data-testid="status"]').textContent();
      const m = status.match(/Game over: (\S+) \(adjudicated\)/);
      assert.ok(m, status);
      result = m[1];
      assert.match(await p.locator('[data-testid="notes"]').textContent(), /perfect play \(001 §3\.9, goref solve\)/);
    }
    await bp.screenshot({ path: join(shots, "6-perfect-play.png") });
    const sgf = await (await fetch(server.url + (await bp.locator('[data-testid="sgf"]').getAttribute("href")))).text();
    assert.ok(sgf.includes(`RE[${result}]`), sgf);
    assert.match(sgf, /perfect play \(001 §3\.9, goref solve\)/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.stop();
  }
});
