#!/usr/bin/env node
// Installs what `npm start`, `npm test` and `npm run bench` need and is missing, so that a fresh
// clone works with one command: dependencies, the build (start only) and Chromium. Plain
// JavaScript on purpose: it runs before anything is installed or built.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const mode = process.argv[2] ?? "start";
const say = (line) => console.log(`[setup] ${line}`);

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  console.log(`Usage: node scripts/setup.mjs start|test|bench

Installs what is missing: npm dependencies (npm install), the server and web app builds (start), and Chromium
(apt-get install -y chromium when running as root on Debian/Ubuntu; otherwise it says how).`);
  process.exit(0);
}

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`[setup] Node.js ${process.versions.node} is too old: Pagewright needs 20.19 or newer.`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  if (result.status !== 0) {
    console.error(`[setup] ${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

const mtime = (file) => {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
};

// 1. Dependencies: installed when missing or older than the lock file.
const installedMarker = path.join(root, "node_modules", ".package-lock.json");
if (mtime(installedMarker) === 0 || mtime(path.join(root, "package-lock.json")) > mtime(installedMarker)) {
  say("installing dependencies (npm install) …");
  // npm install, not npm ci: the lock cannot list the optional packages of other platforms that
  // some registries (mirrors) do not serve, and npm ci refuses a lock without them.
  run("npm", ["install", "--no-audit", "--no-fund"]);
}
// The native SQLite binding is built by an install script; rebuild it if it does not load.
const probe = spawnSync(process.execPath, ["-e", "new (require('better-sqlite3'))(':memory:').close()"], { cwd: root });
if (probe.status !== 0) {
  say("building the SQLite binding (npm rebuild better-sqlite3) …");
  run("npm", ["rebuild", "better-sqlite3"]);
}

// 2. The build, for `npm start`: the server (dist) and the web app (dist/ui), each when it is
//    missing or older than any of its source files.
if (mode === "start") {
  const newestSource = (dir) =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
      const file = path.join(dir, entry.name);
      return Math.max(newest, entry.isDirectory() ? newestSource(file) : mtime(file));
    }, 0);
  const packageChanged = mtime(path.join(root, "package.json"));
  const built = mtime(path.join(root, "dist", "main.js"));
  if (built === 0 || newestSource(path.join(root, "src")) > built || packageChanged > built) {
    say("building the server (npm run build:server) …");
    run("npm", ["run", "build:server", "--silent"]);
  }
  const builtUi = mtime(path.join(root, "dist", "ui", "index.html"));
  if (builtUi === 0 || newestSource(path.join(root, "ui")) > builtUi || packageChanged > builtUi) {
    say("building the web app (npm run build:ui) …");
    run("npm", ["run", "build:ui", "--silent"]);
  }
}

// 3. Chromium: CHROMIUM_PATH, else a system Chromium; install Debian's package when we can.
const candidates = [
  process.env.CHROMIUM_PATH,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
];
const chromium = candidates.find((p) => p && fs.existsSync(p));
if (chromium) {
  if (mode !== "start") say(`Chromium: ${chromium}`);
} else {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hasApt = fs.existsSync("/usr/bin/apt-get");
  if (isRoot && hasApt) {
    say("Chromium not found: installing Debian's chromium (apt-get install -y chromium) …");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    run("apt-get", ["update", "-qq"], { env });
    run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "chromium", "fonts-liberation"], { env });
  } else {
    say(
      "Chromium not found. Captures need it: install it with `sudo apt-get install -y chromium` (Debian/Ubuntu) " +
        "or set CHROMIUM_PATH to a Chromium or Chrome executable.",
    );
  }
}
