import { createRequire } from "node:module";

/** The package version, shown in the context answer and the guide. */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string }).version;
