// rocketmq-ts dashboard: the page (vanilla JS, no build step). Views by location hash; data from /api/*; charts as SVG.
'use strict';

const COLORS = ['#e8590c', '#1f6feb', '#2f9e44', '#ae3ec9', '#f59f00', '#0c8599', '#c2255c', '#5c940d'];
const view = document.getElementById('view');
let refreshTimer = null;

function esc(v) {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}
const fmtTime = (ms) => (ms > 0 ? new Date(ms).toLocaleString() : '-');
const fmtNum = (n, d = 0) => (n === null || n === undefined ? '-' : Number(n).toFixed(d));
const enc = encodeURIComponent;

async function getJson(url, init) {
  const res = await fetch(url, init);
  const body = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
  return body;
}
const sendJson = (url, method, value) => getJson(url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });

function table(id, headers, rows) {
  const head = headers.map((h) => `<th class="${h.num ? 'num' : ''}">${esc(h.label)}</th>`).join('');
  const body = rows.length === 0
    ? `<tr><td colspan="${headers.length}" class="muted">none</td></tr>`
    : rows.map((r) => `<tr>${r.map((c, i) => `<td class="${headers[i].num ? 'num' : ''}">${c}</td>`).join('')}</tr>`).join('');
  return `<table id="${id}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** A line chart: series [{name, points: [[t, v], ...]}] → SVG (time on x, value on y from 0). */
function lineChart(id, title, series, width = 760, height = 220) {
  const pad = { l: 56, r: 12, t: 22, b: 26 };
  const all = series.flatMap((s) => s.points);
  const t0 = all.length ? Math.min(...all.map((p) => p[0])) : 0;
  const t1 = all.length ? Math.max(...all.map((p) => p[0])) : 1;
  let vmax = all.length ? Math.max(...all.map((p) => p[1])) : 0;
  vmax = vmax <= 0 ? 1 : niceCeil(vmax);
  const x = (t) => pad.l + (t1 === t0 ? (width - pad.l - pad.r) : ((t - t0) / (t1 - t0)) * (width - pad.l - pad.r));
  const y = (v) => height - pad.b - (v / vmax) * (height - pad.t - pad.b);
  let svg = `<svg id="${id}" class="chart" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(title)}">`;
  svg += `<text x="${pad.l}" y="14" style="font-weight:600;fill:#1f2933">${esc(title)}</text>`;
  for (let i = 0; i <= 4; i++) {
    const v = (vmax * i) / 4;
    svg += `<line x1="${pad.l}" x2="${width - pad.r}" y1="${y(v)}" y2="${y(v)}" stroke="#e6e9ed"/>`;
    svg += `<text x="${pad.l - 6}" y="${y(v) + 4}" text-anchor="end">${esc(fmtAxis(v))}</text>`;
  }
  if (all.length) {
    svg += `<text x="${pad.l}" y="${height - 8}">${esc(new Date(t0).toLocaleTimeString())}</text>`;
    svg += `<text x="${width - pad.r}" y="${height - 8}" text-anchor="end">${esc(new Date(t1).toLocaleTimeString())}</text>`;
  } else {
    svg += `<text x="${width / 2}" y="${height / 2}" text-anchor="middle">waiting for samples…</text>`;
  }
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    if (s.points.length === 1) {
      const [t, v] = s.points[0];
      svg += `<circle class="series" data-name="${esc(s.name)}" cx="${x(t)}" cy="${y(v)}" r="4" fill="${color}"/>`;
    } else if (s.points.length > 1) {
      const pts = s.points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
      svg += `<polyline class="series" data-name="${esc(s.name)}" fill="none" stroke="${color}" stroke-width="2.5" points="${pts}"/>`;
    }
  });
  svg += '</svg>';
  const legend = series.map((s, i) => `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${esc(s.name)}</span>`).join('');
  return svg + `<div class="legend">${legend}</div>`;
}
function niceCeil(v) {
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
const fmtAxis = (v) => (v >= 1000 ? `${(v / 1000).toFixed(v >= 10000 ? 0 : 1)}k` : Number.isInteger(v) ? String(v) : v.toFixed(1));

function tpsSeries(samples) {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.brokers)))].sort();
  return names.flatMap((b) => [
    { name: `${b} in`, points: samples.filter((s) => s.brokers[b]).map((s) => [s.t, s.brokers[b].inTps]) },
    { name: `${b} out`, points: samples.filter((s) => s.brokers[b]).map((s) => [s.t, s.brokers[b].outTps]) },
  ]);
}
function lagSeries(samples, only) {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.groups)))].filter((g) => !only || g === only).sort();
  return names.map((g) => ({ name: g, points: samples.filter((s) => g in s.groups).map((s) => [s.t, s.groups[g]]) }));
}

