import { VERSION } from "../version.js";
import { componentSchemas } from "./json-schemas.js";

/**
 * OpenAPI 3.1 description of the agent API, built from the same zod schemas the server
 * validates with. Paths the next releases implement (run, preview, test, runs) are described
 * with their final contract.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ content: { "application/json": { schema: ref(name) } } });
const list = (name: string) => ({
  content: {
    "application/json": {
      schema: { type: "object", required: ["items"], properties: { items: { type: "array", items: ref(name) } } },
    },
  },
});
const stream = {
  description:
    "text/event-stream: `start`, then `step`, `log`, `snapshot`, `delivery` events, and last `end` whose data is a StreamEnd.",
  content: { "text/event-stream": { schema: { type: "string" }, "x-end-event": ref("StreamEnd") } },
};

const error = (description: string) => ({ description, ...json("Error") });
const common = {
  "401": error("Not logged in."),
  "403": error(
    "No access to the space at the level needed, the space does not exist, a cross-origin write, or (code licenseLimit) an edition limit.",
  ),
};
const withBody = {
  "400": error("The body is not valid: `issues` names every failing field."),
  "413": error("The body is larger than 5 MB."),
};
const notFound = { "404": error("No such object in this space.") };

const space = {
  name: "space",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[a-z0-9][a-z0-9-]{0,62}$" },
};
const idParam = (name: string) => ({ name, in: "path", required: true, schema: { type: "string", format: "uuid" } });

export function buildOpenApi(publicUrl: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: "Pagewright agent API",
      version: VERSION,
      description:
        "Create and run jobs that capture web pages, build reports and deliver them. Log in with POST /auth/login-local and send the session cookie. Guide: /llms.txt.",
    },
    servers: [{ url: publicUrl }],
    components: {
      schemas: componentSchemas(),
      securitySchemes: { session: { type: "apiKey", in: "cookie", name: "pagewright_session" } },
    },
    security: [{ session: [] }],
    paths: {
      "/auth/login-local": {
        post: {
          summary: "Log in; answers the user and sets the session cookie.",
          security: [],
          requestBody: { required: true, ...json("Login") },
          responses: {
            "200": {
              description: "Logged in.",
              content: { "application/json": { schema: { type: "object", properties: { user: ref("User") } } } },
            },
            "401": error("Wrong user name or password."),
            "429": error("Too many failed logins; see Retry-After."),
          },
        },
      },
      "/auth/logout": {
        post: { summary: "Ends the session.", responses: { "204": { description: "Logged out." } } },
      },
      "/api/agent/context": {
        get: {
          summary: "Who is logged in, the spaces with access levels, limits and usage.",
          responses: { "200": { description: "The context.", ...json("Context") }, "401": common["401"] },
        },
      },
      "/api/spaces/{space}/jobs": {
        parameters: [space],
        get: {
          summary: "The jobs of the space (ro).",
          responses: { "200": { description: "Jobs.", ...list("Job") }, ...common },
        },
        post: {
          summary: "Creates a job (rw). A chosen `id` is used if free, else 409.",
          requestBody: { required: true, ...json("Job") },
          responses: {
            "201": { description: "The stored job.", ...json("Job") },
            ...withBody,
            ...common,
            "409": error("The chosen id is in use."),
          },
        },
      },
      "/api/spaces/{space}/jobs/{jobId}": {
        parameters: [space, idParam("jobId")],
        get: {
          summary: "One job (ro; capture passwords omitted for ro).",
          responses: { "200": { description: "The job.", ...json("Job") }, ...common, ...notFound },
        },
        put: {
          summary: "Replaces a job entirely (rw).",
          requestBody: { required: true, ...json("Job") },
          responses: { "200": { description: "The stored job.", ...json("Job") }, ...withBody, ...common, ...notFound },
        },
        delete: {
          summary: "Deletes a job and its runs' files (rw).",
          responses: { "204": { description: "Deleted." }, ...common, ...notFound },
        },
      },
      "/api/spaces/{space}/jobs/{jobId}/run": {
        parameters: [space, idParam("jobId")],
        post: {
          summary: "Runs a saved job now (rw); goes on if the client disconnects.",
          responses: { "200": stream, ...common, ...notFound },
        },
      },
      "/api/spaces/{space}/jobs/preview": {
        parameters: [space],
        post: {
          summary: "Runs only the capture of an unsaved job body (rw); stores nothing durable.",
          requestBody: { required: true, ...json("Job") },
          responses: { "200": stream, ...withBody, ...common },
        },
      },
      "/api/spaces/{space}/jobs/test": {
        parameters: [space],
        post: {
          summary: 'Runs an unsaved job body: capture and report; delivers only with "deliver": true (rw).',
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  allOf: [ref("Job"), { type: "object", properties: { deliver: { type: "boolean", default: false } } }],
                },
              },
            },
          },
          responses: { "200": stream, ...withBody, ...common },
        },
      },
      "/api/spaces/{space}/blueprints": {
        parameters: [space],
        get: {
          summary: "Built-in and own job templates (ro).",
          responses: { "200": { description: "Blueprints.", ...list("Blueprint") }, ...common },
        },
        post: {
          summary: "Creates a job template (admin).",
          requestBody: { required: true, ...json("Blueprint") },
          responses: { "201": { description: "The stored blueprint.", ...json("Blueprint") }, ...withBody, ...common },
        },
      },
      "/api/spaces/{space}/blueprints/{blueprintId}": {
        parameters: [space, idParam("blueprintId")],
        get: {
          summary: "One job template (ro).",
          responses: { "200": { description: "The blueprint.", ...json("Blueprint") }, ...common, ...notFound },
        },
        put: {
          summary: "Replaces an own job template (admin); built-ins are read-only (403).",
          requestBody: { required: true, ...json("Blueprint") },
          responses: {
            "200": { description: "The stored blueprint.", ...json("Blueprint") },
            ...withBody,
            ...common,
            ...notFound,
          },
        },
        delete: {
          summary: "Deletes an own job template (admin).",
          responses: { "204": { description: "Deleted." }, ...common, ...notFound },
        },
      },
      "/api/spaces/{space}/delivery-interfaces": {
        parameters: [space],
        get: {
          summary: "Delivery interfaces, without secrets (ro).",
          responses: { "200": { description: "Interfaces.", ...list("DeliveryInterface") }, ...common },
        },
      },
      "/api/spaces/{space}/ai-providers": {
        parameters: [space],
        get: {
          summary: "AI providers, without API keys (ro).",
          responses: { "200": { description: "Providers.", ...list("AiProvider") }, ...common },
        },
      },
      "/api/spaces/{space}/runs": {
        parameters: [
          space,
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
          { name: "cursor", in: "query", schema: { type: "string" }, description: "nextCursor of the previous page." },
          { name: "jobId", in: "query", schema: { type: "string", format: "uuid" } },
          {
            name: "state",
            in: "query",
            schema: { type: "string", enum: ["queued", "running", "success", "partial", "failed", "skipped"] },
          },
          { name: "since", in: "query", schema: { type: "string", format: "date-time" } },
          { name: "until", in: "query", schema: { type: "string", format: "date-time" } },
        ],
        get: {
          summary: "Runs, newest first, one page at a time (ro).",
          responses: {
            "200": { description: "A page.", ...json("RunPage") },
            ...common,
            "400": error("A query parameter is not valid."),
          },
        },
      },
      "/api/spaces/{space}/runs/{runId}": {
        parameters: [space, idParam("runId")],
        get: {
          summary: "One run with the links to its report files (ro).",
          responses: { "200": { description: "The run.", ...json("Run") }, ...common, ...notFound },
        },
      },
    },
  };
}
