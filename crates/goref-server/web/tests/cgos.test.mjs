// Browser test of CGOS's door (headless Chromium, as lobby.test.mjs): two programs log in
// through CGOS's protocol (scripted CGOS clients written here from the protocol), a person
// on the page sees them in the lobby as programs, they are paired, and the person watches
// their game on the page to its end, whose result is the one the clients were told.
// Screenshots of the lobby and the game go to tests/screenshots/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import net from "node:net";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { launch, shots, startServer } from "./helpers.mjs";

// A CGOS engine client that answers `genmove` with `moves` in turn (then `pass`), each after
// `delay` ms, and stops at `gameover`: resolves with the lines it read.
function cgosClient(addr, name, moves, delay) {
  const [host, port] = [addr.slice(0, addr.lastIndexOf(":")), Number(addr.slice(addr.lastIndexOf(":") + 1))];
  const socket = net.connect(port, host);
  const lines = [];
  const send = (l) => socket.write(l + "\n");
  const done = new Promise((ok, fail) => {
    socket.on("error", fail);
    createInterface({ input: socket }).on("line", (line) => {
      lines.push(line);
      const word = line.split(" ")[0];
      if (word === "protocol") send("e1 browser-test-client genmove_analyze");
      else if (word === "username") send(name);
      else if (word === "password") send(`pw-${name}`);
      else if (word === "genmove") setTimeout(() => send(moves.shift() || "pass"), delay);
      else if (word === "gameover") {
        send("quit");
        socket.end();
        ok(lines);
      } else if (word === "Error:") fail(new Error(line));
    });
  });
  return { done, socket };
}

test("CGOS programs in the lobby, paired, their game watched on the page", { timeout: 180000 }, async () => {
  mkdirSync(shots, { recursive: true });
  const server = await startServer([
    "--cgos", "127.0.0.1:0", "--pairing-interval", "500ms", "--pairing-time", "2m", "--pairing-komi", "7.5",
  ]);
  const cgos = server.line.match(/CGOS on ([^\s,]+)/)[1];
  const browser = await launch();
  const clients = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(server.url + "/lobby");
    await page.locator('[data-testid="login-name"]').fill("Ann");
    await page.locator('[data-testid="login-password"]').fill("pw-ann-secret");
    await page.locator('[data-testid="login-submit"]').click();
    await page.locator('[data-testid="login-create"]').click();
    await page.locator('main.lobby[data-connected="yes"]').waitFor();

    // Two CGOS programs log in: the lobby shows them, marked as programs.
    // Alpha says what it thinks of each move (CGOS's genmove_analyze: the mover's win rate
    // and lead), growing surer.
    const analysed = ["C3", "D5", "E3", "C5", "D3"].map((m, i) => `${m} {"winrate":${0.5 + 0.1 * i},"score":${2 * i},"visits":100}`);
    const a = cgosClient(cgos, "cgos-alpha", analysed, 600);
    const b = cgosClient(cgos, "cgos-beta", ["G7", "F5", "G5", "F7", "G3"], 600);
    clients.push(a, b);
    for (const name of ["cgos-alpha", "cgos-beta"]) {
      await page.locator('[data-testid="online"] li', { hasText: name }).locator(".badge.program").waitFor({ timeout: 20000 });
    }
    await page.screenshot({ path: join(shots, "9-cgos-lobby.png") });

    // They are paired; Ann watches the game on its page.
    let id = null;
    for (let i = 0; i < 200 && !id; i++) {
      const { games } = await (await fetch(server.url + "/api/games")).json();
      id = games.find((g) => g.black.startsWith("cgos-"))?.id;
      if (!id) await page.waitForTimeout(100);
    }
    assert.ok(id, "a game between the CGOS programs");
    await page.goto(`${server.url}/g/${id}`);
    await page.locator('main.game[data-version]').waitFor();
    const names = await page.locator('[data-testid="player-B"], [data-testid="player-W"]').allTextContents();
    assert.ok(names.some((n) => n.includes("cgos-alpha")) && names.some((n) => n.includes("cgos-beta")), names.join(" / "));
    // Stones appear as the programs play.
    await page.waitForFunction(() => document.querySelectorAll(".shudan-vertex.shudan-sign_1").length >= 2, null, { timeout: 30000 });
    await page.screenshot({ path: join(shots, "10-cgos-game.png") });
    const [linesA, linesB] = await Promise.all([a.done, b.done]);
    await page.locator('main.game[data-phase="over"]').waitFor({ timeout: 30000 });
    // The clients' gameover is the game's result on the page and in the list.
    const over = linesA.at(-1).split(" ");
    assert.equal(linesB.at(-1), linesA.at(-1));
    const { games } = await (await fetch(server.url + "/api/games")).json();
    const game = games.find((g) => g.id === id);
    const sgf = over[2].replace(/\.0$/, "").replace("+Resign", "+R").replace("+Time", "+T").replace("+Illegal", "+F");
    assert.equal(game.result, sgf, linesA.join("\n"));
    assert.equal(game.rules, "nstt");
    assert.equal(game.end, "all-alive");
    // The programs' view: alpha's five analysed moves, drawn from Black's side.
    await page.locator('[data-testid="analysis-winrate"]').waitFor();
    const drawn = (await page.locator('[data-testid="analysis-winrate"]').getAttribute("points")).trim().split(" ");
    assert.equal(drawn.length, 5, drawn.join(" "));
    const alphaBlack = game.black === "cgos-alpha";
    const ys = drawn.map((p) => Number(p.split(",")[1]));
    // Black's win rate rises if alpha is Black (y falls: top is Black wins), else it falls.
    assert.ok(alphaBlack ? ys[4] < ys[0] : ys[4] > ys[0], ys.join(" "));
    assert.match(await page.locator('[data-testid="analysis-last"]').textContent(),
      alphaBlack ? /: Black 90%, Black \+8\.0 points/ : /: Black 10%, Black -8\.0 points/);
    await page.screenshot({ path: join(shots, "11-cgos-over.png") });
    assert.deepEqual(errors, []);
  } finally {
    for (const c of clients) c.socket.destroy();
    await browser.close();
    server.stop();
  }
});