// ---------------------------------------------------------------- views

async function clusterView() {
  const [cluster, series] = await Promise.all([getJson('/api/cluster'), getJson('/api/series')]);
  document.getElementById('namesrv').textContent = `name server ${cluster.namesrvAddr.join(';')}`;
  const rows = cluster.brokers.map((b) => [
    esc(b.cluster), esc(b.brokerName), esc(b.brokerId), esc(b.addr),
    `<span class="badge ${b.brokerId === 0 ? 'master' : 'slave'}">${esc(b.role)}</span>`, esc(b.version),
    fmtNum(b.inTps, 2), fmtNum(b.outTps, 2), fmtNum(b.msgPutTotalTodayNow), fmtNum(b.msgGetTotalTodayNow),
    b.error ? `<span class="error">${esc(b.error)}</span>` : '<span class="ok">ok</span>',
  ]);
  view.innerHTML = `<h2>Cluster</h2>`
    + table('broker-table', [{ label: 'Cluster' }, { label: 'Broker' }, { label: 'BID', num: true }, { label: 'Address' }, { label: 'Role' },
      { label: 'Version' }, { label: 'In TPS', num: true }, { label: 'Out TPS', num: true }, { label: 'Put today', num: true },
      { label: 'Get today', num: true }, { label: 'Status' }], rows)
    + `<h3>Live TPS</h3><div id="tps-chart-box">${lineChart('tps-chart', 'messages per second (in / out)', tpsSeries(series.samples))}</div>`;
  every(series.intervalMillis, async () => {
    const s = await getJson('/api/series');
    const box = document.getElementById('tps-chart-box');
    if (box) box.innerHTML = lineChart('tps-chart', 'messages per second (in / out)', tpsSeries(s.samples));
  });
}

async function topicsView() {
  const topics = await getJson('/api/topics');
  const showSystem = sessionStorage.getItem('showSystemTopics') === '1';
  const filter = sessionStorage.getItem('topicFilter') || '';
  const shown = topics.filter((t) => (showSystem || t.kind === 'NORMAL') && t.topic.toLowerCase().includes(filter.toLowerCase()));
  view.innerHTML = `<h2>Topics</h2>
    <form class="inline" id="create-topic">
      <label>Topic<input name="topic" required pattern="[%|a-zA-Z0-9_\\-]{1,127}"></label>
      <label>Read queues<input name="readQueueNums" type="number" min="1" max="1024" value="8"></label>
      <label>Write queues<input name="writeQueueNums" type="number" min="1" max="1024" value="8"></label>
      <label>Perm<select name="perm"><option value="6">RW</option><option value="4">R</option><option value="2">W</option></select></label>
      <label>Cluster<input name="clusterName" placeholder="all"></label>
      <button type="submit">Create / update</button>
    </form>
    <div id="status"></div>
    <p><label>Filter <input id="topic-filter" value="${esc(filter)}"></label>
       <label><input type="checkbox" id="show-system" ${showSystem ? 'checked' : ''}> retry, DLQ and system topics</label></p>`
    + table('topic-table', [{ label: 'Topic' }, { label: 'Kind' }], shown.map((t) => [`<a href="#/topic/${enc(t.topic)}">${esc(t.topic)}</a>`, esc(t.kind)]));
  document.getElementById('topic-filter').addEventListener('change', (e) => { sessionStorage.setItem('topicFilter', e.target.value); route(); });
  document.getElementById('show-system').addEventListener('change', (e) => { sessionStorage.setItem('showSystemTopics', e.target.checked ? '1' : '0'); route(); });
  document.getElementById('create-topic').addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const status = document.getElementById('status');
    try {
      const r = await sendJson('/api/topic', 'POST', {
        topic: f.get('topic'), readQueueNums: Number(f.get('readQueueNums')), writeQueueNums: Number(f.get('writeQueueNums')),
        perm: Number(f.get('perm')), clusterName: f.get('clusterName') || undefined,
      });
      location.hash = `#/topic/${enc(f.get('topic'))}`;
      status.innerHTML = `<span class="ok">created on ${esc(r.brokers.join(', '))}</span>`;
    } catch (err) {
      status.innerHTML = `<span class="error">${esc(err.message)}</span>`;
    }
  });
}

