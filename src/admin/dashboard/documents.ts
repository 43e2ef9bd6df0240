// The documents part of the dashboard: one document's page (GET /doc), each metadata field with
// where it came from.
import { Router } from 'express';
import { documentPage, documentView } from '../views/document.ts';
import { messagePage } from '../views/pages.ts';
import type { DashboardContext } from './context.ts';
import { sendHtml } from './respond.ts';

export function documentsRouter({ app }: DashboardContext): Router {
  const router = Router();
  router.get('/doc', (req, res) => {
    const id = typeof req.query.id === 'string' ? req.query.id : '';
    const doc = id ? app.catalog.doc(id) : undefined;
    if (!doc) return sendHtml(res, 404, messagePage('No such document', `No indexed document has the id "${id.slice(0, 200)}".`));
    sendHtml(res, 200, documentPage(documentView(doc)));
  });
  return router;
}
