import { describe, expect, it } from 'vitest';

import { SHORT } from './config.js';
import { formatReport } from './report.js';
import { runSoak } from './soak.js';

describe('the short chaos soak (pnpm soak runs the full one)', () => {
  it('converges after a storm of writes and faults of every kind, with nothing escaping', async () => {
    const report = await runSoak(SHORT);
    const text = formatReport(report);
    console.log(text);
    expect(
      Object.values(report.injected).every((n) => n > 0),
      text,
    ).toBe(true);
    expect(report.thrownSync > 0 && report.hung > 0, text).toBe(true); // issue 19: both among the faults
    expect(report.verdict, text).toMatchObject({ ok: true, stores: [], stale: [], overlaps: 0 });
    expect(report.errors, text).toEqual({ observable: 0, unhandled: 0, terminal: 0 });
    expect(report.afterIdle, text).toBe(0);
    expect(report.ok, text).toBe(true);
  }, 300_000);
});
