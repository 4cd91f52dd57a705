import { z } from "zod";
import { Color, HttpUrl, TemplateString, Uuid, VariableName } from "./rules.js";

/** The report: pages of rows of 1 to 3 cells of blocks, rendered to HTML and PDF. */

const block = <K extends string, T extends z.ZodRawShape>(type: K, description: string, shape: T) =>
  z.strictObject({ type: z.literal(type), ...shape }).meta({ description });

export const TextBlock = block("text", "Liquid, then Markdown.", {
  content: TemplateString().describe("e.g. ## {{ errors }} errors today"),
});
export const SnapshotBlock = block("snapshot", "One snapshot of the run, by its name.", {
  ref: VariableName.describe("The `as` of a snapshot step."),
  caption: TemplateString(2000).optional(),
});
export const SnapshotsBlock = block("snapshots", "Every snapshot of the run, in order.", {});
export const VariableBlock = block("variable", "A captured variable as a large figure with a label.", {
  name: VariableName,
  label: TemplateString(200).optional(),
});
export const ImageBlock = block(
  "image",
  "An image: from a URL (private addresses are refused), or one uploaded in the web app. Give `url` or `upload`, not both.",
  {
    url: HttpUrl.optional(),
    upload: Uuid.optional().describe("An image uploaded in the web app's composer (its id)."),
  },
).superRefine((value, ctx) => {
  if ((value.url === undefined) === (value.upload === undefined)) {
    ctx.addIssue({ code: "custom", path: ["url"], message: "give either url or upload" });
  }
});
export const DividerBlock = block("divider", "A horizontal rule.", {});
export const SpacerBlock = block("spacer", "Vertical space.", {
  heightMm: z.number().min(1).max(300),
});

export const ReportBlockSchema = z
  .discriminatedUnion("type", [
    TextBlock,
    SnapshotBlock,
    SnapshotsBlock,
    VariableBlock,
    ImageBlock,
    DividerBlock,
    SpacerBlock,
  ])
  .meta({ id: "ReportBlock" });

export const BLOCK_SCHEMAS = {
  text: TextBlock,
  snapshot: SnapshotBlock,
  snapshots: SnapshotsBlock,
  variable: VariableBlock,
  image: ImageBlock,
  divider: DividerBlock,
  spacer: SpacerBlock,
} as const;

const Cell = z.strictObject({ blocks: z.array(ReportBlockSchema).max(50) });
const Row = z.strictObject({
  cells: z.array(Cell).min(1, "a row has 1 to 3 cells").max(3, "a row has 1 to 3 cells"),
});
const Page = z.strictObject({ rows: z.array(Row).max(30, "at most 30 rows a page") });

export const ReportSchema = z
  .strictObject({
    title: TemplateString(1000).default("{{ job.name }}"),
    paper: z
      .strictObject({
        size: z.enum(["A3", "A4", "A5", "Letter", "Legal", "Tabloid"]).default("A4"),
        orientation: z.enum(["portrait", "landscape"]).default("portrait"),
      })
      .default({ size: "A4", orientation: "portrait" }),
    theme: z
      .strictObject({
        font: z
          .string()
          .max(200)
          .regex(/^[\w\s,'"-]*$/, "font family names separated by commas")
          .default("sans-serif"),
        textColor: Color.default("#1f2937"),
        background: Color.default("#ffffff"),
        accent: Color.default("#2563eb"),
      })
      .default({ font: "sans-serif", textColor: "#1f2937", background: "#ffffff", accent: "#2563eb" }),
    pages: z.array(Page).min(1, "a report has at least one page").max(50, "at most 50 pages"),
  })
  .meta({ id: "Report" });

export type Report = z.infer<typeof ReportSchema>;
