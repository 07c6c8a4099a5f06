// Browser test of the tournament director's abort (issue 38): the TD logs in on the page,
// opens a game in progress between two guests (Black has played, from its page) and aborts it from the game's TD panel; the
// page shows it over without a result (Void, aborted) with the reason among its notes, and
// its record says RE[Void].
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launch, shots, startServer } from "./helpers.mjs";

test("the TD aborts a game from its page: Void, with the reason", { timeout: 120000 }, async () => {
  mkdirSync(shots, { recursive: true });
  const server = await startServer(["--pairing-interval", "off"]);
  const browser = await launch();
  try {
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));

    // The first account: the tournament director.
    await page.goto(server.url + "/lobby");
    await page.locator('[data-testid="login-name"]').fill("Tess");
    await page.locator('[data-testid="login-password"]').fill("pw-tess-secret");
    await page.locator('[data-testid="login-create"]').click();
    await page.locator('main.lobby[data-connected="yes"]').waitFor();
    assert.equal(await page.locator("nav.top .badge.td").count(), 1);

    // A game between guests, one move played.
    const created = await (
      await fetch(server.url + "/api/games", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ width: 9, komi: 7 }),
      })
    ).json();
    // Black plays from its seat link, in a context of its own (a guest).
    const black = await (await browser.newContext()).newPage();
    await black.goto(`${server.url}${created.black.link}`);
    await black.locator(".shudan-goban").waitFor();
    await black.locator('.shudan-vertex[data-x="2"][data-y="2"]').click();
    await black.waitForFunction(() => Number(document.querySelector("main.game")?.dataset.version) >= 1, null, {
      timeout: 10000,
    });

    await page.goto(`${server.url}/g/${created.id}`);
    await page.locator('main.game[data-phase="play"]').waitFor();
    await page.locator('[data-testid="td-panel"] summary').click();
    const abort = page.locator('[data-testid="td-abort"]');
    await abort.locator('input[name="reason"]').fill("the players' network broke");
    await page.screenshot({ path: join(shots, "td-abort.png") });
    await abort.locator('button[type="submit"]').click();
    await page.locator('main.game[data-phase="over"]').waitFor();
    assert.match(await page.locator('[data-testid="status"]').textContent(), /Game over: Void \(aborted\)/);
    // The player's page is told too.
    await black.locator('main.game[data-phase="over"]').waitFor();
    assert.match(
      await page.locator('[data-testid="notes"]').textContent(),
      /aborted by the TD \(Tess\) without a result: the players' network broke/,
    );
    assert.equal(await page.locator('[data-testid="td-panel"]').count(), 0, "no actions on a finished game");
    const sgf = await (await fetch(`${server.url}/api/games/${created.id}/sgf`)).text();
    assert.match(sgf, /RE\[Void\]/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    server.stop();
  }
});
