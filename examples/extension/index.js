// An extension that registers the workflow function `brief`: an agent writes
// a short brief on a topic for an audience. Install the folder in Pi
// (`pi install ./examples/extension`, with pi-extensible-workflows installed
// beside it) and run it from the shell:
//
//   wfcli run brief -- --topic "durable workflows" --audience engineers --max-words 60
//
// or from Pi, in a workflow script: `return await brief({ topic: 'durable workflows' });`
import { registerWorkflowExtension } from 'pi-extensible-workflows';

export default function exampleExtension() {
  registerWorkflowExtension({
    version: '1.0.0',
    headline: 'Example: brief',
    // Where the registration comes from: wfcli trusts it even when other extensions fail to load.
    source: import.meta.url,
    functions: {
      brief: {
        description: 'An agent writes a short brief on a topic for an audience.',
        input: {
          type: 'object',
          required: ['topic'],
          additionalProperties: false,
          properties: {
            topic: { type: 'string', minLength: 1 },
            audience: { type: 'string', minLength: 1 },
            maxWords: { type: 'integer', minimum: 10, maximum: 500 },
          },
        },
        output: {
          type: 'object',
          required: ['topic', 'audience', 'brief'],
          additionalProperties: false,
          properties: { topic: { type: 'string' }, audience: { type: 'string' }, brief: { type: 'string' } },
        },
        async run(input, context) {
          const audience = input.audience ?? 'engineers';
          context.phase('brief');
          const task = context.prompt('Write a brief of at most {words} words about {topic} for {audience}.', {
            words: input.maxWords ?? 100,
            topic: input.topic,
            audience,
          });
          const brief = await context.agent(task, { label: 'writer' });
          return { topic: input.topic, audience, brief };
        },
      },
    },
  });
}
