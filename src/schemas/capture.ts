import { z } from "zod";
import { Expression, HttpUrl, TemplateString, Uuid, VariableName } from "./rules.js";

/**
 * Capture steps: what the browser does, in order, in a fresh context for every run. Strings
 * other than variable names and expressions may use `{{ variable }}`.
 */

const Selector = TemplateString(2000).pipe(z.string().min(1, "must not be empty"));
const TimeoutMs = z.number().int().min(0).max(600_000);

const stepBase = {
  id: Uuid.optional().describe("Server-assigned when missing; kept across replacements."),
  label: z.string().max(200).optional().describe("Shown in the editor and in run steps."),
};

const step = <K extends string, T extends z.ZodRawShape>(type: K, description: string, shape: T) =>
  z.strictObject({ type: z.literal(type), ...stepBase, ...shape }).meta({ description });

export const NavigateStep = step("navigate", "Opens a URL in the page.", {
  url: HttpUrl.describe("http(s) URL; may use {{ variable }}."),
  waitUntil: z
    .enum(["load", "domcontentloaded", "networkidle"])
    .default("load")
    .describe("When navigation counts as done."),
  timeoutMs: TimeoutMs.default(30_000),
});

export const ClickStep = step("click", "Clicks the first element matching the selector.", {
  selector: Selector.describe("CSS or Playwright selector (text=Sign in, role=button[name=Save])."),
  button: z.enum(["left", "right", "middle"]).default("left"),
  clickCount: z.number().int().min(1).max(3).default(1),
  timeoutMs: TimeoutMs.default(30_000),
});

export const TypeStep = step("type", "Fills an input with text (clears it first).", {
  selector: Selector,
  text: TemplateString(10_000),
  sensitive: z
    .boolean()
    .default(false)
    .describe("True for passwords: the text is omitted for ro readers and from run records."),
  timeoutMs: TimeoutMs.default(30_000),
});

export const PressStep = step("press", "Presses a key, optionally in an element.", {
  key: z.string().min(1).max(64).describe("A key name: Enter, Tab, ArrowDown, Control+A …"),
  selector: Selector.optional(),
  timeoutMs: TimeoutMs.default(30_000),
});

export const SelectStep = step("select", "Chooses an option of a <select> by value or label.", {
  selector: Selector,
  value: TemplateString(2000),
  timeoutMs: TimeoutMs.default(30_000),
});

export const HoverStep = step("hover", "Moves the mouse over an element (menus, tooltips).", {
  selector: Selector,
  timeoutMs: TimeoutMs.default(30_000),
});

export const ScrollStep = step("scroll", "Scrolls an element into view, or the page to its end.", {
  selector: Selector.optional(),
  timeoutMs: TimeoutMs.default(30_000),
});

export const WaitForStep = step("waitFor", "Waits until an element reaches a state.", {
  selector: Selector,
  state: z.enum(["attached", "detached", "visible", "hidden"]).default("visible"),
  timeoutMs: TimeoutMs.default(30_000),
});

export const WaitForTextStep = step("waitForText", "Waits until a text appears in the page.", {
  text: TemplateString(2000).pipe(z.string().min(1)),
  timeoutMs: TimeoutMs.default(30_000),
});

export const WaitStep = step("wait", "Waits a fixed time (prefer waitFor).", {
  ms: z.number().int().min(0).max(300_000),
});

export const ReloadStep = step("reload", "Reloads the page.", {
  timeoutMs: TimeoutMs.default(30_000),
});

export const SnapshotStep = step("snapshot", "Takes a PNG screenshot of an element, the viewport or the page.", {
  as: VariableName.describe("Name of the snapshot, used by report blocks (ref)."),
  selector: Selector.optional().describe("An element to shoot; the viewport when missing."),
  fullPage: z.boolean().default(false).describe("The whole scrollable page (ignored with a selector)."),
  timeoutMs: TimeoutMs.default(30_000),
});

export const ExtractStep = step("extract", "Reads a value from an element into a variable.", {
  as: VariableName,
  selector: Selector,
  attribute: z.string().min(1).max(200).optional().describe("Read this attribute instead of the text."),
  pattern: z
    .string()
    .max(1000)
    .refine((p) => {
      try {
        new RegExp(p);
        return true;
      } catch {
        return false;
      }
    }, "a valid regular expression")
    .optional()
    .describe("A regular expression; its first group (or whole match) is kept."),
  parse: z
    .enum(["text", "number"])
    .default("text")
    .describe('number reads "1,470,592" as 1470592 and "12.5%" as 12.5.'),
  timeoutMs: TimeoutMs.default(30_000),
});

