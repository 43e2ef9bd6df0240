// labbot admin: the ask box. Results are built with textContent only (passages are untrusted).
'use strict';
(function () {
  var form = document.getElementById('ask-form');
  if (!form) return;
  var status = document.getElementById('ask-status');
  var box = document.getElementById('ask-result');
  var tbody = document.querySelector('#ask-passages tbody');
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function num(v, digits) {
    return typeof v === 'number' ? (digits ? v.toFixed(digits) : String(v)) : '-';
  }
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var question = form.elements.question.value.trim();
    if (!question) return;
    status.textContent = 'Asking…';
    var t0 = performance.now();
    fetch('/admin/api/ask', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'x-csrf-token': form.getAttribute('data-csrf') },
      body: JSON.stringify({ question: question, channel: form.elements.channel.value }),
    })
      .then(function (res) {
        return res.json().then(function (body) {
          if (!res.ok) throw new Error(body.error || 'HTTP ' + res.status);
          return body;
        });
      })
      .then(function (r) {
        status.textContent = 'Done in ' + Math.round(performance.now() - t0) + ' ms';
        box.hidden = false;
        var flagged = r.citations.filter(function (c) {
          return c.notice;
        });
        document.getElementById('ask-meta').textContent =
          (r.refused ? 'Refused' : 'Answered') + ' by ' + r.model + ' · groups: ' + r.groups.join(', ') +
          ' · ' + r.citations.length + ' citation(s) · ' + Math.round(r.timings.totalMs) + ' ms' +
          (flagged.length ? ' · ⚠️ ' + flagged.length + ' cited source(s) retracted or under an expression of concern' : '');
        var named = document.getElementById('ask-source');
        named.hidden = !r.source;
        named.textContent = r.source
          ? 'Source named in the question: ' + r.source.named.join(' · ') +
            (r.source.restricts
              ? ' → ' + r.source.documents + ' matching document(s)'
              : r.source.unmatched !== undefined
                ? ' → no document’s metadata matches; ' + r.source.lifted + ' document(s) naming it on page 1 or in the file name ranked first'
                : ' (kind lifts passages, does not filter)')
          : '';
        var answer = document.getElementById('ask-answer');
        answer.textContent = r.answer;
        tbody.textContent = '';
        r.passages.forEach(function (p) {
          var tr = el('tr', null, p.label ? 'sent' : '');
          tr.appendChild(el('td', p.rank));
          tr.appendChild(el('td', p.label || ''));
          var doc = el('td');
          doc.appendChild(el('strong', p.title));
          doc.appendChild(el('br'));
          doc.appendChild(el('small', p.doc_id + (p.section ? ' · ' + p.section : ''), 'muted'));
          tr.appendChild(doc);
          tr.appendChild(el('td', num(p.dense_rank), 'num dense'));
          tr.appendChild(el('td', num(p.bm25_rank), 'num bm25'));
          tr.appendChild(el('td', num(p.fused, 3), 'num'));
          tr.appendChild(el('td', num(p.rerank, 3), 'num'));
          var cell = el('td', null, 'text');
          cell.appendChild(el('div', p.text, 'clip'));
          tr.appendChild(cell);
          tbody.appendChild(tr);
        });
      })
      .catch(function (err) {
        status.textContent = 'Error: ' + err.message;
      });
  });
})();
