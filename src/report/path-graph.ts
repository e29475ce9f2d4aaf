import type { Blueprint } from '../packs/index.ts';
import type { HandoffGateResult } from '../scoring/index.ts';
import { html, type SafeHtml } from './html.ts';

interface Edge {
  readonly from: string;
  readonly to: string;
}

interface Node {
  readonly name: string;
  readonly x: number;
  readonly y: number;
}

const NODE_W = 130;
const NODE_H = 36;
const COL = 200;
const ROW = 70;
const PAD = 24;

/** Every declared handoff edge of the blueprint (agent → handoff_to). */
export function blueprintEdges(bp: Blueprint): Edge[] {
  return bp.agents.flatMap((a) => a.tools.flatMap((t) => (t.handoff && t.handoff_to ? [{ from: a.name, to: t.handoff_to }] : [])));
}

/** The expected node sequence: the entry agent, then each hop tool's target (the current agent's tool preferred). */
export function expectedNodes(bp: Blueprint, entry: string, hops: readonly string[]): string[] {
  const nodes = [entry];
  for (const hop of hops) {
    const current = nodes[nodes.length - 1];
    const own = bp.agents.find((a) => a.name === current)?.tools.find((t) => t.name === hop && t.handoff_to);
    const any = bp.agents.flatMap((a) => a.tools).find((t) => t.name === hop && t.handoff_to);
    nodes.push(own?.handoff_to ?? any?.handoff_to ?? hop);
  }
  return nodes;
}

/** Columns by hop distance from the entry agent; unreachable agents go in a last column. */
function layout(bp: Blueprint, extra: readonly string[]): Map<string, Node> {
  const names = [...new Set([...bp.agents.map((a) => a.name), ...extra])];
  const edges = blueprintEdges(bp);
  const depth = new Map<string, number>([[names[0] ?? '', 0]]);
  const queue = [names[0] ?? ''];
  while (queue.length) {
    const at = queue.shift() as string;
    for (const e of edges) {
      if (e.from !== at || depth.has(e.to)) continue;
      depth.set(e.to, (depth.get(at) ?? 0) + 1);
      queue.push(e.to);
    }
  }
  const last = Math.max(0, ...depth.values()) + 1;
  const perColumn = new Map<number, number>();
  const out = new Map<string, Node>();
  for (const name of names) {
    const col = depth.get(name) ?? last;
    const row = perColumn.get(col) ?? 0;
    perColumn.set(col, row + 1);
    out.set(name, { name, x: PAD + col * COL, y: PAD + row * ROW });
  }
  return out;
}

function edgePath(a: Node, b: Node, offset: number): string {
  if (b.x > a.x) {
    const [sx, sy, tx, ty] = [a.x + NODE_W, a.y + NODE_H / 2 + offset, b.x, b.y + NODE_H / 2 + offset];
    return `M${sx},${sy} C${sx + 50},${sy} ${tx - 50},${ty} ${tx},${ty}`;
  }
  const [sx, sy, tx, ty] = [a.x + NODE_W / 2 + offset, a.y + NODE_H, b.x + NODE_W / 2 + offset, b.y + NODE_H];
  return `M${sx},${sy} C${sx},${sy + 45 + offset} ${tx},${ty + 45 + offset} ${tx},${ty}`;
}

function pathEdges(nodes: readonly string[]): Edge[] {
  return nodes.slice(1).map((to, i) => ({ from: nodes[i] ?? '', to }));
}

function drawn(edges: readonly Edge[], pos: ReadonlyMap<string, Node>, cls: string, offset: number, prefix: string): SafeHtml[] {
  return edges.flatMap((e, i) => {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (!a || !b) return [];
    const d = edgePath(a, b, offset);
    const mx = (a.x + b.x + NODE_W) / 2;
    const my = (a.y + b.y + NODE_H) / 2 + offset * 3;
    const label = prefix ? html`<text x="${mx}" y="${my}" font-size="11" class="${cls}-label">${prefix}${i + 1}</text>` : '';
    return [html`<path class="${cls}" d="${d}" marker-end="url(#arrow-${cls})"><title>${prefix ? `${prefix}${i + 1}: ` : ''}${e.from} → ${e.to}</title></path>${label}`];
  });
}

function defs(): SafeHtml {
  const marker = (cls: string, colour: string): SafeHtml => html`<marker id="arrow-${cls}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="${colour}"/></marker>`;
  return html`<defs>${marker('declared', '#8c959f')}${marker('expected', '#1a7f37')}${marker('actual', '#0969da')}</defs><style>.declared{fill:none;stroke:#d0d7de;stroke-width:1.5}.expected{fill:none;stroke:#1a7f37;stroke-width:3;stroke-dasharray:7 4}.actual{fill:none;stroke:#0969da;stroke-width:2.5}.expected-label{fill:#1a7f37}.actual-label{fill:#0969da}</style>`;
}

