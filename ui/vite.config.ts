import { gzipSync } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";

/**
 * The web app. `npm run build:ui` writes it to dist/ui, which the server serves under `/`
 * (src/ui-serving/ui.routes.ts). `npx vite --config ui/vite.config.ts` serves it with hot reload
 * and forwards the server's paths to a running `npm run dev` on port 3000.
 */
const serverPaths = ["/api", "/ui-api", "/auth", "/files", "/guest", "/llms", "/llms.txt"];

/**
 * Prints what the first page load costs: the entry chunk, the chunks it imports statically and
 * their CSS (pages load later, on demand). A change that grows it shows in every build.
 */
function initialBundleReport(): Plugin {
  return {
    name: "initial-bundle-report",
    apply: "build",
    generateBundle(_options, bundle) {
      const entry = Object.values(bundle).find((c) => c.type === "chunk" && c.isEntry);
      if (entry?.type !== "chunk") return;
      const files = new Set<string>();
      const visit = (name: string) => {
        const item = bundle[name];
        if (!item || files.has(name)) return;
        files.add(name);
        if (item.type === "chunk") {
          item.imports.forEach(visit);
          for (const css of item.viteMetadata?.importedCss ?? []) files.add(css);
        }
      };
      visit(entry.fileName);
      let raw = 0;
      let gzip = 0;
      for (const name of files) {
        const item = bundle[name];
        const data = item.type === "chunk" ? Buffer.from(item.code) : Buffer.from(item.source);
        raw += data.length;
        gzip += gzipSync(data).length;
      }
      const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
      console.log(
        `\nInitial bundle: ${files.size} files, ${kb(raw)}, ${kb(gzip)} gzipped (pages are separate chunks)\n`,
      );
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react(), initialBundleReport()],
  build: {
    outDir: "../dist/ui",
    emptyOutDir: true,
    // One chunk per page (React.lazy). React and the router change seldom: a chunk of their own
    // stays cached across releases. Mantine is left to Rollup, so that components only some pages
    // use (NumberInput, TagsInput …) load with those pages, not with the first one.
    rollupOptions: {
      output: {
        manualChunks(id) {
          if (/node_modules\/(react|react-dom|react-router|scheduler)\//.test(id)) return "react";
          return undefined;
        },
      },
    },
  },
  server: {
    proxy: Object.fromEntries(serverPaths.map((p) => [p, "http://localhost:3000"])),
  },
});
