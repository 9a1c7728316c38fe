/**
 * `reviewLoop` (spec 2 "Bundled starter"): one persistent developer handle
 * works on the task; after each of its turns a fresh reviewer judges the
 * working tree, until a reviewer passes the work or `maxIterations` reviews
 * failed. Each iteration is a phase. The function is deterministic given its
 * agents' journaled results, so a resumed or retried run replays the finished
 * iterations and continues where it stopped.
 *
 * Both agents ask for their role (`developer`, `reviewer`: prompt guidance
 * and selectors when the roles entry is loaded, an ignored key otherwise) and
 * for the starter's aliases `developer-model` and `reviewer-model`, so the
 * settings' `modelAliases` decide their models; `developer` and `reviewer`
 * input options override any of these per run.
 */
import type { AgentCallOptions, JsonSchema, JsonValue, WorkflowFunction, WorkflowFunctionContext } from '../kernel/index.js';

export const DEFAULT_MAX_ITERATIONS = 5;
export const MAX_ITERATIONS_LIMIT = 20;

const strings = { type: 'array', items: { type: 'string' } } as const;

/** Agent options a caller may give the developer or the reviewer; other JSON keys go to plugins. */
const AGENT_OPTIONS = {
  type: 'object',
  properties: {
    model: { type: 'string', minLength: 1 },
    role: { type: 'string', minLength: 1 },
    label: { type: 'string', minLength: 1 },
    tools: strings,
    excludeTools: strings,
    skills: strings,
    extensions: strings,
    contextFiles: { anyOf: [{ type: 'boolean' }, strings] },
    retries: { type: 'integer', minimum: 0, maximum: 10 },
    timeoutMs: { type: 'integer', minimum: 1 },
    // The loop owns these: the handle's name and the reviewer's verdict schema.
    name: false,
    outputSchema: false,
  },
} as const;

export const REVIEW_LOOP_INPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['task'],
  properties: {
    task: { type: 'string', minLength: 1, description: 'What the developer is to do.' },
    criteria: { type: 'string', minLength: 1, description: 'What the reviewer checks beyond the task itself.' },
    maxIterations: { type: 'integer', minimum: 1, maximum: MAX_ITERATIONS_LIMIT, description: `Reviews at most (default ${DEFAULT_MAX_ITERATIONS}).` },
    developer: { ...AGENT_OPTIONS, description: 'Options of the developer handle (model, role, tools, ...).' },
    reviewer: { ...AGENT_OPTIONS, description: 'Options of every reviewer (model, role, tools, ...).' },
  },
} as const satisfies JsonSchema;

/** The reviewer's verdict (its outputSchema). */
export const REVIEW_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['passed', 'feedback'],
  properties: {
    passed: { type: 'boolean', description: 'true only when the work completes the task correctly.' },
    feedback: { type: 'string', description: 'Actionable feedback for the developer; a short confirmation when passed.' },
  },
} as const satisfies JsonSchema;

export const REVIEW_LOOP_OUTPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['passed', 'iterations', 'result', 'review'],
  properties: {
    passed: { type: 'boolean' },
    iterations: { type: 'integer', minimum: 1 },
    result: { type: 'string', description: "The developer's last summary of its work." },
    review: REVIEW_SCHEMA,
  },
} as const satisfies JsonSchema;

interface Review {
  readonly passed: boolean;
  readonly feedback: string;
}

type Options = Readonly<Record<string, JsonValue>>;

interface ReviewLoopInput {
  readonly task: string;
  readonly criteria?: string;
  readonly maxIterations?: number;
  readonly developer?: Options;
  readonly reviewer?: Options;
}

function firstPrompt(task: string): string {
  return [
    task,
    '',
    'Work in the current directory. When you are done, submit a short summary of what you changed (files, decisions, how you verified it) as your result; a reviewer will check the work.',
  ].join('\n');
}

function feedbackPrompt(review: Review, iteration: number, max: number): string {
  return [
    `Review ${iteration} of at most ${max} did not pass the work. The reviewer's feedback:`,
    '',
    review.feedback,
    '',
    'Address every point in the working directory, then submit an updated summary of the whole change as your result.',
  ].join('\n');
}

function reviewPrompt(input: ReviewLoopInput, summary: string): string {
  return [
    'Review the change made in the current directory for this task:',
    '',
    '<task>',
    input.task,
    '</task>',
    ...(input.criteria === undefined ? [] : ['', 'Also check these criteria:', '', '<criteria>', input.criteria, '</criteria>']),
    '',
    "The developer's summary of the change:",
    '',
    '<summary>',
    summary,
    '</summary>',
    '',
    'Inspect the working directory yourself (files, diffs, checks); do not rely on the summary alone and do not modify any file.',
    'Submit passed: true only when the change completes the task correctly; otherwise passed: false with feedback the developer can act on.',
  ].join('\n');
}

/** A single line for the run log: bounded, whatever the reviewer wrote. */
function logLine(iteration: number, review: Review): string {
  const feedback = review.feedback.replace(/\s+/g, ' ').trim();
  return `review ${iteration}: ${review.passed ? 'passed' : 'not passed'}${feedback === '' ? '' : ` (${feedback.length > 300 ? `${feedback.slice(0, 300)}…` : feedback})`}`;
}

async function runReviewLoop(input: ReviewLoopInput, context: WorkflowFunctionContext): Promise<JsonValue> {
  const max = input.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const developer = context.agent.create({
    label: 'developer',
    role: 'developer',
    model: 'developer-model',
    ...input.developer,
    name: 'developer',
  } as AgentCallOptions & { readonly name: string });
  const reviewerOptions: AgentCallOptions = { label: 'reviewer', role: 'reviewer', model: 'reviewer-model', ...input.reviewer, outputSchema: REVIEW_SCHEMA };

  let review: Review | undefined;
  let result = '';
  for (let iteration = 1; iteration <= max; iteration += 1) {
    context.phase(`iteration ${iteration}`);
    const prompt = review === undefined ? firstPrompt(input.task) : feedbackPrompt(review, iteration - 1, max);
    result = String(await developer.send(prompt));
    review = (await context.agent(reviewPrompt(input, result), reviewerOptions)) as unknown as Review;
    context.log(logLine(iteration, review));
    if (review.passed) return { passed: true, iterations: iteration, result, review: { ...review } };
  }
  return { passed: false, iterations: max, result, review: { ...(review as Review) } };
}

export const reviewLoop: WorkflowFunction = Object.freeze<WorkflowFunction>({
  description:
    'Develop and review until the work passes: one persistent developer agent works on the task, a fresh reviewer judges the working tree after each turn and its feedback goes back to the developer, until a review passes or maxIterations (default 5) reviews failed. Models: the developer-model and reviewer-model aliases (the launching session model unless settings define them).',
  input: REVIEW_LOOP_INPUT,
  output: REVIEW_LOOP_OUTPUT,
  run: (input, context) => runReviewLoop(input as unknown as ReviewLoopInput, context),
});
