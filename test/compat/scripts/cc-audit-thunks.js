// Claude Code style: literal meta, phases, a fan-out of thunks over args, structured results.
export const meta = {
  name: 'route-audit',
  description: 'Audit route files for missing auth checks',
  phases: [{ title: 'Audit' }, { title: 'Report' }],
};

phase('Audit');
const files = args.files;
const findings = await parallel(
  files.map((file) => () =>
    agent(`Audit ${file} for routes without an auth check.`, {
      label: file,
      schema: { type: 'object', properties: { missing: { type: 'array', items: { type: 'string' } } } },
    }),
  ),
);
phase('Report');
log(`audited ${findings.length} files`);
return { files, findings };