async function topicView(topic) {
  const t = await getJson(`/api/topic?topic=${enc(topic)}`);
  const total = t.queues.reduce((n, q) => n + q.messages, 0);
  view.innerHTML = `<h2>Topic <span id="topic-name">${esc(t.topic)}</span> <span class="badge">${esc(t.kind)}</span></h2>
    <p>${t.queues.length} queues, ${total} messages stored. <button class="danger" id="delete-topic">Delete topic</button> <span id="status"></span></p>
    <h3>Route</h3>`
    + table('route-table', [{ label: 'Broker' }, { label: 'Read queues', num: true }, { label: 'Write queues', num: true }, { label: 'Perm', num: true }, { label: 'Addresses' }],
      t.queueDatas.map((q) => {
        const b = t.brokers.find((x) => x.brokerName === q.brokerName);
        return [esc(q.brokerName), q.readQueueNums, q.writeQueueNums, q.perm, esc(b ? Object.entries(b.addrs).map(([id, a]) => `${id}=${a}`).join(' ') : '')];
      }))
    + `<h3>Queues</h3>` + (t.statsError ? `<p class="error">${esc(t.statsError)}</p>` : '')
    + table('queue-table', [{ label: 'Broker' }, { label: 'Queue', num: true }, { label: 'Min offset', num: true }, { label: 'Max offset', num: true },
      { label: 'Messages', num: true }, { label: 'Last update' }],
      t.queues.map((q) => [esc(q.brokerName), q.queueId, q.minOffset, q.maxOffset, q.messages, esc(fmtTime(q.lastUpdateTimestamp))]))
    + `<h3>Consumer groups</h3>`
    + table('topic-group-table', [{ label: 'Group' }], t.groups.map((g) => [`<a href="#/group/${enc(g)}">${esc(g)}</a>`]))
    + `<p><a href="#/messages?topic=${enc(t.topic)}">Messages of this topic</a></p>`;
  document.getElementById('delete-topic').addEventListener('click', async () => {
    if (!confirm(`Delete topic ${t.topic} on every broker and name server?`)) return;
    try {
      await getJson(`/api/topic?topic=${enc(t.topic)}`, { method: 'DELETE' });
      location.hash = '#/topics';
    } catch (err) {
      document.getElementById('status').innerHTML = `<span class="error">${esc(err.message)}</span>`;
    }
  });
}

async function groupsView() {
  const [groups, series] = await Promise.all([getJson('/api/groups'), getJson('/api/series')]);
  const showSystem = sessionStorage.getItem('showSystemGroups') === '1';
  const shown = groups.filter((g) => showSystem || !g.system);
  view.innerHTML = `<h2>Consumer groups</h2>
    <p><label><input type="checkbox" id="show-system" ${showSystem ? 'checked' : ''}> system groups</label></p>`
    + table('group-table', [{ label: 'Group' }, { label: 'Members', num: true }, { label: 'Type' }, { label: 'Model' }, { label: 'TPS', num: true }, { label: 'Lag', num: true }],
      shown.map((g) => [`<a href="#/group/${enc(g.group)}">${esc(g.group)}</a>`, fmtNum(g.members), esc(g.consumeType || '-'), esc(g.messageModel || '-'),
        fmtNum(g.consumeTps, 2), fmtNum(g.diffTotal)]))
    + `<h3>Live lag</h3><div id="lag-chart-box">${lineChart('lag-chart', 'messages behind (per group)', lagSeries(series.samples))}</div>`;
  document.getElementById('show-system').addEventListener('change', (e) => { sessionStorage.setItem('showSystemGroups', e.target.checked ? '1' : '0'); route(); });
  every(series.intervalMillis, async () => {
    const s = await getJson('/api/series');
    const box = document.getElementById('lag-chart-box');
    if (box) box.innerHTML = lineChart('lag-chart', 'messages behind (per group)', lagSeries(s.samples));
  });
}

