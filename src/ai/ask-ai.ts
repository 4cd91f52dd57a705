import type { AskAi } from "../capture/capture-engine.js";
import { StepError } from "../capture/capture-errors.js";
import type { SecretHoldersRepository } from "../storage/repositories/secret-holders-repository.js";

/** One AI call may take this long; a slow model fails the step instead of holding the run. */
const AI_TIMEOUT_MS = 120_000;

const INSTRUCTIONS = {
  text: "Answer in plain text.",
  number: "Answer with a single number only, without words or units.",
  html: "Answer with an HTML fragment (no <html>, <head> or <script>).",
};

/**
 * The `ai` step through the `openai` client, against OpenAI or any OpenAI-compatible endpoint of
 * the job's space. Variables travel as JSON in the message; snapshots as PNG images.
 */
export function createAskAi(providers: SecretHoldersRepository, space: string): AskAi {
  return async (request) => {
    const provider = await providers.getWithSecrets(space, request.providerId);
    if (!provider) throw new StepError("the AI provider no longer exists in this space");
    const { default: OpenAI } = await import("openai");
    const client = new OpenAI({
      apiKey: String(provider.secrets.apiKey ?? ""),
      baseURL: (provider.config.endpoint as string | undefined) ?? undefined,
      timeout: AI_TIMEOUT_MS,
      maxRetries: 1,
    });
    const text = `${request.prompt}\n\nCaptured values (JSON):\n${JSON.stringify(request.variables, null, 2)}`;
    const content = [
      { type: "text" as const, text },
      ...request.images.map((image) => ({
        type: "image_url" as const,
        image_url: { url: `data:image/png;base64,${image.png.toString("base64")}` },
      })),
    ];
    try {
      const completion = await client.chat.completions.create(
        {
          model: String(provider.config.model),
          messages: [
            {
              role: "system",
              content: `You help build reports from captured web pages. ${INSTRUCTIONS[request.output]}`,
            },
            { role: "user", content },
          ],
        },
        { signal: request.signal },
      );
      const answer = completion.choices[0]?.message?.content;
      if (!answer) throw new StepError("the AI provider gave an empty answer");
      return answer;
    } catch (error) {
      if (error instanceof StepError) throw error;
      // A provider's error text may quote what it received, the key included: never pass it on.
      const key = String(provider.secrets.apiKey ?? "");
      const message = (error as Error).message.split("\n")[0];
      throw new StepError(`AI provider ${provider.name}: ${key ? message.replaceAll(key, "***") : message}`);
    }
  };
}
