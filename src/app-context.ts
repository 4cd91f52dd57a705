import type { Logger } from "pino";
import { createSecretBox, type SecretBox } from "./auth/secret-box.js";
import type { Config } from "./config/config.js";
import type { Storage } from "./storage/db.js";
import { createBlueprintsRepository } from "./storage/repositories/blueprints-repository.js";
import { createJobsRepository } from "./storage/repositories/jobs-repository.js";
import { createSecretHoldersRepository } from "./storage/repositories/secret-holders-repository.js";
import { createSessionsRepository } from "./storage/repositories/sessions-repository.js";
import { createSpacesRepository } from "./storage/repositories/spaces-repository.js";
import { createUsersRepository } from "./storage/repositories/users-repository.js";

/** What every module of the server works with: configuration, storage and the repositories. */
export type AppContext = ReturnType<typeof createAppContext>;

export function createAppContext(input: { config: Config; storage: Storage; secretKey: string; log: Logger }) {
  const { config, storage, log } = input;
  const box: SecretBox = createSecretBox(input.secretKey);
  const { db, dialect } = storage;
  return {
    config,
    storage,
    log,
    box,
    users: createUsersRepository(db),
    sessions: createSessionsRepository(db),
    spaces: createSpacesRepository(db),
    jobs: createJobsRepository(db, dialect),
    blueprints: createBlueprintsRepository(db),
    interfaces: createSecretHoldersRepository(db, dialect, "delivery_interfaces", box),
    providers: createSecretHoldersRepository(db, dialect, "ai_providers", box),
  };
}
