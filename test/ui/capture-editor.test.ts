import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, startTestServer, type TestServer } from "../helpers/server.js";
import { buildUi, launchBrowser, runScenario, see, signIn } from "./ui-helpers.js";

/**
 * The Capture tab of the job editor in Chromium: steps added, moved by drag (HTML5 drag and drop,
 * into an if's branch and out) and by keyboard, the names of earlier steps offered under the
 * fields that take them, and the saved job holding the tree the page showed.
 * UI_TESTS=0 skips it (the build takes about 10 s).
 */
const skip = process.env.UI_TESTS === "0";
if (skip) console.warn("UI browser tests skipped: UI_TESTS=0");

/** The card of the step at a place of the tree: "0", "3.then.0". */
const card = (page: Page, at: string) => page.locator(`section[data-step-path="${at}"]`);

/** The names of the top list's cards, in order ("Step 1: Open a URL" …). */
const topSteps = (page: Page) =>
  page
    .locator("section[data-step-path]")
    .evaluateAll((cards) =>
      cards.filter((c) => !c.getAttribute("data-step-path")?.includes(".")).map((c) => c.getAttribute("aria-label")),
    );

const focused = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("data-step-control"));

describe.skipIf(skip)("the capture steps editor in Chromium", () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    buildUi();
    [server, browser] = await Promise.all([startTestServer("sqlite"), launchBrowser()]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  // Tall enough for every card: a drag scrolls the page only when the pointer nears its edge.
  const scenario = (name: string, fn: (page: Page) => Promise<void>) =>
    runScenario(browser, name, fn, { height: 2400 });

  async function addStep(page: Page, option: RegExp) {
    await page.getByRole("textbox", { name: "Add a step", exact: true }).click();
    await page.getByRole("option", { name: option }).click();
    await page.getByRole("button", { name: "Add", exact: true }).last().click();
  }

  it("moves steps by drag and by keyboard, offers earlier names, and saves the tree", async () => {
    let jobId = "";
    await scenario("capture-editor", async (page) => {
      await signIn(page, server.url, ADMIN.username, ADMIN.password);
      await page.getByRole("link", { name: "New job" }).click();
      await page.getByRole("textbox", { name: "Name", exact: true }).fill("Steps moved around");
      await page.getByRole("tab", { name: "Capture" }).click();

      // Five steps: open, extract "orders", if, open a URL made with it, snapshot.
      await card(page, "0").getByLabel("URL").fill("https://example.com/start");
      await see(card(page, "0").getByText("Opens a URL in the page"));
      await addStep(page, /\(extract\)/);
      await card(page, "1").getByRole("textbox", { name: "Store as (variable name)" }).fill("orders");
      await card(page, "1").getByRole("textbox", { name: "Selector" }).fill("#orders");
      await addStep(page, /^If \(if\)/);
      // An expression field offers the bare name; the first step is offered nothing.
      const condition = card(page, "2").getByRole("textbox", { name: "Condition" });
      await card(page, "2").getByRole("button", { name: "Insert orders" }).click();
      expect(await condition.inputValue()).toBe("orders");
      await condition.press("End");
      await condition.pressSequentially(" > 10");
      expect(
        await card(page, "0")
          .getByRole("button", { name: /^Insert / })
          .count(),
      ).toBe(0);
      await addStep(page, /\(navigate\)/);
      const url = card(page, "3").getByRole("textbox", { name: "URL" });
      await url.fill("https://example.com/orders/");
      // A template field offers {{ name }}.
      await card(page, "3").getByRole("button", { name: "Insert {{ orders }}" }).click();
      expect(await url.inputValue()).toBe("https://example.com/orders/{{ orders }}");
      await addStep(page, /\(snapshot\)/);
      await card(page, "4").getByRole("textbox", { name: "Snapshot name" }).fill("table");
      expect(await topSteps(page)).toEqual([
        "Step 1: Open a URL",
        "Step 2: Extract a value",
        "Step 3: If",
        "Step 4: Open a URL",
        "Step 5: Snapshot",
      ]);

      // Drag the snapshot onto the upper half of the first step: it goes before it.
      await card(page, "4")
        .getByRole("button", { name: "Drag Step 5" })
        .dragTo(card(page, "0"), { targetPosition: { x: 40, y: 8 } });
      expect(await topSteps(page)).toEqual([
        "Step 1: Snapshot",
        "Step 2: Open a URL",
        "Step 3: Extract a value",
        "Step 4: If",
        "Step 5: Open a URL",
      ]);

      // By mouse, step by step: while dragging over the lower half of a card, a marker shows
      // where the step lands; dropped there, it goes after that card.
      await card(page, "0").getByRole("button", { name: "Drag Step 1" }).hover();
      await page.mouse.down();
      const box = await card(page, "1").boundingBox();
      if (!box) throw new Error("no box of Step 2");
      await page.mouse.move(box.x + 40, box.y + box.height - 10, { steps: 5 });
      await see(page.locator("[data-insertion-marker]"));
      await page.mouse.up();
      expect(await page.locator("[data-insertion-marker]").count()).toBe(0);
      expect((await topSteps(page)).slice(0, 3)).toEqual([
        "Step 1: Open a URL",
        "Step 2: Snapshot",
        "Step 3: Extract a value",
      ]);

      // The if cannot go into its own branch: nothing moves.
      await card(page, "3")
        .getByRole("button", { name: "Drag Step 4" })
        .dragTo(page.locator('[data-drop-zone="3.then"]'));
      expect(await topSteps(page)).toHaveLength(5);
      expect(await card(page, "3.then.0").count()).toBe(0);

      // Into the then-branch of the if, through the drop zone at its end.
      const thenZone = page.locator('[data-drop-zone="3.then"]');
      await see(thenZone.getByText("Drop here to move the step to the end of the then branch of Step 4"));
      await card(page, "4").getByRole("button", { name: "Drag Step 5" }).dragTo(thenZone);
      await see(card(page, "3.then.0"));
      expect(await card(page, "3.then.0").getAttribute("aria-label")).toBe("Step 1: Open a URL");
      expect(await card(page, "3.then.0").getByRole("textbox", { name: "URL" }).inputValue()).toBe(
        "https://example.com/orders/{{ orders }}",
      );
      expect(await topSteps(page)).toHaveLength(4);

      // By keyboard: "down" twice with Enter and Space, the focus staying on the button.
      await card(page, "1").getByRole("button", { name: "Move Step 2 down" }).focus();
      await page.keyboard.press("Enter");
      expect(await focused(page)).toBe("2:down");
      expect(await card(page, "2").getAttribute("aria-label")).toBe("Step 3: Snapshot");
      await page.keyboard.press("Space");
      // Now the last step, its "down" is disabled: the focus goes to its handle.
      expect(await focused(page)).toBe("3:drag");
      expect(await topSteps(page)).toEqual([
        "Step 1: Open a URL",
        "Step 2: Extract a value",
        "Step 3: If",
        "Step 4: Snapshot",
      ]);
      // Into the if above (the end of its then-branch), then out again: the focus follows the step.
      await card(page, "3").getByRole("button", { name: "Move Step 4 into the if above" }).focus();
      await page.keyboard.press("Enter");
      expect(await card(page, "2.then.1").getAttribute("aria-label")).toBe("Step 2: Snapshot");
      expect(await focused(page)).toBe("2.then.1:drag");
      await page.keyboard.press("Tab");
      expect(await focused(page)).toBe("2.then.1:up");
      await card(page, "2.then.1").getByRole("button", { name: "Move Step 2 out of the if" }).focus();
      await page.keyboard.press("Enter");
      expect(await focused(page)).toBe("3:drag");
      // Alt+↑ on the handle moves it up, before the if.
      await page.keyboard.press("Alt+ArrowUp");
      expect(await focused(page)).toBe("2:drag");
      await see(page.getByRole("status").filter({ hasText: "Moved to Step 3." }));
      expect(await topSteps(page)).toEqual([
        "Step 1: Open a URL",
        "Step 2: Extract a value",
        "Step 3: Snapshot",
        "Step 4: If",
      ]);

      await page.getByRole("button", { name: "Save", exact: true }).click();
      await see(page.getByText(/^Saved at/));
      jobId = page.url().match(/\/jobs\/([0-9a-f-]{36})$/)?.[1] ?? "";
    });

    expect(jobId).not.toBe("");
    const saved = await server.admin.get(`/api/spaces/default/jobs/${jobId}`);
    expect(saved.status).toBe(200);
    expect(saved.body.capture.steps).toMatchObject([
      { type: "navigate", url: "https://example.com/start" },
      { type: "extract", as: "orders", selector: "#orders" },
      { type: "snapshot", as: "table" },
      {
        type: "if",
        condition: "orders > 10",
        then: [{ type: "navigate", url: "https://example.com/orders/{{ orders }}" }],
      },
    ]);
    expect(saved.body.capture.steps[3]).not.toHaveProperty("else");
  }, 90_000);
});
