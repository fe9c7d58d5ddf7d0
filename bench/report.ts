// Turns the scenarios' measured figures into the printed table, the target verdicts and the
// JSON written to bench/results/latest.json.
import type { LoadResult } from './load.js';
import type { Scenario } from './scenarios.js';

export interface ScenarioResult extends LoadResult {
  name: string;
  title: string;
  connections: number;
  /** The statuses the scenario accepts. */
  expect: number[];
  /** Responses whose status the scenario does not accept (a 401 or 429 is fast and proves nothing). */
  unexpected: number;
}

export interface Verdict {
  scenario: string;
  target: string;
  measured: string;
  met: boolean;
}

export function checkTargets(scenarios: Scenario[], results: ScenarioResult[]): Verdict[] {
  const byName = new Map(results.map((r) => [r.name, r]));
  const verdicts: Verdict[] = [];
  for (const s of scenarios) {
    const r = byName.get(s.name);
    if (!r || (!s.targets && !s.verify)) continue;
    // A scenario that answered nothing measured nothing: no target is met by it.
    const valid = r.unexpected === 0 && r.errors === 0 && r.requests > 0;
    // A race's answers are its result (issue 3: all 200 or 409, none 5xx): always a row.
    if (!valid || s.verify) {
      const statuses = Object.entries(r.statusCounts)
        .map(([code, n]) => `${n} x ${code}`)
        .join(', ');
      verdicts.push({
        scenario: s.name,
        target: `only ${r.expect.join(' or ')}`,
        measured: `${statuses || 'no answers'}; ${r.errors} errors`,
        met: valid,
      });
    }
    if (!s.targets) continue;
    const share = s.targets.minShareOf;
    const base = share && byName.get(share.scenario);
    if (share && base) {
      const ratio = r.requestsPerSecond / base.requestsPerSecond;
      verdicts.push({
        scenario: s.name,
        target: `req/s >= ${pct(share.share)} of ${share.scenario}`,
        measured: pct(ratio),
        met: valid && ratio >= share.share,
      });
    }
    const cpu = s.targets.maxCpuOf;
    const cpuBase = cpu && byName.get(cpu.scenario);
    if (cpu && cpuBase) {
      const times = r.serverCpuUsPerRequest / cpuBase.serverCpuUsPerRequest;
      verdicts.push({
        scenario: s.name,
        target: `CPU/req <= ${cpu.times}x ${cpu.scenario}'s`,
        measured: `${times.toFixed(1)}x`,
        met: valid && times <= cpu.times,
      });
    }
    if (s.targets.maxP99Ms !== undefined) {
      verdicts.push({
        scenario: s.name,
        target: `p99 < ${s.targets.maxP99Ms} ms`,
        measured: `${r.p99Ms} ms`,
        met: valid && r.p99Ms < s.targets.maxP99Ms,
      });
    }
  }
  return verdicts;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}

export function formatReport(
  results: ScenarioResult[],
  verdicts: Verdict[],
  ceiling: string,
  header: string,
  extra: string[] = [],
): string {
  const base = results.find((r) => r.name === ceiling);
  const rows = [
    [
      'scenario',
      'conns',
      'req/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      `vs ${ceiling}`,
      'CPU µs/req',
      `x ${ceiling} CPU`,
      'requests',
      'unexpected',
    ],
  ];
  for (const r of results) {
    rows.push([
      r.name,
      String(r.connections),
      String(r.requestsPerSecond),
      String(r.p50Ms),
      String(r.p99Ms),
      String(r.maxMs),
      base ? pct(r.requestsPerSecond / base.requestsPerSecond) : '-',
      String(r.serverCpuUsPerRequest),
      base && base.serverCpuUsPerRequest > 0 ? (r.serverCpuUsPerRequest / base.serverCpuUsPerRequest).toFixed(1) : '-',
      String(r.requests),
      String(r.unexpected + r.errors),
    ]);
  }
  const out = [header, '', table(rows), ''];
  for (const r of results) out.push(`  ${r.name}: ${r.title}`);
  out.push(
    "  CPU µs/req: the server process's CPU time per request over the measured run (steadier than req/s on a shared machine)",
  );
  out.push(...extra);
  if (verdicts.length) {
    out.push(
      '',
      table([
        ['scenario', 'target', 'measured', 'met'],
        ...verdicts.map((v) => [v.scenario, v.target, v.measured, v.met ? 'yes' : 'NO']),
      ]),
    );
  }
  return `${out.join('\n')}\n`;
}
