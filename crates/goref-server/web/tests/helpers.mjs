// What the browser tests share: a `goref serve` on a free port with a database in a
// temporary directory, and Debian's Chromium (no browser download).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../../..");
export const bin = process.env.GOREF_BIN || join(repo, "target/debug/goref");
export const shots = join(here, "screenshots");

export function startServer(extra = []) {
  const dir = mkdtempSync(join(tmpdir(), "goref-browser-"));
  const child = spawn(bin, ["serve", "--listen", "127.0.0.1:0", "--db", join(dir, "goref.db"), ...extra], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error("goref serve did not start")), 20000);
    child.on("error", fail);
    createInterface({ input: child.stdout }).once("line", (line) => {
      clearTimeout(timer);
      const m = line.match(/http:\/\/(\S+)/);
      if (!m) return fail(new Error(`unexpected first line: ${line}`));
      ok({
        url: `http://${m[1]}`,
        // The first line, which also names CGOS's door when it is open ("CGOS on HOST:PORT").
        line,
        child,
        dir,
        stop() {
          child.kill("SIGTERM");
          rmSync(dir, { recursive: true, force: true });
        },
      });
    });
  });
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
}
