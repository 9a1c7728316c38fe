// A small workflow: shell commands in parallel, evidence, a phase and a log.
// Run it with: npx wfcli run --script examples/hello.js --input '{"who":"world"}'
phase('survey');
const facts = await parallel('survey', {
  node: () => shell('node --version'),
  files: () => shell('ls examples | wc -l'),
});
const version = facts.node.stdout.trim();
log(`node ${version}, ${facts.files.stdout.trim()} example file(s)`);

phase('report');
const who = args?.who ?? 'workflow';
const report = prompt('Hello, {who}! Node {version} ran this workflow.', { who, version });
const stored = await evidence({ report, facts });
return { report, evidence: stored.ref, bytes: stored.bytes };
