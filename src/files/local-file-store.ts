import fs from "node:fs/promises";
import path from "node:path";
import { checkKey, type FileStore } from "./file-store.js";

/** Files in a local folder. Writes go to a temporary name first, so a crash leaves no half file. */
export function createLocalFileStore(root: string): FileStore {
  const resolve = (key: string) => path.join(root, ...checkKey(key));
  return {
    async put(key, data) {
      const file = resolve(key);
      await fs.mkdir(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      try {
        await fs.writeFile(temporary, data);
        await fs.rename(temporary, file);
      } catch (error) {
        // A write cut short (a full disk) must not leave its part behind, taking the space.
        await fs.rm(temporary, { force: true });
        throw error;
      }
    },
    async get(key) {
      try {
        return await fs.readFile(resolve(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    },
    async deletePrefix(prefix) {
      await fs.rm(resolve(prefix), { recursive: true, force: true });
    },
  };
}
