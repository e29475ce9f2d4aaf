import { ID_CHARS } from '../core/index.ts';
import { renderConversationPage } from './conversation-page.ts';
import type { ConversationEvidence } from './evidence-loader.ts';
import { renderLeaderboardPage } from './leaderboard-page.ts';
import { renderComparePage } from './compare-page.ts';
import { renderFlipsPage } from './flips-page.ts';
import { renderRunsPage } from './runs-page.ts';
import { renderTaskGridPage } from './task-grid.ts';
import { renderTaskPage } from './task-page.ts';
import { navOf } from './leaderboard-page.ts';
import { SAFE_ID, type ReportModel } from './ui-model.ts';
import { taskSlug } from './task-info.ts';

/** A page of the results site, named the same under `/ui/` and in a static export. */
export type SitePage =
  | { readonly kind: 'leaderboard' }
  | { readonly kind: 'tasks' }
  | { readonly kind: 'runs' }
  | { readonly kind: 'compare' }
  | { readonly kind: 'flips' }
  | { readonly kind: 'task'; readonly slug: string }
  | { readonly kind: 'conversation'; readonly id: string };

const TASK_PAGE = /^task-([A-Za-z0-9_.-]{1,160})\.html$/;
const CONV_PAGE = new RegExp(`^conv-(${ID_CHARS})\\.html$`);

/** Parses a page file name (`index.html`, `tasks.html`, `runs.html`, `compare.html`, `flips.html`, `task-<slug>.html`, `conv-<id>.html`); null otherwise. */
export function parsePageName(name: string): SitePage | null {
  if (name === 'index.html' || name === '') return { kind: 'leaderboard' };
  if (name === 'tasks.html') return { kind: 'tasks' };
  if (name === 'runs.html') return { kind: 'runs' };
  if (name === 'compare.html') return { kind: 'compare' };
  if (name === 'flips.html') return { kind: 'flips' };
  const task = TASK_PAGE.exec(name);
  if (task?.[1]) return { kind: 'task', slug: task[1] };
  const conv = CONV_PAGE.exec(name);
  return conv?.[1] ? { kind: 'conversation', id: conv[1] } : null;
}

/** The file name of a page. */
export function pageFileName(page: SitePage): string {
  switch (page.kind) {
    case 'leaderboard':
      return 'index.html';
    case 'tasks':
      return 'tasks.html';
    case 'runs':
      return 'runs.html';
    case 'compare':
      return 'compare.html';
    case 'flips':
      return 'flips.html';
    case 'task':
      return `task-${page.slug}.html`;
    case 'conversation':
      return `conv-${page.id}.html`;
  }
}

/** Every page of a model: the leaderboard, the grid, each task and each conversation with a safe id. */
export function sitePages(model: ReportModel): SitePage[] {
  return [
    { kind: 'leaderboard' },
    { kind: 'tasks' },
    { kind: 'runs' },
    { kind: 'compare' },
    ...(model.flips ? [{ kind: 'flips' } as const] : []),
    ...[...model.tasksBySlug.keys()].map((slug) => ({ kind: 'task', slug }) as const),
    ...[...model.conversations.keys()].filter((id) => SAFE_ID.test(id)).map((id) => ({ kind: 'conversation', id }) as const),
  ];
}

/**
 * Renders one page; a conversation page asks `evidence` for its snapshot evidence. Null when the
 * page names no task or conversation of the model.
 */
export async function renderSitePage(model: ReportModel, page: SitePage, evidence: (id: string) => Promise<ConversationEvidence>): Promise<string | null> {
  switch (page.kind) {
    case 'leaderboard':
      return renderLeaderboardPage(model);
    case 'tasks':
      return renderTaskGridPage(model);
    case 'runs':
      return renderRunsPage(model);
    case 'compare':
      return renderComparePage(model);
    case 'flips':
      return renderFlipsPage(model);
    case 'task':
      return renderTaskPage(model, page.slug);
    case 'conversation': {
      const v = model.conversations.get(page.id);
      if (!v) return null;
      const taskInfo = v.task_id ? (model.taskInfo.get(taskSlug(v.pack, v.task_id)) ?? null) : null;
      return renderConversationPage(v, await evidence(page.id), { entry: model.entryOf.get(v.conversation_id) ?? null, taskInfo, nav: navOf(model) });
    }
  }
}
