// Tracecraft's web page: builds its controls from /api/schema, sends the chosen image
// to /api/vectorize and compares the original with the SVG. Plain JavaScript, no build
// step, no markup from strings (every node is built with the DOM API).
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const maxBytes = Number(body.dataset.maxBytes) || 10 * 1024 * 1024;
  const keyStore = 'tracecraft.apiKey';
  const minScale = 0.02;
  const maxScale = 64;

  const state = {
    schema: null,
    file: null,
    fileURL: null,
    overrides: {}, // engine name -> {parameter: value the user set}
    abort: null, // the AbortController of the trace in flight, if any
    clock: 0, // the interval that shows its elapsed time
    timer: 0,
    svgURL: null,
    svgSize: null, // [width, height] of the last result
    lastPick: null, // the preset and engine the service chose for the last auto trace
    view: { scale: 1, x: 0, y: 0, w: 0, h: 0 },
    showSVG: true,
    retryTimer: 0,
  };

  // el builds an element with attributes and children (strings become text nodes).
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : String(v));
    }
    node.append(...children.filter((c) => c !== undefined && c !== null));
    return node;
  }

  function setState(s) { body.dataset.state = s; }
  function setStatus(text) { $('status').textContent = text; }

  function fmtBytes(n) {
    if (n < 1024) return `${n} bytes`;
    const exact = ` (${n.toLocaleString('en')} bytes)`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB${exact}`;
    return `${(n / 1024 / 1024).toFixed(1)} MB${exact}`;
  }
  function fmtMB(n) { return `${Math.round((n / 1024 / 1024) * 10) / 10} MB`; }
  function fmtMs(ms) { return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms * 10) / 10} ms`; }

  // shq quotes s for a POSIX shell.
  function shq(s) { return `'${s.replace(/'/g, `'\\''`)}'`; }
  function svgName(name) { return `${name.replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'trace'}.svg`; }

  // ---- Errors ----

  function clearError() {
    const box = $('error');
    box.hidden = true;
    box.replaceChildren();
    clearTimeout(state.retryTimer);
    for (const n of document.querySelectorAll('.invalid')) n.classList.remove('invalid');
    for (const n of document.querySelectorAll('.param-error')) { n.hidden = true; n.textContent = ''; }
  }

  // showError shows a title, lines of detail, a hint saying what to do, and a small
  // footer naming the error code and request id for the operator.
  function showError({ title, lines = [], hint = '', footer = '' }) {
    const box = $('error');
    const list = lines.length ? el('ul', {}, ...lines.map((l) => el('li', {}, l))) : null;
    box.replaceChildren(...[el('p', { class: 'error-title' }, title), list,
      hint ? el('p', { class: 'error-hint' }, hint) : null,
      footer ? el('p', { class: 'error-code' }, footer) : null].filter(Boolean));
    box.hidden = false;
  }

  const imageCodes = new Set(['missing_image', 'empty_image', 'unsupported_format', 'corrupt_image',
    'truncated_image', 'image_too_large', 'too_many_pixels']);

  // explainFailure turns an API error answer into words a person can act on.
  function explainFailure(resp, data) {
    const err = data && data.error && typeof data.error === 'object' ? data.error : null;
    const code = err ? String(err.code || '') : '';
    const message = err ? String(err.message || '') : '';
    const details = err && Array.isArray(err.details) ? err.details : [];
    const id = resp.headers.get('X-Request-Id');
    const footer = [code && `error ${code}`, `HTTP ${resp.status}`, id && `request ${id}`].filter(Boolean).join(' · ');
    const lines = [];
    let title = message || `The service answered ${resp.status} ${resp.statusText} without saying why.`;
    let hint = '';
    let retryIn = 0; // seconds to count down, for a 429
    for (const d of details) {
      if (!d || typeof d !== 'object') continue;
      if (d.message === message) continue;
      const field = d.field ? `${d.field}: ` : '';
      const sent = 'value' in d ? ` (sent: ${JSON.stringify(d.value)})` : '';
      lines.push(`${field}${d.message}${sent}`);
      markField(d.field, d.message);
    }
    switch (resp.status) {
      case 400:
        if (code === 'invalid_settings') {
          title = 'Some settings were refused.';
          hint = 'Change the marked parameters, or reset them to their defaults, and trace again.';
        } else if (imageCodes.has(code)) {
          hint = lines.length ? 'Choose another image, and fix the settings listed.' : 'Choose another image.';
        }
        break;
      case 401:
        title = 'The API key was refused.';
        if (message) lines.unshift(message);
        hint = 'Check the key under “API key (optional)”, or clear that field to trace on the public lane without a key.';
        break;
      case 429: {
        const wait = Math.max(1, parseInt(resp.headers.get('Retry-After') || '1', 10) || 1);
        title = `The service is busy: try again in ${wait} s.`;
        lines.push(/share/.test(message) ? 'Jobs sent with this API key already hold their share of the queue.' : 'Every place in the queue is taken.');
        hint = 'Nothing was traced. Press Trace again when the wait is over.';
        retryIn = wait;
        break;
      }
      case 503:
        if (code === 'job_timeout') {
          title = 'The trace took too long and was stopped.';
          if (message) lines.unshift(message);
          hint = 'Try a smaller image, settings that do less work (fewer colours, a larger speckle or region filter), or another engine.';
        } else {
          title = 'The engine cannot run right now.';
          if (message) lines.unshift(message);
          hint = 'Choose another engine or preset, or ask the operator to look at /api/health.';
        }
        break;
      default:
        if (resp.status >= 500) {
          hint = 'This is a fault of the service, not of your image. Try again; if it keeps happening, give the operator the request id below.';
        }
    }
    showError({ title, lines, hint, footer });
    if (retryIn) countdown(retryIn); // after showError, which builds the title it updates
  }

  // countdown updates the shown error's title every second until the wait is over.
  function countdown(seconds) {
    const title = $('error').querySelector('.error-title');
    let left = seconds;
    const tick = () => {
      left -= 1;
      if (!title) return;
      title.textContent = left > 0 ? `The service is busy: try again in ${left} s.` : 'The service was busy: you can try again now.';
      if (left > 0) state.retryTimer = setTimeout(tick, 1000);
    };
    state.retryTimer = setTimeout(tick, 1000);
  }

  // markField flags the control a detail's field names ("engine.param", "preset", "engine").
  function markField(field, message) {
    if (!field) return;
    if (field === 'preset' || field === 'engine') {
      $(field).parentElement.classList.add('invalid');
      return;
    }
    const dot = field.indexOf('.');
    if (dot < 0 || field.slice(0, dot) !== effectiveEngine()) return;
    let name = field.slice(dot + 1);
    let item = ''; // a list's item: "palette[2]" is item 2 of palette
    const bracket = name.indexOf('[');
    if (bracket >= 0) {
      item = `item ${name.slice(bracket + 1, -1)} `;
      name = name.slice(0, bracket);
    }
    for (const row of document.querySelectorAll('#param-list .param')) {
      if (row.dataset.param !== name) continue;
      row.classList.add('invalid');
      const p = row.querySelector('.param-error');
      p.textContent = (p.hidden ? '' : p.textContent + '; ') + item + message;
      p.hidden = false;
    }
  }

  // ---- Schema and controls ----

  async function loadSchema() {
    let resp;
    let data = null;
    try {
      resp = await fetch('/api/schema', { headers: { Accept: 'application/json' } });
      data = await resp.json().catch(() => null);
    } catch (e) {
      showError({ title: 'The service cannot be reached, so the engines could not be loaded.', lines: [String(e.message || e)], hint: 'Check that the service is running, then reload the page.' });
      setStatus('');
      setState('error');
      return;
    }
    if (!resp.ok || !data || !Array.isArray(data.engines)) {
      explainFailure(resp, data);
      setStatus('The engines could not be loaded; reload the page to try again.');
      setState('error');
      return;
    }
    state.schema = data;
    fillSelects();
    renderParams();
    $('trace').disabled = false;
    setStatus('Choose an image to trace.');
    setState('ready');
  }

  function fillSelects() {
    const s = state.schema;
    const presets = s.presets && typeof s.presets === 'object' ? Object.keys(s.presets) : [];
    if (!presets.includes('auto')) presets.unshift('auto');
    $('preset').replaceChildren(...presets.map((p) => el('option', { value: p }, p)));
    const stable = s.engines.includes('auto') ? s.engines : ['auto', ...s.engines];
    const engineOptions = stable.map((e) => el('option', { value: e }, e === 'auto' ? 'auto (chosen by the service)' : e));
    const experimental = Array.isArray(s.experimentalEngines) ? s.experimentalEngines : [];
    const named = Array.isArray(s.namedEngines) ? s.namedEngines : [];
    if (named.length) {
      engineOptions.push(el('optgroup', { label: 'Only when chosen' }, ...named.map((e) => el('option', { value: e }, e))));
    }
    if (experimental.length) {
      engineOptions.push(el('optgroup', { label: 'Experimental' }, ...experimental.map((e) => el('option', { value: e }, e))));
    }
    $('engine').replaceChildren(...engineOptions);
    $('preset').value = 'auto';
    $('engine').value = 'auto';
    $('preset').disabled = false;
    $('engine').disabled = false;
    describeChoice();
  }

  function describeChoice() {
    const s = state.schema;
    const p = $('preset').value;
    const e = $('engine').value;
    const preset = s.presets && s.presets[p];
    $('preset-desc').textContent = preset && preset.description ? preset.description : '';
    let text = '';
    if (e === 'auto') {
      if (p === 'auto') text = 'The service measures the image and picks the preset and its engine.';
      else if (preset && preset.engine) text = `The ${p} preset's engine: ${preset.engine}${preset.variants ? ', or another for some images (see the schema)' : ''}.`;
      else text = 'The service traces the image with its two likeliest presets and keeps the better trace.';
    } else if ((s.experimentalEngines || []).includes(e)) {
      text = 'Experimental: its output may change between versions.';
    } else if ((s.namedEngines || []).includes(e) && (p === 'auto' || !preset || preset.engine !== e)) {
      text = `${e} at its defaults: the service never picks it, it runs when chosen.`;
    } else if (p !== 'auto' && preset && preset.engine && preset.engine !== e) {
      text = `The ${p} preset's parameters are for ${preset.engine}, so ${e} runs at its defaults.`;
    } else if (p === 'auto') {
      text = `${e} at its defaults, without measuring the image.`;
    }
    $('engine-desc').textContent = text;
  }

  // effectiveEngine is the engine that will run, or null when the service decides.
  function effectiveEngine() {
    const e = $('engine').value;
    if (e !== 'auto') return e;
    const p = $('preset').value;
    const preset = state.schema && state.schema.presets && state.schema.presets[p];
    return p !== 'auto' && preset ? preset.engine || null : null;
  }

  // baseValues are a parameter's values before the user changes any: the engine's
  // defaults, then the preset's values when the preset's engine is the one running.
  function baseValues(engine) {
    const desc = state.schema[engine] || {};
    const base = {};
    const fromPreset = new Set();
    for (const [k, d] of Object.entries(desc)) if (d && 'default' in d) base[k] = d.default;
    const preset = state.schema.presets && state.schema.presets[$('preset').value];
    if (preset && preset.engine === engine && preset[engine]) {
      for (const [k, v] of Object.entries(preset[engine])) {
        if (k in desc) { base[k] = v; fromPreset.add(k); }
      }
    }
    return { base, fromPreset };
  }

  function stepOf(d) {
    if (typeof d.step === 'number' && d.step > 0) return d.step;
    return d.integer ? 1 : 'any';
  }

  // roundForSlider keeps a free slider's value to a precision that suits its range.
  function roundForSlider(v, d) {
    if (stepOf(d) !== 'any') return v;
    const decimals = Math.max(0, 2 - Math.floor(Math.log10(Math.max(d.max - d.min, 1e-9))));
    return Number(v.toFixed(decimals));
  }

  function renderParams() {
    const list = $('param-list');
    list.replaceChildren();
    const engine = effectiveEngine();
    const note = $('params-note');
    $('params-engine').textContent = engine ? `of ${engine}` : '';
    $('reset-all').hidden = true;
    if (!engine) {
      note.textContent = 'The service picks the engine from the image. Choose a preset or an engine to tune its parameters.';
      const pick = state.lastPick;
      if (pick && pick.preset && state.schema.presets && state.schema.presets[pick.preset]) {
        const use = el('button', { type: 'button', class: 'link', id: 'use-pick' }, `Tune from the ${pick.preset} preset the service picked (${pick.engine})`);
        use.addEventListener('click', () => { $('preset').value = pick.preset; renderParams(); scheduleTrace(); });
        list.append(use);
      }
      return;
    }
    const desc = state.schema[engine];
    if (!desc) {
      note.textContent = `${engine} is not installed on this server.`;
      return;
    }
    const { base, fromPreset } = baseValues(engine);
    note.textContent = (fromPreset.size ? `Values start at the ${$('preset').value} preset's. ` : 'Values start at the engine\'s defaults. ') +
      'Only the ones you change are sent.';
    for (const [name, d] of Object.entries(desc)) {
      list.append(paramControl(engine, name, d, base, fromPreset.has(name)));
    }
    updateResetAll(engine);
  }

  function updateResetAll(engine) {
    const ov = state.overrides[engine] || {};
    $('reset-all').hidden = Object.keys(ov).length === 0;
  }

  function sameValue(a, b) { return a === b || (typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) < 1e-12); }

  function paramControl(engine, name, d, base, fromPreset) {
    const id = `p-${engine}-${name}`;
    const row = el('div', { class: 'param', 'data-param': name });
    const ov = state.overrides[engine] || (state.overrides[engine] = {});
    const baseValue = base[name];
    const shownBase = baseValue === undefined ? 'not set' : String(baseValue);
    const reset = el('button', { type: 'button', class: 'reset', title: `Back to ${shownBase}` }, 'reset');
    const head = el('div', { class: 'param-head' },
      el('label', { class: 'param-name', for: id }, name),
      el('span', { class: 'param-default' }, `${fromPreset ? 'preset' : 'default'} ${shownBase}`, ' ', reset));
    const control = el('div', { class: 'param-control' });
    let show; // show(value) puts a value into the control

    const update = (value) => {
      if (value === undefined || value === '' || sameValue(value, baseValue)) delete ov[name];
      else ov[name] = value;
      const changed = name in ov;
      row.classList.toggle('changed', changed);
      row.classList.remove('invalid');
      row.querySelector('.param-error').hidden = true;
      reset.hidden = !changed;
      updateResetAll(engine);
      scheduleTrace();
    };

    switch (d.type) {
      case 'number': {
        const step = stepOf(d);
        const range = el('input', { type: 'range', min: d.min, max: d.max, step, 'aria-label': `${name} slider` });
        const num = el('input', { type: 'number', id, min: d.min, max: d.max, step, inputmode: d.integer ? 'numeric' : 'decimal' });
        show = (v) => { num.value = v === undefined ? '' : String(v); range.value = String(v === undefined ? d.min : v); };
        range.addEventListener('input', () => {
          const v = roundForSlider(Number(range.value), d);
          num.value = String(v);
          update(v);
        });
        num.addEventListener('input', () => {
          if (num.value.trim() === '') { update(undefined); return; }
          const v = Number(num.value);
          if (!Number.isFinite(v)) return;
          range.value = String(v);
          update(v);
        });
        control.append(range, num);
        break;
      }
      case 'enum': {
        const values = Array.isArray(d.values) ? d.values : [];
        const select = el('select', { id }, ...values.map((v) => el('option', { value: v }, v)));
        show = (v) => { select.value = v === undefined ? values[0] : v; };
        select.addEventListener('change', () => update(select.value));
        control.append(select);
        break;
      }
      case 'boolean': {
        const box = el('input', { type: 'checkbox', id, class: 'switch', role: 'switch' });
        const label = el('span', { class: 'switch-state' });
        show = (v) => { box.checked = v === true; label.textContent = box.checked ? 'on' : 'off'; };
        box.addEventListener('change', () => { label.textContent = box.checked ? 'on' : 'off'; update(box.checked); });
        control.append(box, label);
        break;
      }
      case 'list': {
        // One text field: the items separated by commas (those inside rgb(...) and
        // hsl(...) belong to the colour), sent as a JSON array.
        const placeholder = d.format === 'color' ? 'CSS colours, e.g. #1d3557, white, rgb(230 57 70)' : 'items, separated by commas';
        const input = el('input', { type: 'text', id, class: 'list', placeholder, spellcheck: 'false', autocomplete: 'off' });
        const swatches = el('span', { class: 'swatches', 'aria-hidden': 'true' });
        show = (v) => { input.value = Array.isArray(v) ? v.join(', ') : ''; paintSwatches(swatches, Array.isArray(v) ? v : [], d); };
        input.addEventListener('input', () => {
          const items = splitList(input.value);
          paintSwatches(swatches, items, d);
          update(items.length ? items : undefined);
        });
        control.append(input, swatches);
        break;
      }
      default: {
        const placeholder = d.format === 'color' ? 'any CSS colour, e.g. #d33 or navy' : 'not set';
        const input = el('input', { type: 'text', id, maxlength: d.maxLength, placeholder, spellcheck: 'false', autocomplete: 'off' });
        show = (v) => { input.value = v === undefined ? '' : String(v); };
        input.addEventListener('input', () => update(input.value));
        control.append(input);
      }
    }
    reset.addEventListener('click', () => { show(baseValue); update(undefined); });
    show(name in ov ? ov[name] : baseValue);
    row.classList.toggle('changed', name in ov);
    reset.hidden = !(name in ov);
    row.append(head, control, el('p', { class: 'desc' }, d.description || ''), el('p', { class: 'param-error', hidden: true }));
    return row;
  }

  // splitList splits a list field's text at the commas outside parentheses.
  function splitList(text) {
    const items = [];
    let depth = 0, start = 0;
    for (let i = 0; i <= text.length; i++) {
      const c = text[i];
      if (c === '(') depth++;
      else if (c === ')') depth = Math.max(0, depth - 1);
      else if ((c === ',' && depth === 0) || i === text.length) {
        const item = text.slice(start, i).trim();
        if (item) items.push(item);
        start = i + 1;
      }
    }
    return items;
  }

  // paintSwatches shows a small square of each colour of a colour list.
  function paintSwatches(box, items, d) {
    box.replaceChildren();
    if (d.format !== 'color') return;
    for (const c of items) {
      const sw = el('span', { class: 'swatch', title: c });
      sw.style.background = c;
      box.append(sw);
    }
  }

  // settingsObject is the settings field for the current choices: preset and engine
  // when not auto, and the parameters the user changed for the engine that will run.
  function settingsObject() {
    const s = {};
    if ($('preset').value !== 'auto') s.preset = $('preset').value;
    if ($('engine').value !== 'auto') s.engine = $('engine').value;
    if ($('background').value !== 'keep') s.background = $('background').value;
    const engine = effectiveEngine();
    const ov = engine && state.overrides[engine];
    if (ov && Object.keys(ov).length) s[engine] = { ...ov };
    if ($('quality').checked) s.output = { quality: true };
    return s;
  }

  // ---- Files ----

  function refusal(file) {
    if (file.size === 0) return `${file.name} is empty (0 bytes): choose another file.`;
    if (file.size > maxBytes) {
      return `${file.name} is ${fmtMB(file.size)}; the service accepts files up to ${fmtMB(maxBytes)}. Scale it down or save it in a more compact format, then try again.`;
    }
    return '';
  }

  function chooseFile(file) {
    if (state.abort) { // the trace in flight is of the previous file
      const previous = state.abort;
      endTrace();
      previous.abort();
    }
    clearError();
    clearResult();
    const why = refusal(file);
    if (state.fileURL) URL.revokeObjectURL(state.fileURL);
    state.fileURL = null;
    state.file = null;
    $('file-info').hidden = false;
    $('file-info').textContent = `${file.name}: ${fmtBytes(file.size)}`;
    if (why) {
      showError({ title: 'This file cannot be traced.', lines: [why] });
      setStatus('');
      setState('error');
      setImage(['img-orig', 'ov-orig'], null);
      return;
    }
    state.file = file;
    state.fileURL = URL.createObjectURL(file);
    if (state.lastPick) { state.lastPick = null; renderParams(); }
    setImage(['img-orig', 'ov-orig'], state.fileURL);
    trace();
  }

  function setImage(ids, url) {
    for (const id of ids) {
      const img = $(id);
      const empty = img.closest('.viewport').querySelector('.empty');
      if (!url) {
        img.hidden = true;
        img.removeAttribute('src');
        continue;
      }
      img.onload = () => {
        img.hidden = false;
        if (id === 'img-orig') {
          empty.hidden = true;
          if (!state.svgSize) { state.view.w = img.naturalWidth; state.view.h = img.naturalHeight; fit(); }
        }
        if (id === 'img-svg' || id === 'ov-svg') empty.hidden = true;
      };
      img.onerror = () => {
        img.hidden = true;
        if (id === 'img-orig') empty.textContent = 'This browser cannot show this file; the SVG will still appear once traced.';
      };
      img.src = url;
    }
  }

  function clearResult() {
    if (state.svgURL) URL.revokeObjectURL(state.svgURL);
    state.svgURL = null;
    state.svgSize = null;
    setImage(['img-svg', 'ov-svg'], null);
    for (const vp of document.querySelectorAll('.viewport')) {
      const empty = vp.querySelector('.empty');
      empty.hidden = false;
      empty.textContent = vp.querySelector('#img-orig') ? 'No image yet.' : 'No SVG yet.';
    }
    $('facts').hidden = true;
    $('outputs').hidden = true;
    $('curl').hidden = true;
    $('used').hidden = true;
  }

  // ---- Tracing ----

  function scheduleTrace() {
    describeChoice();
    if (!$('auto').checked || !state.file) return;
    clearTimeout(state.timer);
    state.timer = setTimeout(trace, 400);
  }

  // endTrace forgets the trace in flight: its clock stops and the buttons are reset.
  function endTrace() {
    state.abort = null;
    clearInterval(state.clock);
    state.clock = 0;
    $('trace').textContent = 'Trace';
    $('cancel').hidden = true;
  }

  // cancelTrace aborts the trace in flight (the Cancel button): the request is
  // abandoned, and the service stops its job when the connection closes.
  function cancelTrace() {
    if (!state.abort) return;
    const ctrl = state.abort;
    endTrace();
    ctrl.abort();
    setStatus(state.svgURL ? 'Cancelled; the SVG below is from the previous trace.' : 'Cancelled.');
    setState(state.svgURL ? 'done' : 'ready');
  }

  // trace sends the image and settings to the service. A trace already in flight is
  // aborted first (its fetch is abandoned, so its answer never replaces this one's).
  async function trace() {
    clearTimeout(state.timer);
    if (!state.schema) return;
    if (!state.file) { setStatus('Choose an image first.'); return; }
    if (state.abort) {
      const previous = state.abort;
      endTrace();
      previous.abort();
    }
    const ctrl = new AbortController();
    state.abort = ctrl;
    const file = state.file;
    const settings = settingsObject();
    const settingsText = JSON.stringify(settings);
    const key = $('api-key').value.trim();
    const form = new FormData();
    form.append('image', file, file.name);
    if (settingsText !== '{}') form.append('settings', settingsText);
    const headers = { Accept: 'application/json' };
    if (key) headers['X-API-Key'] = key;
    clearError();
    setState('tracing');
    $('trace').textContent = 'Trace again';
    $('cancel').hidden = false;
    const started = performance.now();
    const tick = () => setStatus(`Tracing ${file.name}… ${((performance.now() - started) / 1000).toFixed(1)} s`);
    tick();
    state.clock = setInterval(tick, 100);
    let resp = null;
    let data = null;
    let failure = null;
    try {
      resp = await fetch('/api/vectorize', { method: 'POST', body: form, headers, signal: ctrl.signal });
      const text = await resp.text();
      try { data = JSON.parse(text); } catch { data = null; }
    } catch (e) {
      failure = e;
    }
    if (state.abort !== ctrl) return; // cancelled, or replaced by a newer trace
    const roundTrip = performance.now() - started;
    endTrace();
    if (failure) {
      showError({ title: 'The service cannot be reached.', lines: [String(failure.message || failure)], hint: 'Check your connection and that the service is running, then press Trace.' });
      setStatus('');
      setState('error');
    } else if (resp.ok && data && typeof data.svg === 'string') {
      showResult(data, { fileName: file.name, settingsText, withKey: key !== '', roundTrip });
      state.lastTrace = { file, settings };
      if (settings.preset === undefined && settings.engine === undefined) {
        state.lastPick = { preset: data.preset, engine: data.engine };
        renderParams();
      }
      setState('done');
    } else {
      explainFailure(resp, data);
      setStatus(state.svgURL ? 'The SVG below is from the previous trace.' : '');
      setState('error');
    }
    body.dataset.traces = String(Number(body.dataset.traces || 0) + 1); // answers shown, for tests
  }

  function showResult(data, req) {
    if (state.svgURL) URL.revokeObjectURL(state.svgURL);
    state.svgURL = URL.createObjectURL(new Blob([data.svg], { type: 'image/svg+xml' }));
    const sizeChanged = !state.svgSize || state.svgSize[0] !== data.width || state.svgSize[1] !== data.height;
    state.svgSize = [data.width, data.height];
    state.view.w = data.width;
    state.view.h = data.height;
    if (sizeChanged) fit(); else applyView(); // a new trace of the same image keeps the zoomed spot
    if (state.strokesURL) URL.revokeObjectURL(state.strokesURL);
    state.strokesURL = URL.createObjectURL(new Blob([contrasting(data.svg)], { type: 'image/svg+xml' }));
    setImage(['img-svg'], state.svgURL);
    setImage(['ov-svg'], $('strokes-over').checked ? state.strokesURL : state.svgURL);

    const t = data.timings || {};
    const facts = [
      ['Engine', `${data.engine}${data.engineVersion ? ` ${data.engineVersion}` : ''}${data.preset ? `, preset ${data.preset}` : ''}`],
      ['Time', `${fmtMs(t.totalMs || 0)} in the service (tracing ${fmtMs(t.traceMs || 0)}, queued ${fmtMs(t.queueMs || 0)}); ${fmtMs(req.roundTrip)} in all`],
      ['Input', `${fmtBytes(data.originalSize)}, ${data.width} × ${data.height} px`],
      ['SVG', `${fmtBytes(data.svgSize)}, ${Math.round((data.svgSize / Math.max(1, data.originalSize)) * 1000) / 10} % of the input`],
      ['Lane', data.lane || ''],
    ];
    const q = data.quality;
    if (q) {
      const ssim = q.ssim === null ? 'none (the image is under 11 px on a side)' : q.ssim.toFixed(4);
      facts.push(['Quality', `SSIM ${ssim}, PSNR ${q.psnr.toFixed(2)} dB (scored in ${fmtMs(t.qualityMs || 0)})`]);
    }
    $('facts').replaceChildren(...facts.flatMap(([k, v]) => [el('dt', {}, k), el('dd', { 'data-fact': k.toLowerCase() }, v)]));
    $('facts').hidden = false;
    const dl = $('download');
    dl.href = state.svgURL;
    dl.download = svgName(req.fileName);
    $('curl').textContent = curlCommand(req);
    $('curl').hidden = false;
    $('copy-status').textContent = '';
    $('outputs').hidden = false;
    $('used-json').textContent = JSON.stringify(data.settings, null, 2);
    $('used').hidden = false;
    setStatus(`Traced ${req.fileName} with ${data.engine} in ${fmtMs(t.totalMs || 0)}.`);
  }

  // contrasting returns the SVG with every stroke and fill painted in one colour that
  // stands out on most originals, for drawing the trace over the original (centre-line
  // strokes are otherwise the colour of the ink under them).
  function contrasting(svg) {
    const style = '<style>*{stroke:#ff0080!important;fill-opacity:.55}[fill]:not([fill="none"]){fill:#ff0080!important}</style>';
    const end = svg.indexOf('>', svg.indexOf('<svg'));
    return end < 0 ? svg : svg.slice(0, end + 1) + style + svg.slice(end + 1);
  }

  function showStrokes() {
    const on = $('strokes-over').checked;
    // The overlay pane shows them; side by side has none, so switch to one pane.
    const side = document.querySelector('input[name="mode"][value="side"]');
    if (on && side.checked) document.querySelector('input[name="mode"][value="toggle"]').click();
    if (state.svgURL) setImage(['ov-svg'], on ? state.strokesURL : state.svgURL);
    applyView();
  }

  // formatTypes are the media types the page asks for each download format.
  const formatTypes = { pdf: 'application/pdf', eps: 'application/postscript', dxf: 'image/vnd.dxf', png: 'image/png' };

  // downloadAs asks the service for the last trace's image and settings in another format
  // (the same image and settings give the same drawing) and saves the file.
  async function downloadAs(format, button) {
    const last = state.lastTrace;
    if (!last || button.disabled) return;
    const form = new FormData();
    form.append('image', last.file, last.file.name);
    form.append('settings', JSON.stringify({ ...last.settings, output: { format } }));
    const headers = { Accept: formatTypes[format] };
    const key = $('api-key').value.trim();
    if (key) headers['X-API-Key'] = key;
    button.disabled = true;
    setStatus(`Making the ${format.toUpperCase()}…`);
    try {
      const resp = await fetch('/api/vectorize', { method: 'POST', body: form, headers });
      if (!resp.ok) {
        let data = null;
        try { data = JSON.parse(await resp.text()); } catch { data = null; }
        explainFailure(resp, data);
        setStatus('');
        return;
      }
      const blob = await resp.blob();
      const url = URL.createObjectURL(blob);
      const a = el('a', { href: url, download: svgName(last.file.name).replace(/\.svg$/, '.' + format) });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      setStatus(`Saved ${a.download}.`);
      // For tests: how many files were saved, and the last one's name, type and size.
      document.body.dataset.lastDownload = `${a.download} ${blob.type} ${blob.size}`;
      document.body.dataset.downloads = String(Number(document.body.dataset.downloads || 0) + 1);
    } catch (e) {
      showError({ title: 'The service cannot be reached.', lines: [String(e.message || e)], hint: 'Check your connection, then try again.' });
      setStatus('');
    } finally {
      button.disabled = false;
    }
  }

  // curlCommand is the request the page just made, as a command that saves the SVG.
  // The key is not written out: the command reads it from $TRACECRAFT_API_KEY.
  function curlCommand(req) {
    const name = /[;,"]/.test(req.fileName) ? `"${req.fileName.replace(/["\\]/g, '\\$&')}"` : req.fileName;
    const parts = ['curl', '-F ' + shq(`image=@${name}`)];
    if (req.settingsText !== '{}') parts.push('-F ' + shq(`settings=${req.settingsText}`));
    if (req.withKey) parts.push('-H "X-API-Key: $TRACECRAFT_API_KEY"');
    parts.push(`-H 'Accept: image/svg+xml' -o ${shq(svgName(req.fileName))}`, shq(`${location.origin}/api/vectorize`));
    return parts.join(' \\\n  ');
  }

  async function copyCurl() {
    const text = $('curl').textContent;
    try {
      await navigator.clipboard.writeText(text);
      $('copy-status').textContent = 'Copied.';
    } catch {
      const range = document.createRange();
      range.selectNodeContents($('curl'));
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      $('copy-status').textContent = 'The browser did not allow copying: the command is selected, press Ctrl+C (⌘C).';
    }
  }

  // ---- Zoom and pan, shared by every view ----

  function visibleViewport() {
    return [...document.querySelectorAll('.viewport')].find((v) => v.offsetParent !== null && v.clientWidth > 0);
  }

  function applyView() {
    const { scale, x, y, w, h } = state.view;
    for (const img of document.querySelectorAll('.layer-img')) {
      img.style.width = `${w * scale}px`;
      img.style.height = `${h * scale}px`;
      img.style.left = `${x}px`;
      img.style.top = `${y}px`;
      img.classList.toggle('zoomed', scale > 1);
    }
    $('zoom-level').textContent = `${Math.round(scale * 100)}%`;
    const swipe = Number($('swipe').value);
    const mode = document.querySelector('input[name="mode"]:checked').value;
    const top = $('ov-top');
    const strokes = $('strokes-over').checked;
    top.style.clipPath = mode === 'swipe' && !strokes ? `inset(0 0 0 ${swipe}%)` : 'none';
    top.hidden = mode === 'toggle' && !state.showSVG && !strokes;
    $('ov-divider').style.left = `${swipe}%`;
    $('ov-divider').hidden = strokes;
    $('overlay-caption').textContent = strokes ? 'Strokes over the original'
      : mode === 'swipe' ? 'Original ◂ swipe ▸ SVG' : (state.showSVG ? 'Showing the SVG' : 'Showing the original');
    $('toggle-which').textContent = state.showSVG ? 'Show the original' : 'Show the SVG';
  }

  function fit() {
    const vp = visibleViewport();
    const { w, h } = state.view;
    if (!vp || !w || !h) { applyView(); return; }
    const vw = vp.clientWidth;
    const vh = vp.clientHeight;
    const scale = Math.min(Math.max(Math.min(vw / w, vh / h) * 0.96, minScale), 16);
    state.view.scale = scale;
    state.view.x = (vw - w * scale) / 2;
    state.view.y = (vh - h * scale) / 2;
    applyView();
  }

  function zoomAt(factor, cx, cy) {
    const v = state.view;
    const scale = Math.min(maxScale, Math.max(minScale, v.scale * factor));
    v.x = cx - ((cx - v.x) * scale) / v.scale;
    v.y = cy - ((cy - v.y) * scale) / v.scale;
    v.scale = scale;
    applyView();
  }

  function zoomCentre(factor) {
    const vp = visibleViewport();
    if (vp) zoomAt(factor, vp.clientWidth / 2, vp.clientHeight / 2);
  }

  // keepCentre runs change (which resizes the views) keeping the image point at the
  // centre of the view where it was.
  function keepCentre(change) {
    const before = visibleViewport();
    const v = state.view;
    const ix = before ? (before.clientWidth / 2 - v.x) / v.scale : 0;
    const iy = before ? (before.clientHeight / 2 - v.y) / v.scale : 0;
    change();
    const after = visibleViewport();
    if (before && after) {
      v.x = after.clientWidth / 2 - ix * v.scale;
      v.y = after.clientHeight / 2 - iy * v.scale;
    }
    applyView();
  }

  function wireViewport(vp) {
    const pointers = new Map();
    vp.addEventListener('pointerdown', (e) => {
      vp.setPointerCapture(e.pointerId);
      pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      vp.classList.add('dragging');
    });
    vp.addEventListener('pointermove', (e) => {
      const prev = pointers.get(e.pointerId);
      if (!prev) return;
      const now = { x: e.clientX, y: e.clientY };
      if (pointers.size === 1) {
        state.view.x += now.x - prev.x;
        state.view.y += now.y - prev.y;
        applyView();
      } else if (pointers.size === 2) { // pinch
        const other = [...pointers.entries()].find(([id]) => id !== e.pointerId)[1];
        const d0 = Math.hypot(prev.x - other.x, prev.y - other.y);
        const d1 = Math.hypot(now.x - other.x, now.y - other.y);
        const r = vp.getBoundingClientRect();
        if (d0 > 0) zoomAt(d1 / d0, (now.x + other.x) / 2 - r.left, (now.y + other.y) / 2 - r.top);
      }
      pointers.set(e.pointerId, now);
    });
    const end = (e) => {
      pointers.delete(e.pointerId);
      if (!pointers.size) vp.classList.remove('dragging');
    };
    vp.addEventListener('pointerup', end);
    vp.addEventListener('pointercancel', end);
    vp.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = vp.getBoundingClientRect();
      const k = e.deltaMode === 1 ? 0.05 : 0.0015;
      zoomAt(Math.exp(-e.deltaY * k), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    vp.addEventListener('dblclick', (e) => {
      const r = vp.getBoundingClientRect();
      zoomAt(e.shiftKey ? 0.5 : 2, e.clientX - r.left, e.clientY - r.top);
    });
    vp.addEventListener('keydown', (e) => {
      const step = 40;
      const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
      if (e.key === '+' || e.key === '=') zoomCentre(1.25);
      else if (e.key === '-') zoomCentre(0.8);
      else if (e.key === '0') fit();
      else if (e.key === 't') toggleWhich();
      else if (moves[e.key]) { state.view.x += moves[e.key][0]; state.view.y += moves[e.key][1]; applyView(); } else return;
      e.preventDefault();
    });
  }

  function toggleWhich() {
    state.showSVG = !state.showSVG;
    applyView();
  }

  // ---- Wiring ----

  function init() {
    for (const vp of document.querySelectorAll('.viewport')) wireViewport(vp);
    $('zoom-in').addEventListener('click', () => zoomCentre(1.5));
    $('zoom-out').addEventListener('click', () => zoomCentre(1 / 1.5));
    $('zoom-fit').addEventListener('click', fit);
    $('zoom-1').addEventListener('click', () => zoomCentre(1 / state.view.scale));
    $('swipe').addEventListener('input', applyView);
    $('toggle-which').addEventListener('click', toggleWhich);
    $('strokes-over').addEventListener('change', showStrokes);
    $('quality').addEventListener('change', scheduleTrace);
    for (const r of document.querySelectorAll('input[name="mode"]')) {
      r.addEventListener('change', () => keepCentre(() => { $('views').className = `views mode-${r.value}`; }));
    }
    if (typeof ResizeObserver === 'function') {
      let last = '';
      new ResizeObserver(() => {
        const vp = visibleViewport();
        const size = vp ? `${vp.clientWidth}x${vp.clientHeight}` : '';
        if (size !== last) { last = size; applyView(); }
      }).observe($('views'));
    }

    $('file').addEventListener('change', () => {
      const f = $('file').files[0];
      if (f) chooseFile(f);
    });
    const drop = $('drop');
    let depth = 0;
    window.addEventListener('dragenter', (e) => { e.preventDefault(); depth++; drop.classList.add('over'); });
    window.addEventListener('dragleave', () => { depth = Math.max(0, depth - 1); if (!depth) drop.classList.remove('over'); });
    window.addEventListener('dragover', (e) => e.preventDefault());
    window.addEventListener('drop', (e) => {
      e.preventDefault();
      depth = 0;
      drop.classList.remove('over');
      const files = e.dataTransfer && e.dataTransfer.files;
      if (!files || !files.length) {
        showError({ title: 'Nothing to trace was dropped.', hint: 'Drop an image file (PNG, JPEG, WebP, BMP or TIFF), not a link or text.' });
        return;
      }
      chooseFile(files[0]);
      if (files.length > 1) setStatus(`Only the first of the ${files.length} files dropped is traced.`);
    });

    $('preset').addEventListener('change', () => { renderParams(); scheduleTrace(); });
    $('engine').addEventListener('change', () => { renderParams(); scheduleTrace(); });
    $('background').addEventListener('change', scheduleTrace);
    $('reset-all').addEventListener('click', () => {
      const engine = effectiveEngine();
      if (engine) state.overrides[engine] = {};
      renderParams();
      scheduleTrace();
    });
    $('trace').addEventListener('click', trace);
    $('cancel').addEventListener('click', cancelTrace);
    $('copy-curl').addEventListener('click', copyCurl);
    for (const b of document.querySelectorAll('.download-as button')) b.addEventListener('click', () => downloadAs(b.dataset.format, b));

    const key = $('api-key');
    try { key.value = localStorage.getItem(keyStore) || ''; } catch { /* storage disabled: the key lives in the field only */ }
    if (key.value) key.closest('details').open = true;
    key.addEventListener('input', () => {
      try {
        if (key.value.trim()) localStorage.setItem(keyStore, key.value.trim());
        else localStorage.removeItem(keyStore);
      } catch { /* storage disabled */ }
    });

    applyView();
    loadSchema();
  }

  init();
})();
