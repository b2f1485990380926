/** The body every creation endpoint takes: `model`, `prompt` when given, then the params (spec 2.4). */
export function buildFlatBody(input: {
  model: string;
  prompt: string | undefined;
  params: Record<string, unknown>;
}): Record<string, unknown> {
  const body: Record<string, unknown> = { ...input.params, model: input.model };
  if (input.prompt !== undefined) body.prompt = input.prompt;
  return body;
}