async function groupView(group) {
  const [g, series] = await Promise.all([getJson(`/api/group?group=${enc(group)}`), getJson('/api/series')]);
  const topics = [...new Set([...g.subscriptions.map((s) => s.topic), ...g.queues.map((q) => q.topic)])].filter((t) => !t.startsWith('%RETRY%')).sort();
  const totalLag = g.queues.reduce((n, q) => n + q.lag, 0);
  view.innerHTML = `<h2>Group <span id="group-name">${esc(g.group)}</span></h2>
    <p>${esc(g.consumeType || '')} ${esc(g.messageModel || '')} · TPS ${fmtNum(g.consumeTps, 2)} · lag <b id="total-lag">${totalLag}</b></p>
    <h3>Members</h3>` + (g.connectionError ? `<p class="muted">${esc(g.connectionError)}</p>` : '')
    + table('member-table', [{ label: 'Client id' }, { label: 'Address' }, { label: 'Language' }, { label: 'Version' }],
      g.members.map((m) => [esc(m.clientId), esc(m.clientAddr), esc(m.language), esc(m.version)]))
    + `<h3>Subscriptions</h3>`
    + table('subscription-table', [{ label: 'Topic' }, { label: 'Expression' }, { label: 'Type' }],
      g.subscriptions.map((s) => [`<a href="#/topic/${enc(s.topic)}">${esc(s.topic)}</a>`, esc(s.subString), esc(s.expressionType || 'TAG')]))
    + `<h3>Lag per queue</h3>` + (g.statsError ? `<p class="muted">${esc(g.statsError)}</p>` : '')
    + table('lag-table', [{ label: 'Topic' }, { label: 'Broker' }, { label: 'Queue', num: true }, { label: 'Broker offset', num: true },
      { label: 'Consumer offset', num: true }, { label: 'Lag', num: true }, { label: 'Last consumed' }],
      g.queues.map((q) => [esc(q.topic), esc(q.brokerName), q.queueId, q.brokerOffset, q.consumerOffset, q.lag, esc(fmtTime(q.lastTimestamp))]))
    + `<h3>Reset offset</h3>
    <form class="inline" id="reset-offset">
      <label>Topic<select name="topic">${topics.map((t) => `<option>${esc(t)}</option>`).join('')}</select></label>
      <label>To the first message stored at or after<input name="time" type="datetime-local" step="1" required></label>
      <button type="submit">Reset</button>
    </form><div id="status"></div>
    <h3>Live lag</h3><div id="lag-chart-box">${lineChart('lag-chart', `messages behind (${g.group})`, lagSeries(series.samples, g.group))}</div>`;
  document.getElementById('reset-offset').addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const status = document.getElementById('status');
    try {
      const r = await sendJson('/api/group/reset-offset', 'POST', { group: g.group, topic: f.get('topic'), timestamp: new Date(f.get('time')).getTime() });
      status.innerHTML = `<span class="ok">reset (${esc(r.mode)}): ${esc(r.queues.map((q) => `${q.brokerName}/${q.queueId}→${q.offset}`).join(', '))}</span>`;
    } catch (err) {
      status.innerHTML = `<span class="error">${esc(err.message)}</span>`;
    }
  });
  every(series.intervalMillis, async () => {
    const s = await getJson('/api/series');
    const box = document.getElementById('lag-chart-box');
    if (box) box.innerHTML = lineChart('lag-chart', `messages behind (${g.group})`, lagSeries(s.samples, g.group));
  });
}

function localInput(ms) {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 19);
}

async function messagesView(params) {
  const topic = params.get('topic') || '';
  const now = Date.now();
  const begin = Number(params.get('begin')) || now - 3600_000;
  const end = Number(params.get('end')) || now + 60_000;
  view.innerHTML = `<h2>Messages</h2>
    <form class="inline" id="by-time"><b>By topic and time</b>
      <label>Topic<input name="topic" value="${esc(topic)}" required></label>
      <label>From<input name="begin" type="datetime-local" step="1" value="${localInput(begin)}"></label>
      <label>To<input name="end" type="datetime-local" step="1" value="${localInput(end)}"></label>
      <button type="submit">Search</button></form>
    <form class="inline" id="by-key"><b>By key</b>
      <label>Topic<input name="topic" value="${esc(topic)}" required></label>
      <label>Key<input name="key" value="${esc(params.get('key') || '')}" required></label>
      <button type="submit">Search</button></form>
    <form class="inline" id="by-id"><b>By id</b>
      <label>Message id (offset id or unique key)<input name="id" size="36" required></label>
      <label>Topic (for a unique key)<input name="topic" value="${esc(topic)}"></label>
      <button type="submit">Show</button></form>
    <div id="results"></div>`;
  const results = document.getElementById('results');
  const show = async (url) => {
    results.innerHTML = '<p class="muted">searching…</p>';
    try {
      const list = await getJson(url);
      results.innerHTML = `<p>${list.length} message(s)</p>` + table('message-table',
        [{ label: 'Message id' }, { label: 'Tags' }, { label: 'Keys' }, { label: 'Queue' }, { label: 'Offset', num: true }, { label: 'Stored' }, { label: 'Body' }],
        list.map((m) => [`<a href="#/message/${enc(m.offsetMsgId)}?topic=${enc(m.topic)}">${esc(m.msgId)}</a>`, esc(m.tags), esc(m.keys),
          `${esc(m.brokerName)}/${m.queueId}`, m.queueOffset, esc(fmtTime(m.storeTimestamp)), esc((m.body ?? '(binary)').slice(0, 80))]));
    } catch (err) {
      results.innerHTML = `<p class="error">${esc(err.message)}</p>`;
    }
  };
  document.getElementById('by-time').addEventListener('submit', (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    void show(`/api/messages?topic=${enc(f.get('topic'))}&begin=${new Date(f.get('begin')).getTime()}&end=${new Date(f.get('end')).getTime()}`);
  });
  document.getElementById('by-key').addEventListener('submit', (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    void show(`/api/messages?topic=${enc(f.get('topic'))}&key=${enc(f.get('key'))}`);
  });
  document.getElementById('by-id').addEventListener('submit', (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    location.hash = `#/message/${enc(f.get('id').trim())}${f.get('topic') ? `?topic=${enc(f.get('topic'))}` : ''}`;
  });
  if (topic && params.get('key')) await show(`/api/messages?topic=${enc(topic)}&key=${enc(params.get('key'))}`);
  else if (topic) await show(`/api/messages?topic=${enc(topic)}&begin=${begin}&end=${end}`);
}

