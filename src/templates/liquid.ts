import { Liquid, type LiquidOptions, type TagToken } from "liquidjs";

/**
 * Liquid for user templates: no file system (include, render and layout are refused when a
 * template is parsed), strict filters so that a typo in a filter name is an error at save time.
 * Rendering limits (time, memory, output size) are applied by the report renderer.
 */
const FILE_TAGS = ["include", "render", "layout"] as const;

export function createLiquid(limits: Pick<LiquidOptions, "renderLimit" | "memoryLimit" | "parseLimit"> = {}): Liquid {
  const liquid = new Liquid({
    ...limits,
    strictFilters: true,
    strictVariables: false,
    relativeReference: false,
    root: [],
    partials: [],
    layouts: [],
    fs: {
      // Reached only if a file tag slipped through; every answer is "no such file".
      exists: async () => false,
      existsSync: () => false,
      readFile: async () => {
        throw new Error("templates have no file access");
      },
      readFileSync: () => {
        throw new Error("templates have no file access");
      },
      resolve: (_dir: string, file: string) => file,
    },
  });
  for (const tag of FILE_TAGS) {
    liquid.registerTag(tag, {
      parse(token: TagToken) {
        throw new Error(`{% ${token.name} %} is not allowed: templates have no file access`);
      },
      render() {},
    });
  }
  return liquid;
}

let shared: Liquid | undefined;

/** Parses a template; returns the error message, or null when the syntax is valid. */
export function checkTemplate(source: string): string | null {
  shared ??= createLiquid();
  try {
    shared.parse(source);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // liquidjs appends the template source and a caret line; keep the first line only.
    return `Liquid: ${message.split("\n")[0]}`;
  }
}