/** The pack's graph with the expected route (dashed green) and, when given, the actual one (solid blue). */
export function routeSvg(bp: Blueprint, entry: string, expected: readonly string[], actual: readonly string[] | null): SafeHtml {
  const pos = layout(bp, [...expected, ...(actual ?? [])]);
  const visited = new Set(actual ?? []);
  const wanted = new Set(expected);
  const width = Math.max(...[...pos.values()].map((n) => n.x)) + NODE_W + PAD;
  const height = Math.max(...[...pos.values()].map((n) => n.y)) + NODE_H + PAD + 50;
  const nodes = [...pos.values()].map((n) => {
    const fill = visited.has(n.name) ? '#ddf4ff' : wanted.has(n.name) ? '#dafbe1' : '#fff';
    const stroke = wanted.has(n.name) && !visited.has(n.name) ? '#1a7f37' : '#57606a';
    return html`<g class="node" data-agent="${n.name}"><rect x="${n.x}" y="${n.y}" width="${NODE_W}" height="${NODE_H}" rx="6" fill="${fill}" stroke="${stroke}" stroke-width="${n.name === entry ? 2.5 : 1.2}"/><text x="${n.x + NODE_W / 2}" y="${n.y + NODE_H / 2 + 4}" font-size="12" text-anchor="middle">${n.name}</text></g>`;
  });
  return html`<svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="handoff graph">${defs()}${drawn(blueprintEdges(bp), pos, 'declared', 0, '')}${drawn(pathEdges(expected), pos, 'expected', 5, 'E')}${actual ? drawn(pathEdges(actual), pos, 'actual', -5, 'A') : ''}${nodes}</svg>`;
}

/** The expected route of a task on its pack's graph (the task page). */
export function renderExpectedRoute(bp: Blueprint | null, hops: readonly string[]): SafeHtml {
  if (!bp) return html`<p class="muted">The pack's blueprint is not available, so the graph is not drawn. Expected hops: <code>${hops.join(' > ') || '(none)'}</code></p>`;
  const entry = bp.agents[0]?.name ?? '?';
  const nodes = expectedNodes(bp, entry, hops);
  return html`<div class="graph">${routeSvg(bp, entry, nodes, null)}<p class="legend small"><span style="color:#1a7f37">– – expected route (E1…)</span><span>grey: declared edges; bold box: entry agent</span></p><p class="small">${nodes.join(' → ')}${hops.length ? ` (${hops.join(', ')})` : ' (no handoff)'}</p></div>`;
}

/** Expected and actual hops side by side, aligned, the first divergence marked. */
export function renderPathsSideBySide(h: HandoffGateResult, bp: Blueprint | null): SafeHtml {
  const entry = h.agent_sequence[0] ?? bp?.agents[0]?.name ?? '?';
  const expected = bp ? expectedNodes(bp, entry, h.expected_path) : [entry, ...h.expected_path];
  const actual = h.agent_sequence.length ? h.agent_sequence : [entry];
  const rows = Math.max(expected.length, actual.length);
  let diverged = false;
  const cells = Array.from({ length: rows }, (_, i) => {
    const e = expected[i];
    const a = actual[i];
    const same = e !== undefined && e === a;
    const first = !same && !diverged;
    if (!same) diverged = true;
    const hopE = i > 0 ? (h.expected_path[i - 1] ?? '') : 'entry';
    const hopA = i > 0 ? (h.actual_path[i - 1] ?? '') : 'entry';
    return html`<tr class="${same ? 'same' : first ? 'diverges' : 'differs'}"><td>${i}</td><td class="exp-side">${e === undefined ? html`<span class="muted">—</span>` : html`<b>${e}</b> <span class="small muted">${hopE}</span>`}</td><td class="act-side">${a === undefined ? html`<span class="muted">—</span>` : html`<b>${a}</b> <span class="small muted">${hopA}</span>`}</td><td>${same ? html`<span class="ok">=</span>` : first ? html`<b class="bad">first divergence</b>` : html`<span class="bad">≠</span>`}</td></tr>`;
  });
  return html`<table class="paths-side"><thead><tr><th>#</th><th>expected path</th><th>actual path</th><th></th></tr></thead><tbody>${cells}</tbody></table>`;
}

/** Expected vs actual handoff path drawn on the pack's graph (inline SVG), with the gate's verdict. */
export function renderPathGraph(h: HandoffGateResult | null, bp: Blueprint | null): SafeHtml {
  if (!h) return html`<p class="muted">Handoff gate not run (conversation not scored).</p>`;
  const entry = h.agent_sequence[0] ?? bp?.agents[0]?.name ?? '?';
  const summary = html`<p><span class="badge ${h.pass ? 'pass' : 'fail'}">handoff ${h.verdict}</span> expected <code>${h.expected_path.join(' > ') || '(none)'}</code> · actual <code>${h.actual_path.join(' > ') || '(none)'}</code>${h.first_unmatched ? html` · <b class="bad">first unmatched hop: ${h.first_unmatched}</b>` : ''}${h.transfer_refusals.length ? html` · refused transfers: ${h.transfer_refusals.map((r) => `${r.name}@${r.agent}`).join(', ')}` : ''}</p>`;
  const side = renderPathsSideBySide(h, bp);
  if (!bp) return html`<div class="graph">${summary}${side}<p class="muted">The pack's blueprint is not available, so the graph is not drawn.</p></div>`;
  const expected = expectedNodes(bp, entry, h.expected_path);
  return html`<div class="graph">${summary}<div class="paths-row">${side}<div class="graph-svg">${routeSvg(bp, entry, expected, h.agent_sequence)}</div></div><p class="legend small"><span style="color:#1a7f37">– – expected path (E1…)</span><span style="color:#0969da">—— actual path (A1…)</span><span>grey: declared edges; bold box: entry agent; blue fill: visited</span></p></div>`;
}
