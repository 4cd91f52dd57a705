import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenAiServer, startOpenAiServer } from "../fixtures/openai-server.js";
import { PIXEL_PNG, startTestSite, type TestSite } from "../fixtures/test-site.js";
import { webhookInterface } from "../helpers/factories.js";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server.js";
import { postStream } from "../helpers/sse.js";
import { buildUi, launchBrowser, runScenario, see, signIn, tableJob } from "./ui-helpers.js";

/**
 * The web app's paths that the other UI files leave out, each walked as a person would in real
 * Chromium: the keyboard alone, names of form fields, the dark theme, templates, deleting runs,
 * testing an AI provider, a delete refused while in use, an uploaded image, and a 360 px screen.
 * UI_TESTS=0 skips it.
 */
const skip = process.env.UI_TESTS === "0";

/**
 * The preview of a report whose blocks are not filled in yet (an image without its URL) answers
 * 400, shown at the preview; the browser logs the status.
 */
const PREVIEW_400 = /status of 400.*\/ui-api\/spaces\/default\/report-preview\)$/;

/** How long a page may take to load: with other suites on the same cores, 10 s is not always enough. */
const LOAD_MS = 20_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The focused element, as a test tells it apart: tag, role, name (aria-label, label or text). */
type Focused = { tag: string; role: string; name: string };

const focused = (page: Page): Promise<Focused> =>
  page.evaluate(() => {
    const el = document.activeElement;
    return {
      tag: el?.tagName.toLowerCase() ?? "",
      role: el?.getAttribute("role") ?? "",
      name: (
        el?.getAttribute("aria-label") ??
        (el instanceof HTMLInputElement ? el.labels?.[0]?.textContent : el?.textContent) ??
        ""
      ).trim(),
    };
  });

const describeFocused = (el: Focused) => `${el.tag}${el.role ? `[${el.role}]` : ""} "${el.name.slice(0, 30)}"`;

/**
 * Whether the focused element shows its focus: an outline or a shadow, or for a form field
 * (Mantine marks their focus by the border) a border colour other than the one it has unfocused.
 */
const focusShows = (page: Page): Promise<boolean> =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return false;
    // Colours read mid-transition are neither the focused nor the unfocused ones: jump to the end.
    const settled = (node: Element) => {
      for (const animation of node.getAnimations()) animation.finish();
      return getComputedStyle(node);
    };
    const style = settled(el);
    if (style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0) return true;
    if (style.boxShadow !== "none") return true;
    if (!el.matches("input, textarea, select")) return false;
    // A field is measured once: focus() puts a date field back on its first part, and Tab
    // would never leave it.
    const store = window as { measuredFields?: WeakMap<Element, boolean> };
    store.measuredFields ??= new WeakMap();
    const measured = store.measuredFields;
    const known = measured.get(el);
    if (known !== undefined) return known;
    // The border may be the field's own or its box's (a password field and its eye button).
    const boxes = [el, el.parentElement ?? el];
    const focusBorders = boxes.map((node) => settled(node).borderColor).join();
    el.blur();
    const changed = boxes.map((node) => settled(node).borderColor).join() !== focusBorders;
    el.focus();
    measured.set(el, changed);
    return changed;
  });

/**
 * Presses Tab until `wanted` says the focused element is the one (at most 60 presses), calling
 * `atEach` at every element it stops at on the way, the last included.
 */
async function tabTo(
  page: Page,
  wanted: (el: Focused) => boolean,
  what: string,
  atEach: () => Promise<void>,
): Promise<Focused> {
  const seen: string[] = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press("Tab");
    const el = await focused(page);
    await atEach();
    if (wanted(el)) return el;
    seen.push(describeFocused(el));
  }
  throw new Error(`Tab never reached ${what}; it went through:\n${seen.join("\n")}`);
}

/**
 * The visible form fields of the page with no accessible name: no aria-label, aria-labelledby,
 * label (for= or wrapping) or title. Each offender as "tag#id (type)".
 */
