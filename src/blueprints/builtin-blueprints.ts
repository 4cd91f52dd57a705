import type { BlueprintBodyInput } from "../schemas/blueprint.js";

/**
 * Built-in blueprints: starting points every space sees. Each job is a valid job body; the
 * placeholders list what to fill in (URLs, selectors, interface and provider ids). The id
 * placeholders below are well-formed UUIDs that name nothing, so a job made without replacing
 * them is refused with the field named.
 */
export const PLACEHOLDER_INTERFACE_ID = "00000000-0000-4000-8000-000000000001";
export const PLACEHOLDER_PROVIDER_ID = "00000000-0000-4000-8000-000000000002";

const STAMP = "2026-01-01T00:00:00.000Z";

type BuiltIn = Omit<BlueprintBodyInput, "id" | "builtIn" | "space"> & {
  id: string;
  builtIn: true;
  space: null;
  createdAt: string;
  updatedAt: string;
};

const builtIn = (id: string, body: Omit<BlueprintBodyInput, "id" | "builtIn" | "space">): BuiltIn => ({
  ...body,
  id,
  builtIn: true,
  space: null,
  createdAt: STAMP,
  updatedAt: STAMP,
});

export const BUILTIN_BLUEPRINTS: BuiltIn[] = [
  builtIn("b1e7d0a0-0001-4000-8000-000000000001", {
    name: "Page snapshot report by e-mail",
    description: "Every weekday at 8: a full-page screenshot of one page, as a PDF report mailed to a list.",
    job: {
      name: "Daily snapshot of a page",
      description: "Full-page snapshot, mailed as PDF",
      cron: "0 8 * * 1-5",
      timezone: "UTC",
      retry: { attempts: 2, delayMinutes: 5 },
      capture: {
        viewport: { width: 1440, height: 900 },
        steps: [
          { type: "navigate", url: "https://dashboard.example.com/overview", waitUntil: "networkidle" },
          { type: "snapshot", as: "page", fullPage: true },
        ],
      },
      report: {
        title: "{{ job.name }} – {{ now | date: '%Y-%m-%d' }}",
        pages: [
          {
            rows: [
              {
                cells: [
                  {
                    blocks: [
                      { type: "text", content: "# {{ job.name }}\nCaptured {{ now | date: '%Y-%m-%d %H:%M' }} UTC." },
                    ],
                  },
                ],
              },
              { cells: [{ blocks: [{ type: "snapshot", ref: "page" }] }] },
            ],
          },
        ],
      },
      deliveries: [
        {
          interfaceId: PLACEHOLDER_INTERFACE_ID,
          subject: "{{ job.name }} – {{ now | date: '%Y-%m-%d' }}",
          recipients: ["team@example.com"],
          message: "Today's snapshot is attached. Online: {{ run.reportUrl }}",
          attach: "pdf",
        },
      ],
    },
    placeholders: [
      { path: "capture.steps.0.url", description: "The page to capture." },
      { path: "deliveries.0.interfaceId", description: "An smtp or mailgun delivery interface of the space." },
      { path: "deliveries.0.recipients", description: "Who receives the report." },
    ],
  }),
  builtIn("b1e7d0a0-0002-4000-8000-000000000002", {
    name: "Value threshold alert to a webhook",
    description:
      "Every 15 minutes: reads a number from a page and posts an alert with a snapshot link only when it crosses a threshold.",
    job: {
      name: "Alert when a value crosses a line",
      description: "Posts to a webhook only above the threshold",
      cron: "*/15 * * * *",
      timezone: "UTC",
      notify: { minIntervalMinutes: 60 },
      capture: {
        steps: [
          { type: "navigate", url: "https://dashboard.example.com/errors" },
          { type: "waitFor", selector: "#errors .value", state: "visible", timeoutMs: 30000 },
          { type: "extract", as: "value", selector: "#errors .value", parse: "number" },
          { type: "calculate", as: "threshold", expression: "100" },
          {
            type: "if",
            condition: "value < threshold",
            then: [{ type: "break", reason: "value below threshold" }],
          },
          { type: "snapshot", as: "panel", selector: "#errors" },
        ],
      },
      report: {
        title: "Alert: {{ value }} (threshold {{ threshold }})",
        pages: [
          {
            rows: [
              {
                cells: [
                  { blocks: [{ type: "variable", name: "value", label: "Current value" }] },
                  { blocks: [{ type: "variable", name: "threshold", label: "Threshold" }] },
                ],
              },
              { cells: [{ blocks: [{ type: "snapshot", ref: "panel" }] }] },
            ],
          },
        ],
      },
      deliveries: [
        {
          interfaceId: PLACEHOLDER_INTERFACE_ID,
          message: "Value is {{ value }} (threshold {{ threshold }}): {{ run.reportUrl }}",
        },
      ],
    },
    placeholders: [
      { path: "capture.steps.0.url", description: "The page that shows the value." },
      { path: "capture.steps.1.selector", description: "The element holding the value (also in step 2)." },
      { path: "capture.steps.3.expression", description: "The threshold." },
      { path: "deliveries.0.interfaceId", description: "A webhook or Slack delivery interface of the space." },
    ],
  }),
  builtIn("b1e7d0a0-0003-4000-8000-000000000003", {
    name: "Multi-page digest",
    description: "Every Monday at 7: snapshots of several dashboards, one report page each, mailed as one PDF.",
    job: {
      name: "Weekly dashboard digest",
      description: "Three dashboards in one report",
      cron: "0 7 * * 1",
      timezone: "UTC",
      capture: {
        steps: [
          { type: "navigate", url: "https://dashboard.example.com/sales" },
          { type: "snapshot", as: "sales", fullPage: true },
          { type: "navigate", url: "https://dashboard.example.com/traffic" },
          { type: "snapshot", as: "traffic", fullPage: true },
          { type: "navigate", url: "https://dashboard.example.com/support" },
          { type: "snapshot", as: "support", fullPage: true },
        ],
      },
      report: {
        title: "Weekly digest {{ now | date: '%Y-%m-%d' }}",
        paper: { size: "A4", orientation: "landscape" },
        pages: [
          {
            rows: [
              { cells: [{ blocks: [{ type: "text", content: "## Sales" }] }] },
              { cells: [{ blocks: [{ type: "snapshot", ref: "sales" }] }] },
            ],
          },
          {
            rows: [
              { cells: [{ blocks: [{ type: "text", content: "## Traffic" }] }] },
              { cells: [{ blocks: [{ type: "snapshot", ref: "traffic" }] }] },
            ],
          },
          {
            rows: [
              { cells: [{ blocks: [{ type: "text", content: "## Support" }] }] },
              { cells: [{ blocks: [{ type: "snapshot", ref: "support" }] }] },
            ],
          },
        ],
      },
      deliveries: [
        {
          interfaceId: PLACEHOLDER_INTERFACE_ID,
          subject: "Weekly digest",
          recipients: ["management@example.com"],
          message: "This week's digest is attached.",
          attach: "pdf",
        },
      ],
    },
    placeholders: [
      { path: "capture.steps.0.url", description: "First dashboard (also steps 2 and 4)." },
      { path: "deliveries.0.interfaceId", description: "An smtp or mailgun delivery interface of the space." },
      { path: "deliveries.0.recipients", description: "Who receives the digest." },
    ],
  }),
  builtIn("b1e7d0a0-0004-4000-8000-000000000004", {
    name: "AI summary of a page",
    description: "Every morning: an AI provider reads a page's text and snapshot and writes a short summary to Slack.",
    job: {
      name: "Morning summary",
      description: "AI summary of a status page",
      cron: "30 7 * * *",
      timezone: "UTC",
      capture: {
        steps: [
          { type: "navigate", url: "https://status.example.com/" },
          { type: "extract", as: "pageText", selector: "main" },
          { type: "snapshot", as: "page", fullPage: false },
          {
            type: "ai",
            as: "summary",
            providerId: PLACEHOLDER_PROVIDER_ID,
            prompt: "Summarise the state of this status page in three short bullet points for an operations team.",
            output: "text",
            context: ["pageText", "page"],
            images: true,
          },
        ],
      },
      report: {
        title: "Summary {{ now | date: '%Y-%m-%d' }}",
        pages: [
          {
            rows: [
              { cells: [{ blocks: [{ type: "text", content: "{{ summary }}" }] }] },
              { cells: [{ blocks: [{ type: "snapshot", ref: "page", caption: "The page as captured" }] }] },
            ],
          },
        ],
      },
      deliveries: [{ interfaceId: PLACEHOLDER_INTERFACE_ID, message: "{{ summary }}\n{{ run.reportUrl }}" }],
    },
    placeholders: [
      { path: "capture.steps.0.url", description: "The page to summarise." },
      { path: "capture.steps.3.providerId", description: "An AI provider of the space." },
      { path: "deliveries.0.interfaceId", description: "A Slack or webhook delivery interface of the space." },
    ],
  }),
  builtIn("b1e7d0a0-0005-4000-8000-000000000005", {
    name: "Log in, then snapshot a panel",
    description: "A form login (user name and password typed into the page), then one panel captured and sent.",
    job: {
      name: "Panel behind a login",
      description: "Logs in with a form, captures one panel",
      cron: "0 9 * * *",
      timezone: "UTC",
      capture: {
        steps: [
          { type: "navigate", url: "https://app.example.com/login" },
          { type: "type", selector: "#username", text: "reports" },
          { type: "type", selector: "#password", text: "change-me", sensitive: true },
          { type: "click", selector: "button[type=submit]" },
          { type: "waitFor", selector: "#panel", state: "visible", timeoutMs: 30000 },
          { type: "snapshot", as: "panel", selector: "#panel" },
        ],
      },
      report: {
        title: "{{ job.name }}",
        pages: [{ rows: [{ cells: [{ blocks: [{ type: "snapshot", ref: "panel" }] }] }] }],
      },
      deliveries: [{ interfaceId: PLACEHOLDER_INTERFACE_ID, message: "{{ job.name }}: {{ run.reportUrl }}" }],
    },
    placeholders: [
      { path: "capture.steps.0.url", description: "The login page." },
      { path: "capture.steps.1.text", description: "The user name." },
      { path: "capture.steps.2.text", description: "The password (sensitive: hidden from ro readers)." },
      { path: "capture.steps.4.selector", description: "The panel to capture (also step 5)." },
      { path: "deliveries.0.interfaceId", description: "A delivery interface of the space." },
    ],
  }),
];
