// Builds the page into dist/ (embedded in the goref binary by src/assets.rs):
//   npm ci && npm run build
// dist/SOURCE_HASH records the SHA-256 of the sources (see sourceHash below, kept in step
// with source_hash in src/assets.rs); a Rust test fails when dist/ is stale.
// `node build.mjs --out DIR` builds into DIR instead (CI compares it with dist/).
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, copyFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const web = dirname(fileURLToPath(import.meta.url));
const outIndex = process.argv.indexOf("--out");
const out = outIndex > 0 ? process.argv[outIndex + 1] : join(web, "dist");

function sourceFiles() {
  const files = ["build.mjs", "package.json", "package-lock.json"];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(relative(web, path).split("\\").join("/"));
    }
  };
  walk(join(web, "src"));
  return files.sort();
}

function sourceHash() {
  const hash = createHash("sha256");
  for (const rel of sourceFiles()) {
    const bytes = readFileSync(join(web, rel));
    hash.update(rel);
    hash.update(Buffer.from([0]));
    hash.update(String(bytes.length));
    hash.update(Buffer.from([0]));
    hash.update(bytes);
  }
  return hash.digest("hex");
}

mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: join(web, "src/main.jsx") },
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: out,
  // Shudan's stones are small SVGs (inlined); its board texture is replaced by a colour.
  loader: { ".svg": "dataurl", ".png": "empty" },
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync(join(web, "src/index.html"), join(out, "index.html"));
writeFileSync(join(out, "SOURCE_HASH"), sourceHash() + "\n");
console.log(`built ${out}`);