const unnamedFields = (page: Page) =>
  page
    .locator('input:not([type="hidden"]), select, textarea, [role="switch"], [role="checkbox"]')
    .evaluateAll((elements) =>
      elements
        // Rendered (not in a display: none subtree) and not visibility: hidden; Mantine's switches
        // keep their input rendered but transparent under the drawn control, which counts.
        .filter((el) => el.checkVisibility({ visibilityProperty: true }))
        .filter((el) => {
          const text = (s: string | null | undefined) => (s ?? "").trim().length > 0;
          if (text(el.getAttribute("aria-label")) || text(el.getAttribute("title"))) return false;
          const labelledBy = el.getAttribute("aria-labelledby");
          if (labelledBy?.split(/\s+/).some((id) => text(document.getElementById(id)?.textContent))) return false;
          if (el.id && text(document.querySelector(`label[for="${CSS.escape(el.id)}"]`)?.textContent)) return false;
          return !text(el.closest("label")?.textContent);
        })
        .map(
          (el) => `${el.tagName.toLowerCase()}#${el.id || "?"} (${el.getAttribute("type") ?? el.getAttribute("role")})`,
        ),
    );

/** `check(where)` adds the unnamed fields of the page now to `offenders`, under `where`. */
function namesChecker(page: Page) {
  const offenders: string[] = [];
  const check = async (where: string) => {
    for (const field of await unnamedFields(page)) offenders.push(`${where}: ${field}`);
  };
  return { check, offenders };
}

/** Relative luminance (0 black … 1 white) of a computed `rgb(…)` colour. */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

