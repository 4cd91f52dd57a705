#!/usr/bin/env node
// Copies the files the server reads at run time and tsc does not emit (the guide's Markdown
// pages) from src/ to dist/, next to the compiled modules that read them.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const assets = ["guide/pages"];

if (process.argv.includes("--help")) {
  console.log(
    "Usage: node scripts/copy-assets.mjs\n\nCopies src/{" + assets.join(",") + "} to dist/ (part of npm run build).",
  );
  process.exit(0);
}
for (const folder of assets) {
  fs.cpSync(path.join(root, "src", folder), path.join(root, "dist", folder), { recursive: true });
}
