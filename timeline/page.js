// The timeline's script: it draws only the steps in view (a run of
// thousands of steps stays fast) and shows records and objects on demand.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('data').textContent);
  var $ = function (id) { return document.getElementById(id); };
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c];
    });
  }

  var recs = D.records, marks = D.marks, lanes = D.lanes, objs = D.objects;
  var lastStep = recs.length ? recs[recs.length - 1].s : 0;
  var firstStep = recs.length ? recs[0].s : 0;
  var recByStep = {};
  recs.forEach(function (r, i) { recByStep[r.s] = i; });
  // byLane holds each lane's marks of one step, in step order; spans (a
  // lag, a held event, a partition, a controller down) are few and kept
  // apart, since one may start before the view and end in it.
  var byLane = lanes.map(function () { return []; });
  var spans = lanes.map(function () { return []; });
  var byRecord = recs.map(function () { return []; });
  marks.forEach(function (m, i) {
    (m.e ? spans : byLane)[m.l].push(i);
    byRecord[m.r].push(i);
  });
  var V = D.violation;
  var violationRecord = V && recByStep[V.Step] !== undefined ? recByStep[V.Step] : -1;

  var scroller = $('scroller'), canvas = $('canvas'), ruler = $('ruler');
  var zooms = [0.25, 0.5, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32];
  var px = 4, selMark = -1, selObj = -1, cap = 24, showAll = {};

  function x(step) { return (step - firstStep) * px + 4; }
  // Room after the last step for the label of a tick near it.
  function width() { return (lastStep - firstStep + 1) * px + 48; }

  // Lanes, labels, shading and the violation line.
  var laneEls = [];
  var labels = $('labels');
  lanes.forEach(function (l, i) {
    var lab = document.createElement('div');
    lab.className = 'lk-' + l.kind;
    lab.textContent = l.name;
    lab.title = l.kind + ': ' + l.name;
    labels.appendChild(lab);
    var el = document.createElement('div');
    el.className = 'lane';
    el.dataset.lane = l.name;
    el.dataset.kind = l.kind;
    canvas.appendChild(el);
    laneEls.push(el);
  });
  var faultPhase = document.createElement('div');
  faultPhase.className = 'phase fault-phase';
  faultPhase.title = 'fault phase';
  var quietPhase = document.createElement('div');
  quietPhase.className = 'phase quiet-phase';
  quietPhase.title = 'quiescence: faults and actors stopped, everything healable healed';
  canvas.insertBefore(quietPhase, canvas.firstChild);
  canvas.insertBefore(faultPhase, canvas.firstChild);
  var vline = null;
  if (V) {
    vline = document.createElement('div');
    vline.className = 'vline';
    vline.id = 'vline';
    canvas.appendChild(vline);
  }

  function layout() {
    canvas.style.width = width() + 'px';
    var quiet = D.quietFrom > 0 ? D.quietFrom : lastStep + 1;
    faultPhase.style.left = x(firstStep) + 'px';
    faultPhase.style.width = Math.max(0, x(quiet) - x(firstStep)) + 'px';
    quietPhase.style.display = D.quietFrom > 0 ? '' : 'none';
    quietPhase.style.left = x(quiet) + 'px';
    quietPhase.style.width = Math.max(0, x(lastStep + 1) - x(quiet)) + 'px';
    if (vline) { vline.style.left = (x(V.Step) + Math.max(px, 3) / 2 - 1) + 'px'; }
    $('scale').textContent = lastStep + ' steps, ' + (px >= 1 ? px + ' px per step' : (1 / px) + ' steps per px');
  }

  // firstAt returns the position in list (mark indices sorted by step) of
  // the first mark at or after step s.
  function firstAt(list, s) {
    var lo = 0, hi = list.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (marks[list[mid]].s < s) { lo = mid + 1; } else { hi = mid; }
    }
    return lo;
  }

  function tickEvery() {
    var want = 80 / px, steps = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000];
    for (var i = 0; i < steps.length; i++) { if (steps[i] >= want) { return steps[i]; } }
    return 20000;
  }

  var drawn = '';
  function draw() {
    var left = scroller.scrollLeft, w = scroller.clientWidth || 800;
    var s0 = firstStep + Math.floor((left - 4) / px) - 2;
    var s1 = firstStep + Math.ceil((left + w) / px) + 2;
    // Nothing to do when the view and the selection are as drawn: marks
    // keep their elements (and a pointer on them stays valid).
    var key = [s0, s1, px, selMark, selObj].join();
    if (key === drawn) { return; }
    drawn = key;
    var mw = Math.max(px - 1, 3);
    function markHTML(i, mx, w) {
      var m = marks[i], cls = 'mark ' + m.c;
      if (i === selMark) { cls += ' sel'; }
      if (selObj >= 0 && m.o === selObj) { cls += ' of-obj'; }
      if (m.r === violationRecord) { cls += ' violation'; }
      return '<div class="' + cls + '" data-i="' + i + '" data-step="' + m.s + '" style="left:' + mx +
        'px;width:' + w + 'px" title="' + esc(recs[m.r].line.slice(0, 400)) + '"></div>';
    }
    for (var l = 0; l < lanes.length; l++) {
      var list = byLane[l], html = '', lastX = -10;
      spans[l].forEach(function (i) {
        var m = marks[i];
        if (m.s <= s1 && m.e >= s0) { html += markHTML(i, x(m.s), Math.max((m.e - m.s + 1) * px, 3)); }
      });
      for (var k = firstAt(list, s0); k < list.length; k++) {
        var i = list[k], m = marks[i];
        if (m.s > s1) { break; }
        var mx = x(m.s);
        // Below a pixel per step, marks that would fall on one another
        // are drawn once; a selected or flagged mark always is.
        if (px < 1 && mx - lastX < 2 && i !== selMark && m.r !== violationRecord) { continue; }
        lastX = mx;
        html += markHTML(i, mx, mw);
      }
      laneEls[l].innerHTML = html;
    }
    var every = tickEvery(), html2 = '';
    for (var s = Math.max(firstStep, Math.ceil(s0 / every) * every); s <= Math.min(s1, lastStep); s += every) {
      var r = recByStep[s];
      html2 += '<div class="tick" style="left:' + x(s) + 'px">#' + s + '<br><span class="t">t=' +
        (r !== undefined ? recs[r].t : '') + '</span></div>';
    }
    ruler.innerHTML = html2;
  }

  var pending = false;
  function redraw() {
    if (pending) { return; }
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(); });
  }
  scroller.addEventListener('scroll', redraw);
  window.addEventListener('resize', redraw);

  function scrollToStep(s) {
    scroller.scrollLeft = Math.max(0, x(s) - scroller.clientWidth / 2);
  }
  function centerStep() {
    return firstStep + Math.round((scroller.scrollLeft + scroller.clientWidth / 2) / px);
  }
  function zoomTo(z) {
    var c = centerStep();
    px = z;
    layout();
    scrollToStep(c);
    draw();
  }
  function fit() {
    var avail = (scroller.clientWidth || 800) - 16, n = lastStep - firstStep + 1, z = zooms[0];
    for (var i = 0; i < zooms.length; i++) { if (zooms[i] * n <= avail) { z = zooms[i]; } }
    return z;
  }
  $('zoom-in').onclick = function () {
    for (var i = 0; i < zooms.length; i++) { if (zooms[i] > px) { zoomTo(zooms[i]); return; } }
  };
  $('zoom-out').onclick = function () {
    for (var i = zooms.length - 1; i >= 0; i--) { if (zooms[i] < px) { zoomTo(zooms[i]); return; } }
  };
  $('zoom-fit').onclick = function () { zoomTo(fit()); };

  // The record panel: the full record, the object it was about as a diff
  // against the object's previous version, and each write's diff.
  function diffTable(o, v, all) {
    var vs = objs[o].v, cur = vs[v], prev = v > 0 ? vs[v - 1] : null;
    var a = prev && !prev.del ? (prev.f || {}) : {}, b = cur.del ? {} : (cur.f || {});
    if (cur.del) {
      // A delete: the object as it last was, unchanged.
      b = a;
    }
    var paths = Object.keys(Object.assign({}, a, b)).sort();
    var rows = '';
    paths.forEach(function (p) {
      var changed = a[p] !== b[p];
      if (!changed && !all) { return; }
      var val = changed
        ? (a[p] !== undefined ? '<span class="old">' + esc(a[p]) + '</span> → ' : '') +
          (b[p] !== undefined ? '<span class="new">' + esc(b[p]) + '</span>' : '<i>removed</i>')
        : esc(b[p]);
      rows += '<tr class="' + (changed ? 'changed' : 'same') + '"><td class="mono">' + esc(p) + '</td><td class="mono">' + val + '</td></tr>';
    });
    var head = cur.del ? 'deleted; its last stored state:' : (prev ? 'diff against resourceVersion ' + prev.rv + ' (step ' + prev.s + ')' : 'created');
    return '<p class="hint">resourceVersion ' + cur.rv + ', ' + esc(cur.verb) + ' by ' + esc(D.writers[cur.w]) +
      ' at step ' + cur.s + ' — ' + head + '</p><table>' + (rows || '<tr><td class="hint">no field changed</td></tr>') + '</table>';
  }

  function objLink(o) {
    return '<a class="objlink" data-obj="' + o + '">' + esc(objs[o].ref) + '</a>';
  }

  function showRecord(ri) {
    var r = recs[ri], h = '<h2>Record — step ' + r.s + ', t=' + r.t + '</h2><pre class="line">' + esc(r.line) + '</pre>';
    if (r.o >= 0) {
      h += '<h2>' + objLink(r.o) + (r.w && r.w.length && r.w[0].o === r.o && r.w[0].v === r.v ? ' as this step wrote it' : ' as of this step') + '</h2>';
      h += r.v >= 0 ? diffTable(r.o, r.v, true) : '<p class="hint">no stored version of it before this step</p>';
    }
    (r.w || []).forEach(function (w, k) {
      if (k === 0 && w.o === r.o && w.v === r.v) { return; }
      h += '<h2>write ' + (k + 1) + ': ' + objLink(w.o) + '</h2>' + diffTable(w.o, w.v, false);
    });
    var panel = $('record');
    panel.innerHTML = h;
    panel.dataset.step = r.s;
  }

  function selectMark(i, scroll) {
    selMark = i;
    var m = marks[i];
    showRecord(m.r);
    if (m.o >= 0) { selectObject(m.o); }
    if (scroll) { scrollToStep(m.s); }
    draw();
  }
  function selectStep(s, lane) {
    var r = recByStep[s];
    if (r === undefined || !byRecord[r].length) { return; }
    var ms = byRecord[r], pick = ms[0];
    ms.forEach(function (i) { if (marks[i].l === lane) { pick = i; } });
    selectMark(pick, true);
  }

  // The object panel: the history of every field that changed, each value
  // with its writer, so a fight reads as values flipping between writers.
  function selectObject(o) {
    selObj = o;
    var vs = objs[o].v, hist = {}, order = [];
    vs.forEach(function (v, k) {
      var f = v.del ? {} : (v.f || {}), prev = k > 0 && !vs[k - 1].del ? (vs[k - 1].f || {}) : {};
      Object.keys(Object.assign({}, prev, f)).sort().forEach(function (p) {
        if (k > 0 && prev[p] === f[p]) { return; }
        if (!hist[p]) {
          hist[p] = [];
          order.push(p);
          // A field set after the object was created was absent before.
          if (k > 0) { hist[p].push({ v: '<none>', w: vs[0].w, s: vs[0].s }); }
        }
        hist[p].push({ v: f[p] === undefined ? '<none>' : f[p], w: v.w, s: v.s });
      });
    });
    // Spec, status and labels first; metadata bookkeeping last.
    var rank = function (p) { return p.indexOf('metadata.') === 0 && p.indexOf('metadata.labels.') !== 0 ? 1 : 0; };
    var changed = order.filter(function (p) { return hist[p].length > 1; }).sort(function (a, b) {
      return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
    });
    var h = '<h2>Object ' + esc(objs[o].ref) + '</h2><p class="hint">' + vs.length + ' stored version' + (vs.length === 1 ? '' : 's') +
      '; the fields that changed, each value with its writer (click one for its step):</p>';
    changed.forEach(function (p) {
      var list = hist[p], chips = '';
      var from = showAll[p] || list.length <= cap ? 0 : list.length - cap;
      if (from > 0) { chips += '<a class="more" data-more="' + esc(p) + '">… ' + from + ' earlier values</a>'; }
      for (var k = from; k < list.length; k++) {
        var e = list[k];
        chips += (k > from ? '→' : '') + '<span class="chip w' + (e.w % 6) + '" data-step="' + e.s + '" title="step ' + e.s + '">' +
          esc(e.v) + ' <span class="who">' + esc(D.writers[e.w]) + '</span></span>';
      }
      h += '<div class="hist" data-path="' + esc(p) + '"><div class="mono path">' + esc(p) + ' <span class="hint">(' + list.length + ' values)</span></div><div class="flips">' + chips + '</div></div>';
    });
    if (!changed.length) { h += '<p class="hint">no field changed after it was created</p>'; }
    $('object').innerHTML = h;
    Array.prototype.forEach.call(document.querySelectorAll('.obj'), function (b) {
      b.classList.toggle('sel', +b.dataset.obj === o);
    });
  }

  // Clicks: marks, object links, chips, step links.
  document.addEventListener('click', function (ev) {
    var t = ev.target.closest('[data-i],[data-obj],.chip,[data-goto],[data-fault],[data-more]');
    if (!t) { return; }
    if (t.dataset.more !== undefined) {
      showAll[t.dataset.more] = true;
      selectObject(selObj);
      return;
    }
    if (t.dataset.i !== undefined) {
      selectMark(+t.dataset.i, false);
    } else if (t.dataset.obj !== undefined) {
      selectObject(+t.dataset.obj);
      draw();
    } else if (t.dataset.fault !== undefined) {
      var mk = byRecord[+t.dataset.fault].filter(function (i) { return lanes[marks[i].l].kind === 'faults'; });
      if (mk.length) { selectMark(mk[0], true); }
    } else if (t.dataset.goto !== undefined) {
      selectStep(+t.dataset.goto, -1);
    } else if (t.dataset.step !== undefined) {
      selectStep(+t.dataset.step, lanes.findIndex(function (l) { return l.kind === 'server'; }));
    }
  });

  function linkSteps(s) {
    return esc(s).replace(/step (\d+)/g, function (all, n) { return '<a data-goto="' + n + '">' + all + '</a>'; });
  }

  // Header, violation, schedule and the objects.
  $('title').textContent = D.title || 'converge run';
  if (D.replay) { $('replay').innerHTML = 'replay: <code>' + esc(D.replay) + '</code>'; }
  if (V) {
    var h = '<h2>Violated: ' + esc(V.Property) + ' (' + esc(V.Verdict) + ')</h2><p class="summary">' + esc(V.Summary) +
      '</p><p>at <a data-goto="' + V.Step + '">step ' + V.Step + '</a>, t=' + V.At + '</p>';
    if (V.Details && V.Details.length) {
      h += '<ul>' + V.Details.map(function (d) { return '<li class="mono">' + linkSteps(d) + '</li>'; }).join('') + '</ul>';
    }
    if (V.Diagnosis && V.Diagnosis.length) {
      h += '<h2>Diagnosis</h2><ul>' + V.Diagnosis.map(function (d) { return '<li>' + linkSteps(d) + '</li>'; }).join('') + '</ul>';
    }
    $('violation').innerHTML = h;
  } else {
    $('violation').innerHTML = '<h2>No property violated</h2><p>Every property held on this run' +
      (D.quietFrom > 0 ? '; quiescence began at <a data-goto="' + D.quietFrom + '">step ' + D.quietFrom + '</a>' : '') +
      ', and its ' + recs.length + ' steps are drawn as for a failing run.</p>';
    $('violation').className += ' passed';
  }
  var sh = '<h2>Fault schedule' + (D.faults && D.faults.length ? ' (' + D.faults.length + ')' : ': none') + '</h2>';
  if (D.faults && D.faults.length) {
    sh += '<ol>' + D.faults.map(function (f) {
      return '<li>' + esc(f.text) + ' ' + (f.r >= 0 ? '<a data-fault="' + f.r + '">→ step ' + recs[f.r].s + '</a>' : '<span class="hint">(never struck)</span>') + '</li>';
    }).join('') + '</ol>';
  }
  $('schedule').innerHTML = sh;
  $('objects').innerHTML = objs.map(function (o, i) {
    return '<span class="obj" data-obj="' + i + '">' + esc(o.ref) + '</span>';
  }).join('');

  px = Math.max(fit(), 1);
  layout();
  if (V) {
    scrollToStep(V.Step);
    if (violationRecord >= 0 && byRecord[violationRecord].length) {
      selectMark(byRecord[violationRecord][0], false);
    }
  }
  draw();
  document.body.dataset.ready = 'true';
})();
