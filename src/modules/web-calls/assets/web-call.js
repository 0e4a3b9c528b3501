/* The web call page: the microphone to the call's socket as 16 kHz PCM, the agent's audio played back, the
 * transcript, the call's state and each reply's voice-to-voice time. Plain JavaScript, no dependency. */
(function () {
  'use strict';

  const BASE = '/hooks/v1/web';
  const $ = (id) => document.getElementById(id);
  const ui = {
    app: $('app'),
    state: $('state'),
    hint: $('hint'),
    callStatus: $('call-status'),
    timer: $('timer'),
    level: $('level'),
    orb: $('orb'),
    transcript: $('transcript'),
    latency: $('latency'),
    call: $('call'),
    mute: $('mute'),
  };

  const match = /\/calls\/([0-9a-fA-F-]{36})\/page/.exec(location.pathname);
  const callId = match ? match[1].toLowerCase() : null;
  const params = new URLSearchParams(location.hash.slice(1) || location.search.slice(1));
  const token = params.get('token');
  // The token stays in memory only: the address bar (and history) no longer shows it.
  if (location.hash || location.search) history.replaceState(null, '', location.pathname);

  /** What a test (or a curious developer) can read: the agent's audio level as played, and counters. */
  const probe = {
    state: 'checking',
    agentLevel: 0,
    agentPeak: 0,
    micLevel: 0,
    framesSent: 0,
    framesReceived: 0,
    underruns: 0,
    turns: [],
    transcript: [],
    endReason: null,
  };
  window.webCall = probe;

  let ws = null;
  let ctx = null;
  let mic = null;
  let capture = null;
  let playback = null;
  let analyser = null;
  let started = false;
  let ending = null; // why the page closed the socket itself
  let endedByCall = false;
  let answeredAt = 0;
  let clock = null;
  let muted = false;

  const END_WORDS = {
    customer_hangup: 'You ended the call.',
    agent_hangup: 'The assistant ended the call.',
    api_hangup: 'The call was ended by the business.',
    max_duration: 'The call reached its time limit.',
    silence_timeout: 'The call ended after a long silence.',
    provider_error: 'The call ended because of a connection problem.',
    canceled: 'The call was canceled.',
    no_answer: 'This call link expired before the call started.',
    forward_completed: 'The call was transferred.',
    concurrency_limit: 'All lines are busy. Please try again in a moment.',
    agent_unavailable: 'The assistant is not available right now.',
  };
  const STATE_WORDS = {
    listening: 'Listening…',
    thinking: 'Thinking…',
    speaking: 'Speaking…',
  };

  function setState(state, words, hint) {
    probe.state = state;
    ui.app.dataset.state = state;
    if (words !== undefined) ui.state.textContent = words;
    if (hint !== undefined) ui.hint.textContent = hint;
  }

  function fail(words, hint) {
    setState('failed', words, hint || '');
    ui.call.disabled = true;
    ui.call.classList.remove('is-live');
    ui.call.textContent = 'Start call';
    ui.mute.disabled = true;
  }

  function line(role, text, meta) {
    const li = document.createElement('li');
    li.className = 'line line--' + role;
    li.textContent = text;
    if (meta) {
      const small = document.createElement('span');
      small.className = 'line__meta';
      small.textContent = meta;
      li.appendChild(small);
    }
    ui.transcript.appendChild(li);
    li.scrollIntoView({ block: 'end' });
    probe.transcript.push({ role: role, text: text });
    return li;
  }

  /** Why the call link cannot be used, in words, from the API's error answer. */
  function refusal(status, body) {
    const message = (body && body.message) || '';
    const code = body && body.error && body.error.code;
    if (code === 'CALL_ENDED')
      return ['This call has already ended.', 'Ask for a new call link to talk again.'];
    if (/expired/.test(message)) return ['This call link has expired.', 'Call links work for 10 minutes.'];
    if (/already been used/.test(message))
      return ['This call link has already been used.', 'Each link opens one call. Ask for a new one.'];
    if (status === 401 || status === 404)
      return ['This call link is not valid.', 'Check the address, or ask for a new link.'];
    if (status === 403) return ['This site may not open this call.', ''];
    if (status === 429) return ['Too many attempts.', 'Please wait a minute and try again.'];
    return ['The call service is not reachable.', 'Please try again in a moment.'];
  }

  async function check() {
    if (!callId || !token) return fail('This call link is not valid.', 'It has no call token.');
    try {
      const res = await fetch(BASE + '/calls/' + callId + '/token', {
        headers: { 'x-web-call-token': token },
        cache: 'no-store',
      });
      const body = await res.json().catch(() => null);
      if (!res.ok) {
        const r = refusal(res.status, body);
        return fail(r[0], r[1]);
      }
      setState('ready', 'Ready when you are', 'Press Start call and allow the microphone.');
      ui.call.disabled = false;
    } catch (e) {
      fail('The call service is not reachable.', 'Check your connection and reload the page.');
    }
  }

  async function start() {
    ui.call.disabled = true;
    setState('connecting', 'Starting…', 'Allow the microphone when your browser asks.');
    try {
      mic = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
      });
    } catch (e) {
      const denied = e && (e.name === 'NotAllowedError' || e.name === 'SecurityError');
      fail(
        denied ? 'Microphone access was refused.' : 'No microphone was found.',
        denied
          ? 'The call needs your microphone. Allow it for this site, then ask for a new call link.'
          : 'Connect a microphone, then ask for a new call link.',
      );
      // The call is ended at once, with the reason: the business sees why it did not take place.
      hangUpBeforeStart(denied ? 'microphone_denied' : 'microphone_missing');
      return;
    }
    try {
      ctx = new (window.AudioContext || window.webkitAudioContext)({ latencyHint: 'interactive' });
      await ctx.audioWorklet.addModule(BASE + '/assets/audio-worklets.js');
      const source = ctx.createMediaStreamSource(mic);
      capture = new AudioWorkletNode(ctx, 'capture-16k', { numberOfInputs: 1, numberOfOutputs: 0 });
      playback = new AudioWorkletNode(ctx, 'playback-16k', { numberOfInputs: 0, outputChannelCount: [1] });
      analyser = ctx.createAnalyser();
      analyser.fftSize = 1024;
      source.connect(capture);
      playback.connect(analyser);
      analyser.connect(ctx.destination);
      await ctx.resume();
    } catch (e) {
      fail('Your browser cannot play this call.', 'Try a recent Chrome, Safari, Edge or Firefox.');
      hangUpBeforeStart('audio_unavailable');
      return;
    }
    capture.port.onmessage = (e) => {
      const level = e.data.level;
      probe.micLevel = level;
      ui.level.style.width = Math.min(100, Math.round(Math.sqrt(level) * 220)) + '%';
      if (started && ws && ws.readyState === WebSocket.OPEN) {
        ws.send(e.data.frame);
        probe.framesSent += 1;
      }
    };
    playback.port.onmessage = (e) => {
      if (e.data.played && ws && ws.readyState === WebSocket.OPEN)
        ws.send(JSON.stringify({ type: 'mark', name: e.data.played }));
      if (typeof e.data.underruns === 'number') probe.underruns = e.data.underruns;
    };
    meterAgent();
    connect();
  }

  function socketUrl() {
    const scheme = location.protocol === 'https:' ? 'wss://' : 'ws://';
    return scheme + location.host + BASE + '/calls/' + callId + '?token=' + encodeURIComponent(token);
  }

  function connect() {
    setState('connecting', 'Connecting…', '');
    ws = new WebSocket(socketUrl());
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => ws.send(JSON.stringify({ type: 'start', sample_rate: 16000 }));
    ws.onmessage = (e) => {
      if (typeof e.data !== 'string') {
        probe.framesReceived += 1;
        playback.port.postMessage({ pcm: e.data }, [e.data]);
        return;
      }
      let m;
      try {
        m = JSON.parse(e.data);
      } catch (err) {
        return;
      }
      onMessage(m);
    };
    ws.onclose = (e) => onClose(e);
  }

  function onMessage(m) {
    switch (m.type) {
      case 'started':
        started = true;
        answeredAt = Date.now();
        clock = setInterval(tick, 500);
        ui.call.disabled = false;
        ui.call.textContent = 'Hang up';
        ui.call.classList.add('is-live');
        ui.mute.disabled = false;
        ui.callStatus.textContent = 'Connected';
        setState('listening', 'Connected', 'Speak whenever you like, you can interrupt.');
        break;
      case 'mark':
        playback.port.postMessage({ mark: m.name });
        break;
      case 'clear':
        playback.port.postMessage({ clear: true });
        break;
      case 'status':
        if (STATE_WORDS[m.state]) setState(m.state, STATE_WORDS[m.state]);
        break;
      case 'transcript':
        line(m.role === 'agent' ? 'agent' : 'customer', m.text);
        break;
      case 'turn':
        probe.turns.push(m.voice_to_voice_ms);
        ui.latency.textContent = 'Last reply in ' + (m.voice_to_voice_ms / 1000).toFixed(2) + ' s';
        break;
      case 'call':
        if (m.status === 'in-progress') ui.callStatus.textContent = 'Connected';
        break;
      case 'end':
        endedByCall = true;
        probe.endReason = m.end_reason;
        finish(END_WORDS[m.end_reason] || 'The call has ended.');
        break;
      case 'error':
        ui.hint.textContent = m.message || '';
        break;
    }
  }

  function onClose(e) {
    if (endedByCall) return;
    if (ending) return finish(ending);
    if (!started && e.code === 1006) {
      // The handshake was refused: ask why, without using the token.
      return void fetch(BASE + '/calls/' + callId + '/token', { headers: { 'x-web-call-token': token } })
        .then((res) => res.json().then((body) => ({ res: res, body: body })))
        .then(({ res, body }) => {
          const r = res.ok ? ['The call could not connect.', 'Please try again.'] : refusal(res.status, body);
          stopAudio();
          fail(r[0], r[1]);
        })
        .catch(() => {
          stopAudio();
          fail('The call could not connect.', 'Check your connection.');
        });
    }
    stopAudio();
    fail(
      e.code === 1000 ? 'The call has ended.' : 'The connection was lost.',
      e.code === 1000 ? '' : 'The call ended. Ask for a new call link to talk again.',
    );
  }

  function finish(words) {
    stopAudio();
    setState('ended', words, 'Thank you for calling.');
    ui.call.disabled = true;
    ui.call.classList.remove('is-live');
    ui.call.textContent = 'Call ended';
    ui.mute.disabled = true;
    ui.callStatus.textContent = 'Call ended';
    line('system', words);
    if (ws && ws.readyState === WebSocket.OPEN) ws.close(1000);
  }

  function stopAudio() {
    started = false;
    if (clock) clearInterval(clock);
    clock = null;
    if (mic) mic.getTracks().forEach((t) => t.stop());
    mic = null;
    if (ctx && ctx.state !== 'closed') ctx.close().catch(() => undefined);
    ui.level.style.width = '0%';
  }

  function hangUp() {
    ending = 'You ended the call.';
    probe.endReason = 'customer_hangup';
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'end' }));
    else finish(ending);
  }

  /** The call cannot take place here: its socket is opened only to end it, with the reason. */
  function hangUpBeforeStart(reason) {
    const socket = new WebSocket(socketUrl());
    socket.onopen = () => socket.send(JSON.stringify({ type: 'end', reason: reason }));
  }

  function tick() {
    const s = Math.floor((Date.now() - answeredAt) / 1000);
    ui.timer.textContent =
      String(Math.floor(s / 60)).padStart(2, '0') + ':' + String(s % 60).padStart(2, '0');
  }

  /** The agent's level as it is heard (an AnalyserNode on the playback), for the orb and for tests. */
  function meterAgent() {
    const data = new Float32Array(analyser.fftSize);
    const timer = setInterval(() => {
      if (!analyser || !ctx || ctx.state === 'closed') return clearInterval(timer);
      analyser.getFloatTimeDomainData(data);
      let sum = 0;
      for (let i = 0; i < data.length; i++) sum += data[i] * data[i];
      const rms = Math.sqrt(sum / data.length);
      probe.agentLevel = rms;
      probe.agentPeak = Math.max(probe.agentPeak, rms);
      ui.orb.style.setProperty('--level', Math.min(1, rms * 6).toFixed(3));
    }, 50);
  }

  ui.call.addEventListener('click', () => (started ? hangUp() : start()));
  ui.mute.addEventListener('click', () => {
    muted = !muted;
    ui.mute.setAttribute('aria-pressed', String(muted));
    ui.mute.textContent = muted ? 'Unmute' : 'Mute';
    if (capture) capture.port.postMessage({ muted: muted });
  });
  window.addEventListener('pagehide', () => {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'end' }));
  });

  check();
})();
