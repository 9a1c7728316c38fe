// A workflow extension that brings its own role and a function using it,
// loaded as a Pi extension:
//
//   pi -e ./examples/role-extension/index.js      (or list it in a package's pi.extensions)
//
// registerRoleContribution adds ./roles (resolved from this module) to the
// role set of the roles entry: the role `changelog-writer` is then available
// to every agent call (`role: 'changelog-writer'`), below global and trusted
// project roles of the same name. The function `changelogEntry` drafts a
// changelog entry with an agent in that role. Without the roles entry the
// role option means nothing and the agent runs with its default tools.
import { registerWorkflowExtension } from 'pi-extensible-workflows/kernel';
import { registerRoleContribution } from 'pi-extensible-workflows/roles';

const EXTENSION = { headline: 'Changelog helper', version: '1.0.0' };

export default function changelogHelper(pi) {
  // Both registrations happen inside the factory: the registries freeze at session start.
  registerRoleContribution(pi, { owner: import.meta.url, roleDirectories: ['roles'], extension: EXTENSION });
  registerWorkflowExtension({
    ...EXTENSION,
    source: import.meta.url,
    functions: {
      changelogEntry: {
        description: 'Drafts the CHANGELOG.md entry of the uncommitted changes for a version, with an agent in the changelog-writer role.',
        input: {
          type: 'object',
          properties: { version: { type: 'string', minLength: 1 } },
          required: ['version'],
          additionalProperties: false,
        },
        output: { type: 'string' },
        run: ({ version }, context) =>
          context.agent(context.prompt('Draft the CHANGELOG.md entry for version {version} from the uncommitted changes.', { version }), {
            role: 'changelog-writer',
            label: 'changelog',
          }),
      },
    },
  });
}