export const CalculateStep = step("calculate", "Computes a variable from others.", {
  as: VariableName,
  expression: Expression.describe("e.g. round(errors / total * 100, 1)"),
});

export const BreakStep = step("break", "Ends the run on purpose: state skipped, nothing delivered.", {
  reason: z.string().max(500).default(""),
});

export const AiStep = step("ai", "Asks an AI provider of the space; stores the answer in a variable.", {
  as: VariableName,
  providerId: Uuid.describe("An AI provider of this space (GET …/ai-providers)."),
  prompt: TemplateString(20_000).pipe(z.string().min(1)),
  output: z.enum(["text", "number", "html"]).default("text"),
  context: z
    .union([z.literal("all"), z.array(VariableName).max(50)])
    .default("all")
    .describe('"all" variables, or the names of the variables and snapshots to send.'),
  images: z.boolean().default(false).describe("Send the snapshots in context as images."),
});

export type CaptureStep =
  | z.infer<typeof NavigateStep>
  | z.infer<typeof ClickStep>
  | z.infer<typeof TypeStep>
  | z.infer<typeof PressStep>
  | z.infer<typeof SelectStep>
  | z.infer<typeof HoverStep>
  | z.infer<typeof ScrollStep>
  | z.infer<typeof WaitForStep>
  | z.infer<typeof WaitForTextStep>
  | z.infer<typeof WaitStep>
  | z.infer<typeof ReloadStep>
  | z.infer<typeof SnapshotStep>
  | z.infer<typeof ExtractStep>
  | z.infer<typeof CalculateStep>
  | IfStep
  | z.infer<typeof BreakStep>
  | z.infer<typeof AiStep>;

export type IfStep = {
  type: "if";
  id?: string;
  label?: string;
  condition: string;
  then: CaptureStep[];
  else?: CaptureStep[];
};

export const IfStepSchema: z.ZodType<IfStep> = z
  .strictObject({
    type: z.literal("if"),
    ...stepBase,
    condition: Expression.describe("e.g. errors > 100 && region == 'eu'"),
    get then() {
      return z.array(CaptureStepSchema);
    },
    get else() {
      return z.array(CaptureStepSchema).optional();
    },
  })
  .meta({ description: "Runs `then` when the condition holds, else `else`. Nested at most 8 deep." });

export const CaptureStepSchema: z.ZodType<CaptureStep> = z
  .discriminatedUnion("type", [
    NavigateStep,
    ClickStep,
    TypeStep,
    PressStep,
    SelectStep,
    HoverStep,
    ScrollStep,
    WaitForStep,
    WaitForTextStep,
    WaitStep,
    ReloadStep,
    SnapshotStep,
    ExtractStep,
    CalculateStep,
    // biome-ignore lint/suspicious/noExplicitAny: zod's discriminated union needs the object type of the recursive step
    IfStepSchema as any,
    BreakStep,
    AiStep,
  ])
  .meta({ id: "CaptureStep" });

/** Every step type with its schema, in the order the guide lists them. */
export const STEP_SCHEMAS = {
  navigate: NavigateStep,
  click: ClickStep,
  type: TypeStep,
  press: PressStep,
  select: SelectStep,
  hover: HoverStep,
  scroll: ScrollStep,
  waitFor: WaitForStep,
  waitForText: WaitForTextStep,
  wait: WaitStep,
  reload: ReloadStep,
  snapshot: SnapshotStep,
  extract: ExtractStep,
  calculate: CalculateStep,
  if: IfStepSchema,
  break: BreakStep,
  ai: AiStep,
} as const;

export const CaptureAuthSchema = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("none") }),
    z.strictObject({
      type: z.literal("basic"),
      username: z.string().min(1).max(200),
      password: z.string().max(1000).optional().describe("Write-only for ro readers: omitted from their reads."),
    }),
  ])
  .meta({ description: "HTTP basic auth, sent only to the origin of each navigation." });

export const CaptureSchema = z
  .strictObject({
    viewport: z
      .strictObject({
        width: z.number().int().min(320).max(3840).default(1440),
        height: z.number().int().min(200).max(4320).default(900),
      })
      .default({ width: 1440, height: 900 }),
    auth: CaptureAuthSchema.default({ type: "none" }),
    steps: z.array(CaptureStepSchema).min(1, "a capture has at least one step").max(500),
  })
  .meta({ id: "Capture" });

export type Capture = z.infer<typeof CaptureSchema>;
