/**
 * The host's watchdog over one sandbox process. It judges the script's own
 * progress, never its message traffic: a ping is answered only when the
 * script yields to its event loop, so a script that spins (even one that
 * calls `log()` while spinning) leaves it unanswered; the process is a
 * runaway once it has burned `watchdogMs` of CPU time since that ping
 * (Linux: /proc/<pid>/stat; elsewhere wall time). A process starved by a
 * busy machine burns no CPU and is never judged a runaway. Its resident
 * memory is sampled too: memory outside the V8 heap (ArrayBuffers) is not
 * bounded by the heap ceiling.
 */
import { readFileSync } from 'node:fs';

export interface MonitorLimits {
  readonly watchdogMs: number;
  readonly maxRssMb: number;
}

export type Runaway = 'cpu_watchdog' | 'memory_limit';

/** Ticks of the kernel's CPU clock per second (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;
const SAMPLE_MS = 50;

/** CPU time (ms) of a process, or undefined where /proc cannot tell. */
export function cpuTimeMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Resident memory (MB) of a process, or undefined where /proc cannot tell. */
export function residentMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export class Monitor {
  readonly #pid: number;
  readonly #limits: MonitorLimits;
  readonly #ping: () => void;
  readonly #runaway: (reason: Runaway) => void;
  readonly #timer: NodeJS.Timeout;
  /** When the unanswered ping was sent: CPU time and wall time. */
  #pingCpu: number | undefined;
  #pingAt: number | undefined;
  #lastPing = 0;

  constructor(pid: number, limits: MonitorLimits, ping: () => void, runaway: (reason: Runaway) => void) {
    this.#pid = pid;
    this.#limits = limits;
    this.#ping = ping;
    this.#runaway = runaway;
    this.#timer = setInterval(() => this.#sample(), Math.min(SAMPLE_MS, Math.max(5, Math.floor(limits.watchdogMs / 8))));
    this.#timer.unref();
  }

  pong(): void {
    this.#pingAt = undefined;
    this.#pingCpu = undefined;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #sample(): void {
    const rss = residentMb(this.#pid);
    if (rss !== undefined && rss > this.#limits.maxRssMb) return this.#runaway('memory_limit');
    const now = performance.now();
    if (this.#pingAt === undefined) {
      // Ping a few times per watchdog period; an answered ping costs the script one macrotask.
      if (now - this.#lastPing < this.#limits.watchdogMs / 4) return;
      this.#lastPing = now;
      this.#pingAt = now;
      this.#pingCpu = cpuTimeMs(this.#pid);
      this.#ping();
      return;
    }
    const cpu = this.#pingCpu === undefined ? undefined : cpuTimeMs(this.#pid);
    const spent = cpu === undefined ? now - this.#pingAt : cpu - this.#pingCpu!;
    if (spent > this.#limits.watchdogMs) this.#runaway('cpu_watchdog');
  }
}