// Issue 38 §2: three pools, each with its CGOS door; two programs play at each door (they
// pass: White wins by komi); the players' page shows each pool's standings, and a player's
// page its crosstable in its pool. Screenshots: 12-pools-*.png.
test("three pools: each door's programs in their pool's standings", { timeout: 180000 }, async () => {
  mkdirSync(shots, { recursive: true });
  const server = await startServer([
    "--cgos", "127.0.0.1:0", "--pairing-interval", "300ms", "--pairing-time", "2m", "--pairing-komi", "7.5",
    "--pool", "name=p7,size=7,time=2m,cgos=127.0.0.1:0",
    "--pool", "name=p13,size=13,komi=6.5,time=5m,cgos=127.0.0.1:0",
  ]);
  const browser = await launch();
  const clients = [];
  try {
    const { pools } = await (await fetch(server.url + "/api/pools")).json();
    assert.deepEqual(pools.map((p) => p.name), ["default", "p7", "p13"]);
    const players = { default: ["nine-a", "nine-b"], p7: ["seven-a", "seven-b"], p13: ["thirteen-a", "thirteen-b"] };
    for (const p of pools) {
      for (const name of players[p.name]) clients.push(cgosClient(p.cgos, name, [], 0));
    }
    await Promise.all(clients.map((c) => c.done));
    // Each pool's standings once its ratings are refitted.
    for (const [pool, names] of Object.entries(players)) {
      let rated = [];
      for (let i = 0; i < 100 && rated.length < 2; i++) {
        rated = (await (await fetch(`${server.url}/api/pools/${pool}/standings`)).json()).players;
        if (rated.length < 2) await new Promise((ok) => setTimeout(ok, 100));
      }
      assert.deepEqual(rated.map((p) => p.name).sort(), names, pool);
    }
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(server.url + "/players");
    await page.locator('[data-testid="pools"]').waitFor();
    await page.locator('[data-testid="player-row-nine-a"]').waitFor();
    // Every account is listed; those of other pools without a rating here.
    assert.match(await page.locator('[data-testid="player-row-seven-a"]').textContent(), /^seven-aprogram–0000$/, "unrated here");
    assert.match(await page.locator('[data-testid="player-row-nine-a"]').textContent(), /^[12]nine-aprogram\d/);
    await page.screenshot({ path: join(shots, "12-pools-default.png") });
    await page.locator('[data-testid="pool-p13"]').click();
    await page.locator('[data-testid="players"] tbody tr:first-child', { hasText: "thirteen-" }).waitFor();
    assert.match(await page.locator('[data-testid="player-row-nine-a"]').textContent(), /^nine-aprogram–0000$/);
    assert.match(page.url(), /\/players\?pool=p13$/);
    assert.match(await page.locator('[data-testid="pool-game"]').textContent(), /^13×13, olympiad, komi 6.5, 5 min sudden death · CGOS door 127\.0\.0\.1:\d+$/);
    const rows = await page.locator('[data-testid="players"] tbody tr').allTextContents();
    assert.ok(rows[0].startsWith("1") && rows[1].startsWith("2") && rows[0].includes("thirteen-"), rows.join(" / "));
    // The pool's archive of the day: its game, and the records' .tar.gz.
    const archived = await page.locator('[data-testid="archive-games"] tbody tr').allTextContents();
    assert.equal(archived.length, 1, archived.join(" / "));
    assert.match(archived[0], /thirteen-.*thirteen-.*13×13/);
    const tar = await page.locator('[data-testid="archive-tar"]').getAttribute("href");
    const packed = await fetch(server.url + tar);
    assert.equal(packed.headers.get("content-type"), "application/gzip");
    assert.ok((await packed.arrayBuffer()).byteLength > 100);
    await page.screenshot({ path: join(shots, "12-pools-p13.png"), fullPage: true });
    // A player's page: its crosstable in its pool, none in the others.
    await page.locator('[data-testid="player-row-thirteen-a"] a').click();
    await page.locator('[data-testid="crosstable-p13"]').waitFor();
    // Its rating in p13 after its one game: one point of the plot.
    await page.locator('[data-testid="rating-plot-p13"]').waitFor();
    assert.equal(await page.locator('[data-testid="rating-plot-p13"] circle').count(), 1);
    assert.match(await page.locator('[data-testid="player-rating-p13"]').textContent(), /^In pool p13: rating 1\d{3} \(95%: .*1 rated game: (1 won, 0 lost|0 won, 1 lost), 0 drawn$/);
    assert.equal(await page.locator('[data-testid="player-rating"]').textContent(), "No rated games in the default pool. · since " + (await page.locator('[data-testid="player-rating"]').textContent()).split(" · since ")[1]);
    assert.match(await page.locator('[data-testid="cross-thirteen-b"]').textContent(), /thirteen-b/);
    assert.equal(await page.locator('[data-testid="crosstable-default"], [data-testid="crosstable-p7"]').count(), 0);
    await page.screenshot({ path: join(shots, "12-pools-player.png") });
    assert.deepEqual(errors, []);
  } finally {
    for (const c of clients) c.socket.destroy();
    await browser.close();
    server.stop();
  }
});
