/**
 * Loads ses (its globals `lockdown`, `harden`, `Compartment`) through the
 * package's `require` export, its one-file build `dist/ses.cjs`: the same
 * code as its ES module export, which is about 65 files whose resolving and
 * linking cost every sandbox process about 15 ms of CPU more. The worker
 * imports this module first, so ses is evaluated before anything else, as
 * `import 'ses'` was.
 */
import { createRequire } from 'node:module';

createRequire(import.meta.url)('ses');
