/** Public API of the run store: on-disk layout, atomic writes, journal, evidence, locks, listing, deletion. */
export {
  EVIDENCE_DIR,
  JOURNAL_FILE,
  LOCK_FILE,
  REPORT_FILE,
  RESULT_FILE,
  SNAPSHOT_FILE,
  SOURCE_FILE,
  TEMP_PREFIX,
  TRASH_PREFIX,
  assertRunId,
  assertSessionId,
  isValidRunId,
  isValidSessionId,
  newRunId,
  projectDirectory,
  projectKey,
  runDirectory,
  runsDirectory,
  sessionsDirectory,
  workflowsRoot,
} from './paths.js';
export { DIR_MODE, FILE_MODE, READ_ONLY_MODE } from './fs-util.js';
export { writeFileAtomic } from './atomic.js';
export { nodeCrypto, randomHex, sha256Hex } from './digest.js';
export { createLockedRunDirectory, createRunDirectory } from './run-dir.js';
export type { CreateRunOptions } from './run-dir.js';
export { readResultText, readRunSource, readSnapshot, writeResult, writeRunReport, writeSnapshot } from './run-files.js';
export type { WrittenFile } from './run-files.js';
export { openJournal, readJournal } from './journal.js';
export type { Journal, JsonRecord, OpenJournalOptions } from './journal.js';
export { writeEvidence } from './evidence.js';
export type { StoredEvidence } from './evidence.js';
export { acquireRunLock, isOwnerAlive, readRunLock } from './lock.js';
export type { LockOwner } from './lock.js';
export { findRun, listRuns } from './list.js';
export type { ListProblem, RunEntry } from './list.js';
export { removeRunLeftovers } from './leftovers.js';
export { checkListedRunDirectory, checkRunDirectory } from './run-check.js';
export type { EntryType } from './run-check.js';
export {
  READ_LIMITS,
  appendRegular,
  checkDirectories,
  checkDirectory,
  damagedEntry,
  entryKind,
  errnoCode,
  isStoreFault,
  makeDirectory,
  readRegular,
  readRegularIfExists,
  removeTree,
  writeFailed,
} from './safe-fs.js';
export { deleteRun, deleteRuns, removeRunDirectory } from './delete.js';
export type { DeleteOptions, DeleteResult, DeleteSkip, DeleteSkipReason } from './delete.js';
export { isTerminalSnapshot, snapshotReferences, snapshotState } from './snapshot-fields.js';
export type { AtomicWriteOptions } from './atomic.js';
