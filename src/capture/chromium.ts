import fs from "node:fs";

/** Where Debian, Ubuntu and the Docker image put Chromium, in the order they are tried. */
const SYSTEM_PATHS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];

export const CHROMIUM_INSTALL_HINT =
  "install it with `apt-get install -y chromium` (Debian, as root) or set CHROMIUM_PATH";

/** The Chromium executable to use: CHROMIUM_PATH if it exists, else the first system one. */
export function findChromium(configured: string | undefined): string | undefined {
  if (configured) return fs.existsSync(configured) ? configured : undefined;
  return SYSTEM_PATHS.find((p) => fs.existsSync(p));
}
