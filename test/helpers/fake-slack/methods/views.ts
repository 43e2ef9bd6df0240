// views.publish: a `home` view of at most 100 blocks for a user id; block rules as for messages
// (checked 50 at a time, a message's maximum), and headers in plain text of at most 150 characters.
import { refuse, type Method } from '../args.ts';
import { validateBlocks } from '../blocks.ts';

const VIEW_MAX_BLOCKS = 100;
const HEADER_TEXT_MAX = 150;

export function viewMethods(): Record<string, Method> {
  return {
    'views.publish': (body) => {
      if (typeof body.user_id !== 'string' || !/^[UW][A-Z0-9]+$/.test(body.user_id)) return refuse('invalid_arguments');
      const view = (typeof body.view === 'string' ? JSON.parse(body.view) : body.view) as { type?: string; blocks?: unknown[] } | undefined;
      if (view?.type !== 'home' || !Array.isArray(view.blocks)) return refuse('invalid_arguments');
      if (view.blocks.length > VIEW_MAX_BLOCKS) return refuse('invalid_blocks');
      for (let i = 0; i < view.blocks.length; i += 50) {
        const bad = validateBlocks(view.blocks.slice(i, i + 50));
        if (bad) return refuse(bad);
      }
      for (const b of view.blocks as { type: string; text?: { type?: string; text?: string } }[]) {
        if (b.type === 'header' && (b.text?.type !== 'plain_text' || !b.text.text || b.text.text.length > HEADER_TEXT_MAX))
          return refuse('invalid_blocks');
      }
      return { ok: true, view: { id: 'V0HOME', type: 'home', ...view } };
    },
  };
}