describe.skipIf(skip)("the web app's remaining paths in Chromium", () => {
  let server: TestServer;
  let site: TestSite;
  let ai: OpenAiServer;
  let browser: Browser;
  let hook: { id: string; name: string };
  const JOB = "Orders table";
  const HOOKED = "Orders to the hook";

  beforeAll(async () => {
    buildUi();
    [server, site, ai, browser] = await Promise.all([
      startTestServer("sqlite"),
      startTestSite(),
      startOpenAiServer(),
      launchBrowser(),
    ]);
    expect((await server.admin.post("/api/spaces/default/jobs", tableJob(site, JOB))).status).toBe(201);
    const created = await webhookInterface(server);
    const listed = await server.admin.get("/api/spaces/default/delivery-interfaces");
    hook = listed.body.items.find((i: { id: string }) => i.id === created.id);
    const hooked = {
      ...tableJob(site, HOOKED),
      deliveries: [{ interfaceId: hook.id, message: "{{ orders }} orders" }],
    };
    expect((await server.admin.post("/api/spaces/default/jobs", hooked)).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await site?.stop();
    await ai?.stop();
  });

  const scenario = (
    name: string,
    fn: (page: Page) => Promise<void>,
    options: { width?: number; allowed?: RegExp } = {},
  ) => runScenario(browser, name, fn, { ...options, timeoutMs: LOAD_MS });

  /**
   * Opens each tab of the editor of the HOOKED job (already open) in turn, waits for its content,
   * and yields its name.
   */
  async function* editorTabs(page: Page) {
    for (const [tab, shown] of [
      ["General", page.getByRole("textbox", { name: "Name", exact: true })],
      ["Capture", page.getByRole("region", { name: /^Step 4:/ })],
      ["Composer", page.getByRole("region", { name: "Block: Snapshot" })],
      ["Delivery", page.getByRole("region", { name: "Delivery 1" }).getByRole("textbox", { name: "Message" })],
    ] as const) {
      await page.getByRole("tab", { name: tab }).click();
      await see(shown);
      yield tab;
    }
  }

  const jobId = async (name: string): Promise<string> => {
    const jobs = await server.admin.get("/api/spaces/default/jobs");
    return jobs.body.items.find((j: { name: string }) => j.name === name).id;
  };

  it("signs in, opens the runs and a job, and switches the editor's tabs with the keyboard alone", async () => {
    await scenario("keyboard-only", async (page) => {
      const noRing: string[] = [];
      // Every place the keyboard stops at must show it has the focus.
      const checkRing = async () => {
        const el = await focused(page);
        // The body: Tab went past the last element, to the browser's own controls.
        if (el.tag !== "body" && !(await focusShows(page))) noRing.push(describeFocused(el));
      };
      const focusedName = () => page.evaluate(() => document.activeElement?.getAttribute("name"));
      await page.goto(`${server.url}/login`);
      // The user name has the focus from the start; Tab goes on to the password; Enter signs in.
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      expect(await focusedName()).toBe("username");
      await checkRing();
      await page.keyboard.type(ADMIN.username);
      await page.keyboard.press("Tab");
      expect(await focusedName()).toBe("password");
      await checkRing();
      await page.keyboard.type(ADMIN.password);
      await page.keyboard.press("Enter");
      await see(page.getByRole("heading", { name: "Jobs" }), LOAD_MS);

      await tabTo(page, (el) => el.tag === "a" && el.name === "Runs", "the Runs link", checkRing);
      await page.keyboard.press("Enter");
      await see(page.getByRole("heading", { name: "Runs" }), LOAD_MS);
      expect(new URL(page.url()).pathname).toBe("/s/default/runs");

      await tabTo(page, (el) => el.tag === "a" && el.name === "Jobs", "the Jobs link", checkRing);
      await page.keyboard.press("Enter");
      await see(page.getByRole("heading", { name: "Jobs" }), LOAD_MS);
      await tabTo(page, (el) => el.tag === "a" && el.name === JOB, `the link of ${JOB}`, checkRing);
      await page.keyboard.press("Enter");
      await see(page.getByRole("heading", { name: JOB }), LOAD_MS);

      // The tabs of the editor: one Tab stop, the arrow keys move between them and open them.
      await tabTo(page, (el) => el.role === "tab", "the editor's tabs", checkRing);
      const selected = () => page.getByRole("tab", { selected: true }).textContent();
      expect(await selected()).toBe("General");
      for (const [key, tab] of [
        ["ArrowRight", "Capture"],
        ["ArrowRight", "Composer"],
        ["ArrowRight", "Delivery"],
        ["ArrowRight", "General"],
        ["ArrowLeft", "Delivery"],
        ["ArrowLeft", "Composer"],
        ["ArrowLeft", "Capture"],
      ]) {
        await page.keyboard.press(key);
        expect(await selected()).toBe(tab);
        expect(await focused(page)).toEqual({ tag: "button", role: "tab", name: tab });
        await checkRing();
      }
      await see(page.getByRole("region", { name: /^Step 1:/ }));
      // Tab leaves the tabs for the first field of the open panel.
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.closest('[role="tabpanel"]')?.id)).toBe(
        await page.getByRole("tab", { name: "Capture" }).getAttribute("aria-controls"),
      );
      await checkRing();
      expect(noRing, `focus does not show on:\n${noRing.join("\n")}`).toEqual([]);
    });
  }, 60_000);

  it("gives every visible form field a name, on every page", async () => {
    const hookedId = await jobId(HOOKED);
    await scenario("labelled-fields", async (page) => {
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      const { check, offenders } = namesChecker(page);
      await see(page.getByRole("link", { name: JOB }));
      await check("jobs list");

      await page.goto(`${server.url}/s/default/jobs/${hookedId}`);
      for await (const tab of editorTabs(page)) await check(`job editor, ${tab}`);

      await page.goto(`${server.url}/s/default/runs`);
      await see(page.getByRole("textbox", { name: "Trigger" }));
      await check("runs");

      await page.goto(`${server.url}/s/default/delivery-interfaces`);
      await page.getByRole("button", { name: "New interface" }).click();
      const dialog = page.getByRole("dialog");
      await see(dialog.getByRole("button", { name: "Save", exact: true }));
      await check("delivery interfaces, New interface");
      // The fields of every other type of interface.
      await dialog.getByRole("textbox", { name: "Type", exact: true }).click();
      const types = await page.getByRole("option").allTextContents();
      for (const [index, type] of types.entries()) {
        // The list is open for the first (Escape would close the dialog too).
        if (index > 0) await dialog.getByRole("textbox", { name: "Type", exact: true }).click();
        await page.getByRole("option", { name: type, exact: true }).click();
        await expect.poll(() => dialog.getByRole("textbox", { name: "Type", exact: true }).inputValue()).toBe(type);
        await check(`delivery interfaces, New interface, ${type}`);
      }

      await page.goto(`${server.url}/s/default/ai-providers`);
      await page.getByRole("button", { name: "New provider" }).click();
      await see(page.getByRole("dialog").getByRole("button", { name: "Save", exact: true }));
      await check("AI providers, New provider");

      await page.goto(`${server.url}/s/default/templates`);
      await see(page.getByRole("table", { name: "Templates" }));
      await check("templates");

      for (const [path, shown] of [
        ["users", page.getByRole("table", { name: "Users" })],
        ["spaces", page.getByRole("textbox", { name: "Add a user" })],
        ["health-alerts", page.getByRole("switch", { name: "Enable health alerts" })],
        ["health", page.getByRole("table", { name: "Job health" })],
      ] as const) {
        await page.goto(`${server.url}/settings/${path}`);
        await see(shown);
        await check(`settings, ${path}`);
      }
      expect(offenders, `fields without a name:\n${offenders.join("\n")}`).toEqual([]);
    });
  }, 90_000);

  it("names every field of every step type and block type in the editor", async () => {
    await scenario(
      "labelled-fields-editor",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        const { check, offenders } = namesChecker(page);
        await page.goto(`${server.url}/s/default/jobs/new`);
        await see(page.getByRole("textbox", { name: "Name", exact: true }));
        // Adds one of each option of the select labelled `select` with the button beside it, checks
        // the page with it (the card `added`), and removes it again: a short list keeps it quick.
        const tryEach = async (select: string, added: Locator, remove: Locator) => {
          const id = await page.getByRole("textbox", { name: select, exact: true }).getAttribute("id");
          const box = page.locator(`[id="${id}"]`);
          await box.click();
          const options = page.locator(`[id="${await box.getAttribute("aria-controls")}"] [role="option"]`);
          const types = await options.allTextContents();
          await page.keyboard.press("Escape");
          for (const type of types) {
            await box.click();
            await options.filter({ hasText: new RegExp(`^${type.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) }).click();
            await box.locator("xpath=ancestor::div[.//button][1]//button").click();
            await see(added);
            await check(`${select}: ${type}`);
            await remove.click();
            await added.waitFor({ state: "detached" });
          }
          expect(types.length).toBeGreaterThan(5);
        };
        await page.getByRole("tab", { name: "Capture" }).click();
        await tryEach(
          "Add a step",
          page.locator('section[data-step-path="1"]'),
          page.getByRole("button", { name: "Remove Step 2" }),
        );
        await page.getByRole("tab", { name: "Composer" }).click();
        await page.getByRole("switch", { name: "Own report layout" }).check();
        const blocks = page.getByRole("region", { name: /^Block: / });
        await tryEach("Block to add", blocks.nth(1), blocks.nth(1).getByRole("button", { name: "Remove the block" }));

        expect(offenders, `fields without a name:\n${offenders.join("\n")}`).toEqual([]);
      },
      { allowed: PREVIEW_400 },
    );
  }, 90_000);

  it("follows the system's dark or light theme", async () => {
    await scenario("dark-theme", async (page) => {
      const look = () =>
        page.evaluate(() => ({
          scheme: document.documentElement.getAttribute("data-mantine-color-scheme"),
          background: getComputedStyle(document.body).backgroundColor,
        }));
      await page.emulateMedia({ colorScheme: "dark" });
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      const dark = await look();
      expect(dark.scheme).toBe("dark");
      expect(luminance(dark.background)).toBeLessThan(0.1);
      // The system turns light: the page follows without a reload.
      await page.emulateMedia({ colorScheme: "light" });
      await expect.poll(async () => (await look()).scheme).toBe("light");
      expect(luminance((await look()).background)).toBeGreaterThan(0.8);
    });
  });

  it("saves a job as a template, edits it and starts a new job from it", async () => {
    const id = await jobId(JOB);
    const TEMPLATE = "Orders starter";
    await scenario("templates", async (page) => {
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      await page.goto(`${server.url}/s/default/jobs/${id}`);
      await page.getByRole("button", { name: "Save as template" }).click();
      const form = page.getByRole("dialog", { name: "Save as a template" });
      await form.getByRole("textbox", { name: "Template name" }).fill(TEMPLATE);
      await form.getByRole("button", { name: "Save template" }).click();
      await form.waitFor({ state: "hidden" });

      await page
        .getByRole("navigation", { name: "Pages of the space" })
        .getByRole("link", { name: "Templates" })
        .click();
      const row = page.getByRole("table", { name: "Templates" }).getByRole("row").filter({ hasText: TEMPLATE });
      await see(row);
      expect(await row.getByText("built-in").count()).toBe(0);
      await row.getByRole("button", { name: "Edit" }).click();
      const edit = page.getByRole("dialog", { name: "Edit the template" });
      await edit.getByRole("textbox", { name: "Description" }).fill("Orders of a shop, as a start");
      await edit.getByRole("button", { name: "Save template" }).click();
      await edit.waitFor({ state: "hidden" });
      await see(row.getByText("Orders of a shop, as a start"));

      await row.getByRole("link", { name: "Use" }).click();
      await see(page.getByText("Fill in the template"));
      await see(page.getByText("capture.steps.0.url"));
      expect(await page.getByRole("heading", { name: "New job" }).count()).toBe(1);
      expect(await page.getByRole("textbox", { name: "Name", exact: true }).inputValue()).toBe(JOB);
    });
    const blueprints = await server.admin.get("/api/spaces/default/blueprints");
    expect(blueprints.body.items.find((b: { name: string }) => b.name === TEMPLATE)).toMatchObject({
      builtIn: false,
      description: "Orders of a shop, as a start",
      placeholders: [{ path: "capture.steps.0.url" }],
      job: { name: JOB, capture: { steps: [{ type: "navigate", url: `${site.url}/table` }, {}, {}, {}] } },
    });
  });

  it("filters the runs by trigger, deletes the selected one, and deletes a run from its page", async () => {
    const id = await jobId(JOB);
    const manual = await postStream(server.admin, `/api/spaces/default/jobs/${id}/run`);
    const test = await postStream(server.admin, "/api/spaces/default/jobs/test", tableJob(site, "Orders, tested"));
    expect([manual.end?.state, test.end?.state]).toEqual(["success", "success"]);
    await scenario("runs-delete", async (page) => {
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      await page.getByRole("navigation", { name: "Pages of the space" }).getByRole("link", { name: "Runs" }).click();
      const runs = page.getByRole("table", { name: "Runs" });
      await see(runs.locator(`tr[data-run="${manual.end.runId}"]`));
      await page.getByRole("textbox", { name: "Trigger" }).click();
      await page.getByRole("option", { name: "test", exact: true }).click();
      await expect.poll(() => runs.locator("tr[data-run]").count()).toBe(1);
      const row = runs.locator(`tr[data-run="${test.end.runId}"]`);
      await row.getByRole("checkbox").check();
      await page.getByRole("button", { name: "Delete 1 run" }).click();
      const confirm = page.getByRole("dialog", { name: "Delete the runs?" });
      await confirm.getByRole("button", { name: "Delete", exact: true }).click();
      await confirm.waitFor({ state: "hidden" });
      await see(page.getByText("No run."));
      expect((await server.admin.get(`/api/spaces/default/runs/${test.end.runId}`)).status).toBe(404);

      await page.getByRole("textbox", { name: "Trigger" }).click();
      await page.getByRole("option", { name: "manual", exact: true }).click();
      await runs.locator(`tr[data-run="${manual.end.runId}"]`).getByRole("link", { name: JOB }).click();
      await page.getByRole("button", { name: "Delete the run" }).click();
      const confirmOne = page.getByRole("dialog", { name: "Delete the run?" });
      await confirmOne.getByRole("button", { name: "Delete", exact: true }).click();
      await see(page.getByRole("heading", { name: "Runs" }), LOAD_MS);
      expect((await server.admin.get(`/api/spaces/default/runs/${manual.end.runId}`)).status).toBe(404);
    });
  }, 60_000);

  it("tests an AI provider made in the UI, and says No answer to a wrong key", async () => {
    ai.respondWith(() => ({ content: "Pong from the fixture" }));
    const WRONG = "sk-wrong-key-0000";
    await scenario("ai-provider-test", async (page) => {
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      await page.getByRole("link", { name: "AI providers" }).click();
      await page.getByRole("button", { name: "New provider" }).click();
      const form = page.getByRole("dialog", { name: "New AI provider" });
      await form.getByRole("textbox", { name: "Name" }).fill("Fixture model");
      await form.getByRole("textbox", { name: "Vendor" }).click();
      await page.getByRole("option", { name: "openai-compatible" }).click();
      await form.getByRole("textbox", { name: "Endpoint" }).fill(ai.url);
      await form.getByRole("textbox", { name: "Model" }).fill("fixture-model");
      await form.locator('input[type="password"]').fill(ai.apiKey);
      await form.getByRole("button", { name: "Save", exact: true }).click();
      await form.waitFor({ state: "hidden" });
      const row = page
        .getByRole("table", { name: "AI providers" })
        .getByRole("row")
        .filter({ hasText: "Fixture model" });

      await row.getByRole("button", { name: "Test" }).click();
      const test = page.getByRole("dialog", { name: "Test “Fixture model”" });
      await test.getByRole("button", { name: "Ask the model" }).click();
      await see(test.getByRole("status").filter({ hasText: "“Pong from the fixture”" }));
      await see(test.getByText(/^Answered in/));
      await test.getByRole("button", { name: "Close" }).click();

      // A wrong key: the call fails, and neither key shows.
      await row.getByRole("button", { name: "Edit" }).click();
      const edit = page.getByRole("dialog", { name: "Edit AI provider" });
      await edit.locator('input[type="password"]').fill(WRONG);
      await edit.getByRole("button", { name: "Save", exact: true }).click();
      await edit.waitFor({ state: "hidden" });
      await row.getByRole("button", { name: "Test" }).click();
      await test.getByRole("button", { name: "Ask the model" }).click();
      await see(test.getByRole("status").filter({ hasText: "No answer" }));
      const html = await page.content();
      expect(html).not.toContain(WRONG);
      expect(html).not.toContain(ai.apiKey);
    });
    expect(ai.requests.map((r) => r.authorization)).toEqual([`Bearer ${ai.apiKey}`, `Bearer ${WRONG}`]);
    const providers = await server.admin.get("/api/spaces/default/ai-providers");
    expect(providers.body.items).toEqual([
      expect.objectContaining({
        name: "Fixture model",
        vendor: "openai-compatible",
        endpoint: ai.url,
        apiKeySet: true,
      }),
    ]);
    expect(providers.text).not.toContain(WRONG);
  });

  it("refuses to delete an interface a job delivers through, and names the job", async () => {
    await scenario(
      "interface-in-use",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        await page.getByRole("link", { name: "Delivery interfaces" }).click();
        const row = page.locator(`tr[data-interface="${hook.name}"]`);
        await row.getByRole("button", { name: "Delete" }).click();
        const dialog = page.getByRole("dialog", { name: "Delete the interface?" });
        await dialog.getByRole("button", { name: "Delete", exact: true }).click();
        await see(dialog.getByRole("alert").filter({ hasText: HOOKED }));
        await dialog.getByRole("button", { name: "Cancel" }).click();
        await dialog.waitFor({ state: "hidden" });
        await see(row);
      },
      { allowed: /status of 409.*\/ui-api\/spaces\/default\/delivery-interfaces\/[0-9a-f-]{36}\)$/ },
    );
    const left = await server.admin.get("/api/spaces/default/delivery-interfaces");
    expect(left.body.items.map((i: { id: string }) => i.id)).toContain(hook.id);
  });

  it("uploads an image into an own report layout, saves it with the job, then deletes the job", async () => {
    const { report: _report, ...plain } = tableJob(site, "Orders with a logo");
    const created = await server.admin.post("/api/spaces/default/jobs", plain);
    expect(created.status).toBe(201);
    await scenario(
      "composer-upload",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        await page.goto(`${server.url}/s/default/jobs/${created.body.id}`);
        await page.getByRole("tab", { name: "Composer" }).click();
        await page.getByRole("switch", { name: "Own report layout" }).check();
        await page.getByRole("textbox", { name: "Block to add" }).click();
        await page.getByRole("option", { name: "Image", exact: true }).click();
        await page.getByRole("button", { name: "Add block" }).click();
        const block = page.getByRole("region", { name: "Block: Image" });
        await block.getByText("Uploaded", { exact: true }).click();
        await block.locator('input[type="file"]').setInputFiles({
          name: "logo.png",
          mimeType: "image/png",
          buffer: PIXEL_PNG,
        });
        const image = block.getByRole("img", { name: "Uploaded image" });
        await see(image);
        await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
        await page.getByRole("button", { name: "Save", exact: true }).click();
        await see(page.getByText(/^Saved at/));
        const saved = await server.admin.get(`/api/spaces/default/jobs/${created.body.id}`);
        const blocks = saved.body.report.pages[0].rows[0].cells[0].blocks;
        const stored = blocks.find((b: { type: string }) => b.type === "image");
        expect(stored.upload).toMatch(UUID);
        expect(stored.url).toBeUndefined();

        // Then the job goes, from its editor.
        await page.getByRole("button", { name: "Delete", exact: true }).click();
        await page
          .getByRole("dialog", { name: "Delete the job?" })
          .getByRole("button", { name: "Delete", exact: true })
          .click();
        await see(page.getByRole("heading", { name: "Jobs" }), LOAD_MS);
      },
      { allowed: PREVIEW_400 },
    );
    expect((await server.admin.get(`/api/spaces/default/jobs/${created.body.id}`)).status).toBe(404);
  });

  it("fits the job editor and a run page into 360 px without a sideways scroll", async () => {
    const hookedId = await jobId(HOOKED);
    const run = await postStream(server.admin, `/api/spaces/default/jobs/${await jobId(JOB)}/run`);
    expect(run.end?.state).toBe("success");
    await scenario(
      "narrow",
      async (page) => {
        await signIn(page, server.url, ADMIN.username, ADMIN.password);
        const overflow = () =>
          page.evaluate(() => {
            const width = document.documentElement.clientWidth;
            const wide = [...document.querySelectorAll<HTMLElement>("body *")]
              .filter((el) => el.getBoundingClientRect().right > width + 1)
              .slice(0, 5)
              .map((el) => `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 80));
            return { scrollWidth: document.documentElement.scrollWidth, wide };
          });
        await page.goto(`${server.url}/s/default/jobs/${hookedId}`);
        for await (const tab of editorTabs(page)) {
          const { scrollWidth, wide } = await overflow();
          expect(scrollWidth, `job editor, ${tab}: ${wide.join(", ")}`).toBeLessThanOrEqual(361);
        }
        await page.goto(`${server.url}/s/default/runs/${run.end.runId}`);
        await see(page.getByRole("img", { name: "Snapshot table" }));
        await see(page.locator('iframe[title="Report (HTML)"]'));
        const { scrollWidth, wide } = await overflow();
        expect(scrollWidth, `run page: ${wide.join(", ")}`).toBeLessThanOrEqual(361);
      },
      { width: 360 },
    );
  }, 60_000);
});