async function messageView(id, params) {
  const topic = params.get('topic');
  const r = await getJson(`/api/message?id=${enc(id)}${topic ? `&topic=${enc(topic)}` : ''}`);
  const m = r.message;
  const fields = ['msgId', 'offsetMsgId', 'topic', 'tags', 'keys', 'brokerName', 'queueId', 'queueOffset', 'commitLogOffset', 'reconsumeTimes',
    'storeSize', 'bornHost', 'storeHost', 'sysFlag', 'flag'];
  view.innerHTML = `<h2>Message <span id="message-id">${esc(m.msgId)}</span></h2>
    <dl class="grid" id="message-detail">${fields.map((k) => `<dt>${esc(k)}</dt><dd data-field="${esc(k)}">${esc(m[k])}</dd>`).join('')}
      <dt>bornTimestamp</dt><dd>${esc(fmtTime(m.bornTimestamp))}</dd><dt>storeTimestamp</dt><dd>${esc(fmtTime(m.storeTimestamp))}</dd></dl>
    <h3>Properties</h3>`
    + table('property-table', [{ label: 'Key' }, { label: 'Value' }], Object.entries(m.properties).sort().map(([k, v]) => [esc(k), esc(v)]))
    + `<h3>Body (${m.bodySize} bytes)</h3><pre id="message-body">${esc(m.body ?? m.bodyBase64)}</pre>`
    + `<h3>Consumed by</h3>` + (r.trackError ? `<p class="error">${esc(r.trackError)}</p>` : '')
    + table('track-table', [{ label: 'Consumer group' }, { label: 'Track' }, { label: 'Detail' }],
      r.tracks.map((t) => [`<a href="#/group/${enc(t.consumerGroup)}">${esc(t.consumerGroup)}</a>`, esc(t.trackType), esc(t.exceptionDesc || '')]));
}

// ---------------------------------------------------------------- routing

function every(ms, fn) {
  refreshTimer = setInterval(() => { fn().catch(() => undefined); }, Math.max(1000, ms || 5000));
}

async function route() {
  if (refreshTimer) clearInterval(refreshTimer);
  refreshTimer = null;
  const hash = location.hash.replace(/^#\/?/, '') || 'cluster';
  const [pathPart, query] = hash.split('?');
  const params = new URLSearchParams(query || '');
  const [name, ...rest] = pathPart.split('/');
  const arg = decodeURIComponent(rest.join('/'));
  for (const a of document.querySelectorAll('nav a')) {
    const v = a.dataset.view;
    a.classList.toggle('active', v === name || (v === 'topics' && name === 'topic') || (v === 'groups' && name === 'group') || (v === 'messages' && name === 'message'));
  }
  document.body.dataset.view = name;
  delete document.body.dataset.ready;
  view.innerHTML = '<p class="muted">Loading…</p>';
  try {
    switch (name) {
      case 'topics': await topicsView(); break;
      case 'topic': await topicView(arg); break;
      case 'groups': await groupsView(); break;
      case 'group': await groupView(arg); break;
      case 'messages': await messagesView(params); break;
      case 'message': await messageView(arg, params); break;
      default: await clusterView();
    }
  } catch (err) {
    view.innerHTML = `<p class="error" id="view-error">${esc(err.message)}</p>`;
  }
  document.body.dataset.ready = name;
}

window.addEventListener('hashchange', () => { void route(); });
void route();
