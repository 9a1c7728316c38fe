/** Content-addressed evidence: `evidence/<sha256>.txt`, written once and never changed. */
import path from 'node:path';
import { WorkflowError, messageOf } from '../errors.js';
import { writeFileAtomic } from './atomic.js';
import { sha256Hex } from './digest.js';
import { DIR_MODE, FILE_MODE } from './fs-util.js';
import { EVIDENCE_DIR } from './paths.js';
import { READ_LIMITS, checkDirectory, errnoCode, makeDirectory, readRegularIfExists, writeFailed } from './safe-fs.js';

export interface StoredEvidence {
  /** SHA-256 of the UTF-8 bytes, lowercase hex; also the file name. */
  readonly sha256: string;
  /** Absolute path of the evidence file. */
  readonly path: string;
  readonly bytes: number;
}

/**
 * Stores `text` and returns where it is. Storing the same text again reuses
 * the file; a file under that name with other bytes was modified, which is refused.
 */
export function writeEvidence(runDir: string, text: string): StoredEvidence {
  const bytes = Buffer.from(text, 'utf8');
  const sha256 = sha256Hex(bytes);
  const dir = path.resolve(runDir, EVIDENCE_DIR);
  const file = path.join(dir, `${sha256}.txt`);
  ensureEvidenceDir(runDir, dir);
  const existing = readExisting(file);
  if (existing === undefined) {
    writeFileAtomic(file, bytes, FILE_MODE, { within: runDir });
  } else if (!existing.equals(bytes)) {
    throw new WorkflowError('INTERNAL_ERROR', `evidence artifact ${file} was modified: its bytes no longer match its SHA-256`, {
      path: file,
      sha256,
    });
  }
  return { sha256, path: file, bytes: bytes.byteLength };
}

function readExisting(file: string): Buffer | undefined {
  try {
    return readRegularIfExists(file, READ_LIMITS.evidence);
  } catch (error) {
    if (error instanceof WorkflowError) throw error;
    throw new WorkflowError('INTERNAL_ERROR', `cannot read evidence ${file}: ${messageOf(error)}`, { path: file }, {
      cause: error,
    });
  }
}

/** Creates only `evidence/` itself: a vanished run directory must not be recreated by a late write. */
function ensureEvidenceDir(runDir: string, dir: string): void {
  try {
    checkDirectory(runDir);
    makeDirectory(dir, DIR_MODE);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      throw new WorkflowError('RUN_NOT_FOUND', `run ${path.basename(runDir)} does not exist`, { reason: 'missing', path: runDir });
    }
    throw writeFailed(dir, error);
  }
}
