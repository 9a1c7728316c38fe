/** Inline value or completion descriptor: shared with the standalone subagents entry (lib/pi-tools/delivery.ts). */
export * from '../../lib/pi-tools/delivery.js';
