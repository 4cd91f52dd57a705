import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The web app. `npm run build:ui` writes it to dist/ui, which the server serves under `/`
 * (src/ui-serving/ui.routes.ts). `npx vite --config ui/vite.config.ts` serves it with hot reload
 * and forwards the server's paths to a running `npm run dev` on port 3000.
 */
const serverPaths = ["/api", "/ui-api", "/auth", "/files", "/guest", "/llms", "/llms.txt"];

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
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
